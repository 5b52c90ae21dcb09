import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Timeline, TimelinePrompt, TurnSummary } from '../../shared/session-schema.js';
import { RewindError } from '../errors.js';
import { parseJsonLine } from '../io/json-line.js';
import { readLines } from '../io/read-lines.js';

/**
 * Codex CLI rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`, FORMATS.md §2): a linear
 * log of `{timestamp, type, payload}` lines. A prompt is an `event_msg` of type `user_message`; the
 * user-role `response_item`s around it also carry injected context (AGENTS.md, environment), so they
 * are never prompts. Unknown line types are skipped: newer CLIs add them.
 */

type Rec = { timestamp?: unknown; type?: unknown; payload?: Record<string, unknown> };

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Is this first line a Codex rollout's `session_meta`? */
export function isRolloutHead(firstLine: Buffer | string): boolean {
  const parsed = parseJsonLine(typeof firstLine === 'string' ? Buffer.from(firstLine) : firstLine);
  if (!parsed.ok) return false;
  const e = parsed.value as Rec;
  return e.type === 'session_meta' && !!e.payload && typeof e.payload === 'object';
}

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

/** Reads a rollout whole into the timeline document the window and `timeline --json` show. */
export async function parseRollout(path: string): Promise<Timeline> {
  const st = await stat(path).catch(() => null);
  if (!st?.isFile()) throw new RewindError('NOT_FOUND', `transcript not found: ${path}`);
  if (st.size === 0) throw new RewindError('INVALID_TRANSCRIPT', `transcript is empty: ${path}`);
  let id: string | null = null;
  let cwd: string | null = null;
  let version: string | null = null;
  let gitBranch: string | null = null;
  let first: string | null = null;
  let last: string | null = null;
  let messages = 0;
  const prompts: TimelinePrompt[] = [];
  const compactions: Timeline['compactions'] = [];
  const issues: Timeline['issues'] = [];
  let startedAt: number | null = null;
  let model: string | null = null;
  const res = await readLines(path, (line) => {
    if (line.bytes.length === 0) return;
    const parsed = parseJsonLine(line.bytes);
    if (!parsed.ok) {
      issues.push({ line: line.index + 1, offset: line.offset, reason: parsed.reason });
      return;
    }
    const e = parsed.value as Rec;
    const p = e.payload && typeof e.payload === 'object' ? e.payload : {};
    const ts = str(e.timestamp);
    if (ts) {
      first ??= ts;
      last = ts;
    }
    const turn = prompts[prompts.length - 1]?.turn;
    if (e.type === 'session_meta') {
      id ??= str(p.id);
      cwd ??= str(p.cwd);
      version ??= str(p.cli_version);
      gitBranch ??= str((p.git as Record<string, unknown> | undefined)?.branch);
      return;
    }
    if (e.type === 'turn_context') {
      // Written around each turn's start: it names the model for the turn under way and the next.
      model = str(p.model) ?? model;
      if (turn) turn.model = model;
      return;
    }
    if (e.type === 'compacted' || (e.type === 'event_msg' && p.type === 'context_compacted')) {
      // One compaction can be logged both ways: keep the first of a pair.
      const prev = compactions[compactions.length - 1];
      if (prev && prev.afterPromptUuid === (prompts[prompts.length - 1]?.uuid ?? null) && prev.byteOffset >= (prompts[prompts.length - 1]?.byteOffset ?? 0)) return;
      compactions.push({ uuid: `${line.offset}`, logicalParentUuid: null, timestamp: ts, byteOffset: line.offset, trigger: null, preTokens: null, active: true, afterPromptUuid: prompts[prompts.length - 1]?.uuid ?? null });
      return;
    }
    if (e.type === 'event_msg') {
      if (p.type === 'user_message') {
        const text = str(p.message) ?? '';
        const images = Array.isArray(p.images) ? p.images.length : 0;
        const n = prompts.length + 1;
        prompts.push({
          // Rollouts have no message ids: a prompt is named by where it starts, stable while the file only grows.
          uuid: `codex:${line.offset}`,
          index: n,
          number: n,
          text,
          images,
          timestamp: ts,
          byteOffset: line.offset,
          byteLength: line.length,
          line: line.index + 1,
          active: true,
          parentUuid: prompts[prompts.length - 1]?.uuid ?? null,
          parentPrompt: prompts[prompts.length - 1]?.uuid ?? null,
          promptId: null,
          lane: 0,
          forkPoint: null,
          turn: { ...emptyTurn(), model },
          nativeCheckpoint: null,
          checkpoint: null,
        });
        messages++;
      } else if (p.type === 'token_count' && turn) {
        const usage = ((p.info as Record<string, unknown> | null)?.last_token_usage ?? {}) as Record<string, unknown>;
        // Codex counts cached input inside input_tokens, as we do.
        turn.inputTokens += num(usage.input_tokens);
        turn.outputTokens += num(usage.output_tokens);
        turn.cacheReadTokens = (turn.cacheReadTokens ?? 0) + num(usage.cached_input_tokens);
      } else if (p.type === 'task_started') {
        startedAt = ts ? Date.parse(ts) : null;
      } else if (p.type === 'task_complete' && turn) {
        const d = num(p.duration_ms);
        turn.durationMs = d || (startedAt !== null && ts ? Date.parse(ts) - startedAt : null);
      }
      return;
    }
    if (e.type === 'response_item') {
      if (p.type === 'message' && p.role === 'assistant') {
        messages++;
        if (turn) {
          turn.assistantMessages++;
          turn.messageCount++;
        }
      } else if ((p.type === 'function_call' || p.type === 'custom_tool_call' || p.type === 'local_shell_call') && turn) {
        const c = toolCall(p);
        turn.toolCalls.push({ name: c.name, summary: c.summary, filePath: c.filePath });
        for (const f of c.files) if (!turn.filesTouched.includes(f)) turn.filesTouched.push(f);
        turn.messageCount++;
      } else if (turn && (p.type === 'function_call_output' || p.type === 'custom_tool_call_output')) {
        turn.messageCount++;
      }
    }
  });
  if (!id && prompts.length === 0 && messages === 0) throw new RewindError('INVALID_TRANSCRIPT', `not a Codex rollout (no session_meta line): ${path}`);
  const sessionId = id ?? basename(path, '.jsonl');
  const timeline: Timeline = {
    session: {
      id: sessionId,
      agent: 'codex',
      title: prompts[0]?.text.split('\n')[0]?.slice(0, 200) ?? '(no prompt yet)',
      cwd,
      transcriptPath: path,
      version,
      gitBranch,
      sizeBytes: res.size,
      firstTimestamp: first,
      lastTimestamp: last,
    },
    prompts,
    commands: [],
    compactions,
    branches: [],
    subagents: [],
    activeLeaf: null,
    stats: { lines: res.lineCount, messages, prompts: prompts.length, activePrompts: prompts.length, deadPrompts: 0 },
    issues,
  };
  return timeline;
}
