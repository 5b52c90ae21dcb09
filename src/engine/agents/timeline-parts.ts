import type { TurnItem } from '../../shared/contract.js';
import type { Timeline, TimelinePrompt, TurnSummary } from '../../shared/session-schema.js';

/** Pieces every agent's timeline builder shares: a fresh turn, a prompt row, the document. */

export function emptyTurn(): TurnSummary {
  return { assistantMessages: 0, toolCalls: [], filesTouched: [], inputTokens: 0, outputTokens: 0, durationMs: null, messageCount: 0 };
}

/** A tool call as a row of the turn: the file it names, or its command, as the summary. */
export function addToolCall(turn: TurnSummary, name: string, input: Record<string, unknown>): void {
  const file = [input.file_path, input.absolute_path, input.path, input.filePath].find((v): v is string => typeof v === 'string') ?? null;
  const cmd = typeof input.command === 'string' ? input.command : Array.isArray(input.command) ? input.command.map(String).join(' ') : null;
  const summary = cmd ?? file ?? (typeof input.description === 'string' ? input.description : '');
  turn.toolCalls.push({ name, summary: summary.split('\n')[0]!.slice(0, 200), filePath: file });
  const writes = /^(write|create|edit|multiedit|replace|write_file|edit_file|applypatch|apply_patch)$/i.test(name);
  if (file && writes && !turn.filesTouched.includes(file)) turn.filesTouched.push(file);
}

export function promptRow(p: {
  uuid: string;
  index: number;
  number: number | null;
  text: string;
  images?: number;
  timestamp: string | null;
  offset: number;
  length: number;
  line: number;
  parentUuid: string | null;
  lane?: number;
  forkPoint?: string | null;
}): TimelinePrompt {
  return {
    uuid: p.uuid,
    index: p.index,
    number: p.number,
    text: p.text,
    images: p.images ?? 0,
    timestamp: p.timestamp,
    byteOffset: p.offset,
    byteLength: p.length,
    line: p.line + 1,
    active: p.number !== null,
    parentUuid: p.parentUuid,
    promptId: null,
    lane: p.lane ?? 0,
    forkPoint: p.forkPoint ?? null,
    turn: emptyTurn(),
    nativeCheckpoint: null,
    checkpoint: null,
  };
}

/** The turn's duration: from its prompt to the last message timestamp seen in it. */
export function closeTurn(prompt: TimelinePrompt | undefined, lastTs: string | null): void {
  if (!prompt || !prompt.timestamp || !lastTs) return;
  const d = Date.parse(lastTs) - Date.parse(prompt.timestamp);
  if (Number.isFinite(d) && d >= 0) prompt.turn.durationMs = d;
}

export function titleOf(prompts: TimelinePrompt[], given?: string | null): string {
  if (given && given.trim()) return given.split('\n')[0]!.slice(0, 200);
  return prompts[0]?.text.split('\n')[0]?.slice(0, 200) ?? '(no prompt yet)';
}

export function timelineDoc(parts: {
  session: Timeline['session'];
  prompts: TimelinePrompt[];
  branches?: Timeline['branches'];
  activeLeaf?: string | null;
  lines: number;
  messages: number;
  issues: Timeline['issues'];
}): Timeline {
  const active = parts.prompts.filter((p) => p.active).length;
  return {
    session: parts.session,
    prompts: parts.prompts,
    commands: [],
    compactions: [],
    branches: parts.branches ?? [],
    subagents: [],
    activeLeaf: parts.activeLeaf ?? null,
    stats: { lines: parts.lines, messages: parts.messages, prompts: parts.prompts.length, activePrompts: active, deadPrompts: parts.prompts.length - active },
    issues: parts.issues,
  };
}

/** A turn item with the pane's defaults (no tool view, no images, no subagent). */
export const turnItem = (i: Pick<TurnItem, 'kind' | 'title' | 'body'> & Partial<TurnItem>): TurnItem => ({ isError: false, tool: null, images: [], subagent: null, ...i });
