import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Timeline, TimelinePrompt, TurnSummary } from '../../../shared/session-schema.js';
import { RewindError } from '../../errors.js';
import { promptOfEvent, promptOfItem } from './prompts.js';
import { readThread, rolloutName, type Thread, type ThreadLine } from './thread.js';

/**
 * Codex CLI rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, FORMATS.md §2): a linear
 * log of `{timestamp, type, payload}` lines, possibly continuing another file's history
 * (`thread.ts`). Prompts are told apart from injected context in `prompts.ts`; a prompt's turn runs
 * from its `task_started` to the next. Unknown line types are skipped: newer CLIs add them.
 */

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export { isRolloutHead } from './head.js';

function emptyTurn(): TurnSummary {
  return { assistantMessages: 0, toolCalls: [], filesTouched: [], inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, model: null, durationMs: null, messageCount: 0 };
}

/** The files an `apply_patch` names (`*** Add File: x`, `*** Update File: x`, `*** Delete File: x`). */
function patchedFiles(patch: string): string[] {
  return [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1]!.trim());
}

export function toolCall(p: Record<string, unknown>): { name: string; summary: string; filePath: string | null; files: string[] } {
  const name = str(p.name) ?? 'tool';
  const raw = str(p.arguments) ?? str(p.input) ?? '';
  let args: Record<string, unknown> = {};
  try {
    const v = JSON.parse(raw) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) args = v as Record<string, unknown>;
  } catch {
    // Free-form input (apply_patch): kept as text.
  }
  const cmd = args.cmd ?? args.command;
  const files = name === 'apply_patch' ? patchedFiles(raw) : [];
  const summary = Array.isArray(cmd) ? cmd.map(String).join(' ') : typeof cmd === 'string' ? cmd : files.length ? files.join(', ') : raw.split('\n')[0]!.slice(0, 200);
  return { name, summary, filePath: files[0] ?? null, files };
}

/** Reads a rollout (and the history it references) into the timeline document the window and `timeline --json` show. */
export async function parseRollout(path: string): Promise<Timeline> {
  const st = await stat(path).catch(() => null);
  if (!st?.isFile()) throw new RewindError('NOT_FOUND', `transcript not found: ${path}`);
  if (st.size === 0) throw new RewindError('INVALID_TRANSCRIPT', `transcript is empty: ${path}`);
  return timelineOfThread(await readThread(path));
}

/** The timeline of a thread read whole: prompts, their turns, compactions. */
export function timelineOfThread(thread: Thread): Timeline {
  const { path } = thread;
  const meta = thread.meta ?? {};
  const root = thread.rootMeta ?? meta;
  let first: string | null = null;
  let last: string | null = null;
  let messages = 0;
  const prompts: TimelinePrompt[] = [];
  const compactions: Timeline['compactions'] = [];
  let startedAt: number | null = null;
  let model: string | null = null;
  /** The open turn's `task_started` line, until its first prompt claims it as its cut. */
  let turnStart: ThreadLine | null = null;
  /** Activity since the last prompt: a user message after it is a new prompt, not its echo. */
  let quiet = false;
  let lastPromptText: string | null = null;
  /** The open turn's id (task_started / turn_context): the `turn_id` Codex's hooks name the prompt by. */
  let turnId: string | null = null;
  for (const line of thread.lines) {
    const e = line.rec;
    const p = e.payload && typeof e.payload === 'object' ? e.payload : {};
    const ts = str(e.timestamp);
    if (ts) {
      first ??= ts;
      last = ts;
    }
    const turn = prompts[prompts.length - 1]?.turn;
    const item = e.type === 'response_item' ? promptOfItem(p) : null;
    const event = e.type === 'event_msg' ? promptOfEvent(p) : null;
    const prompt = item ?? event;
    if (prompt) {
      const prev = prompts[prompts.length - 1];
      // Older CLIs log a prompt twice (the event and the history item): one prompt, named by the item.
      if (prev && quiet && lastPromptText === prompt.text) {
        if (item) prev.uuid = `codex:${line.vOffset}`;
        continue;
      }
      const n = prompts.length + 1;
      const cut = turnStart ?? line;
      prompts.push({
        uuid: `codex:${line.vOffset}`,
        index: n,
        number: n,
        text: prompt.text,
        images: prompt.images,
        timestamp: ts,
        // Where the prompt's turn starts: what a rewind cuts before.
        byteOffset: cut.vOffset,
        byteLength: line.length,
        line: line.index + 1,
        active: true,
        parentUuid: prev?.uuid ?? null,
        parentPrompt: prev?.uuid ?? null,
        promptId: turnId,
        lane: 0,
        forkPoint: null,
        turn: { ...emptyTurn(), model },
        nativeCheckpoint: null,
        checkpoint: null,
      });
      turnStart = null;
      turnId = null;
      quiet = true;
      lastPromptText = prompt.text;
      messages++;
      continue;
    }
    if (e.type === 'turn_context') {
      turnId = str(p.turn_id) ?? turnId;
      // Written around each turn's start: it names the model for the turn under way and the next.
      model = str(p.model) ?? model;
      if (turn) turn.model = model;
      continue;
    }
    if (e.type === 'compacted' || (e.type === 'event_msg' && p.type === 'context_compacted')) {
      // One compaction can be logged both ways: keep the first of a pair.
      const prev = compactions[compactions.length - 1];
      if (prev && prev.afterPromptUuid === (prompts[prompts.length - 1]?.uuid ?? null) && prev.byteOffset >= (prompts[prompts.length - 1]?.byteOffset ?? 0) && e.type !== 'compacted') continue;
      compactions.push({ uuid: `codex-compaction:${line.vOffset}`, logicalParentUuid: null, timestamp: ts, byteOffset: line.vOffset, trigger: null, preTokens: null, active: true, afterPromptUuid: prompts[prompts.length - 1]?.uuid ?? null });
      quiet = false;
      continue;
    }
    if (e.type === 'event_msg') {
      if (p.type === 'token_count' && turn) {
        const usage = ((p.info as Record<string, unknown> | null)?.last_token_usage ?? {}) as Record<string, unknown>;
        // Codex counts cached input inside input_tokens, as we do.
        turn.inputTokens += num(usage.input_tokens);
        turn.outputTokens += num(usage.output_tokens);
        turn.cacheReadTokens = (turn.cacheReadTokens ?? 0) + num(usage.cached_input_tokens);
      } else if (p.type === 'task_started') {
        turnId = str(obj(p.turn_attribution).turn_id) ?? str(p.turn_id) ?? null;
        startedAt = ts ? Date.parse(ts) : null;
        turnStart = line;
        quiet = false;
      } else if (p.type === 'task_complete' && turn) {
        const d = num(p.duration_ms);
        turn.durationMs = d || (startedAt !== null && ts ? Date.parse(ts) - startedAt : null);
      }
      continue;
    }
    if (e.type === 'response_item') {
      if (p.type === 'message' && p.role === 'assistant') {
        messages++;
        quiet = false;
        if (turn) {
          turn.assistantMessages++;
          turn.messageCount++;
        }
      } else if ((p.type === 'function_call' || p.type === 'custom_tool_call' || p.type === 'local_shell_call') && turn) {
        const c = toolCall(p);
        turn.toolCalls.push({ name: c.name, summary: c.summary, filePath: c.filePath });
        for (const f of c.files) if (!turn.filesTouched.includes(f)) turn.filesTouched.push(f);
        turn.messageCount++;
        quiet = false;
      } else if (turn && (p.type === 'function_call_output' || p.type === 'custom_tool_call_output')) {
        turn.messageCount++;
      }
    }
  }
  if (!thread.meta && prompts.length === 0 && messages === 0) throw new RewindError('INVALID_TRANSCRIPT', `not a Codex rollout (no session_meta line): ${path}`);
  const sessionId = str(meta.id) ?? rolloutName(path).threadId ?? basename(path, '.jsonl');
  return {
    session: {
      id: sessionId,
      agent: 'codex',
      title: prompts[0]?.text.split('\n')[0]?.slice(0, 200) ?? '(no prompt yet)',
      cwd: str(meta.cwd) ?? str(root.cwd),
      transcriptPath: path,
      version: str(meta.cli_version) ?? str(root.cli_version),
      gitBranch: str((meta.git as Record<string, unknown> | undefined)?.branch) ?? str((root.git as Record<string, unknown> | undefined)?.branch),
      sizeBytes: thread.size,
      firstTimestamp: first ?? str(meta.timestamp),
      lastTimestamp: last,
      readOnly: null,
    },
    prompts,
    commands: [],
    compactions,
    branches: [],
    subagents: [],
    activeLeaf: null,
    stats: { lines: thread.lineCount, messages, prompts: prompts.length, activePrompts: prompts.length, deadPrompts: 0 },
    issues: thread.issues,
  };
}
