import type { Timeline, TimelinePrompt } from '../../../shared/session-schema.js';
import { num, obj, splitJsonl, str, type JsonlLine } from '../jsonl.js';
import { addToolCall, closeTurn, promptRow, timelineDoc, titleOf } from '../timeline-parts.js';

/**
 * GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`, FORMATS.md §2e): one
 * event per line `{type, data, id, timestamp, parentId}`, each `parentId` the previous event's id.
 * A resume replays the events in file order (measured: after Copilot's own /rewind the resume
 * event's `parentId` names a removed event and the kept prompts are still sent), so the timeline
 * is linear: every prompt is on the live path.
 */

export interface CopilotHead {
  sessionId: string | null;
  cwd: string | null;
  version: string | null;
  model: string | null;
}

export function isCopilotStart(v: Record<string, unknown> | null): boolean {
  return !!v && v.type === 'session.start' && typeof obj(v.data).sessionId === 'string';
}

/**
 * A human prompt: a `user.message` of the main agent (no `agentId`) that no skill, sub-agent or
 * notification injected (`data.source` absent). The text is what the user typed (`content`), not
 * the `transformedContent` with its time stamp.
 */
export function copilotPromptText(v: Record<string, unknown>): { text: string; images: number } | null {
  if (v.type !== 'user.message' || v.agentId !== undefined) return null;
  const d = obj(v.data);
  const source = str(d.source);
  if (source && source !== 'user') return null;
  const text = str(d.content);
  const attachments = Array.isArray(d.attachments) ? d.attachments.map(obj) : [];
  const images = attachments.filter((a) => /^image\//.test(str(a.mimeType) ?? '') || a.type === 'image').length;
  if (text === null && images === 0) return null;
  return { text: text ?? '', images };
}

export interface CopilotParse {
  head: CopilotHead;
  lines: JsonlLine[];
  /** The `session.start` line (its id is restamped in a fork). */
  startLine: JsonlLine | null;
  prompts: TimelinePrompt[];
  messages: number;
  issues: Timeline['issues'];
  first: string | null;
  last: string | null;
  model: string | null;
}

export function parseCopilotBuffer(buf: Buffer): CopilotParse {
  const { lines } = splitJsonl(buf);
  const head: CopilotHead = { sessionId: null, cwd: null, version: null, model: null };
  let startLine: JsonlLine | null = null;
  const prompts: TimelinePrompt[] = [];
  const issues: Timeline['issues'] = [];
  let messages = 0;
  let first: string | null = null;
  let last: string | null = null;
  let turnLast: string | null = null;
  let model: string | null = null;
  for (const line of lines) {
    const v = line.value;
    if (!v) {
      if (line.length > 0) issues.push({ line: line.index + 1, offset: line.offset, reason: line.reason ?? 'unreadable' });
      continue;
    }
    const d = obj(v.data);
    const ts = str(v.timestamp);
    if (ts) {
      first ??= ts;
      last = ts;
    }
    if (v.type === 'session.start' && !startLine && isCopilotStart(v)) {
      startLine = line;
      head.sessionId = str(d.sessionId);
      head.cwd = str(obj(d.context).cwd);
      head.version = str(d.copilotVersion);
      head.model = str(d.selectedModel);
      continue;
    }
    if (v.type === 'session.resume') {
      head.cwd ??= str(obj(d.context).cwd);
      continue;
    }
    const prompt = copilotPromptText(v);
    if (prompt) {
      messages++;
      closeTurn(prompts[prompts.length - 1], turnLast);
      const n = prompts.length + 1;
      prompts.push(promptRow({ uuid: str(v.id) ?? `copilot:${line.offset}`, index: n, number: n, text: prompt.text, images: prompt.images, timestamp: ts, offset: line.offset, length: line.length, line: line.index, parentUuid: str(v.parentId) }));
      turnLast = ts;
      continue;
    }
    const turn = prompts[prompts.length - 1]?.turn;
    // Sub-agents' events carry an `agentId`: their work is the main turn's tool call.
    if (v.agentId !== undefined) continue;
    if (v.type === 'assistant.message') {
      messages++;
      if (!turn) continue;
      turn.assistantMessages++;
      turn.messageCount++;
      if (ts) turnLast = ts;
      model = str(d.model) ?? model;
      for (const r of Array.isArray(d.toolRequests) ? d.toolRequests.map(obj) : []) addToolCall(turn, str(r.name) ?? 'tool', obj(r.arguments));
    } else if (v.type === 'tool.execution_complete') {
      messages++;
      if (!turn) continue;
      turn.messageCount++;
      if (ts) turnLast = ts;
      // What the tool says it changed (also for tools whose arguments name no file).
      for (const e of Array.isArray(d.fileEdits) ? d.fileEdits.map(obj) : []) {
        const p = str(e.path);
        if (p && !turn.filesTouched.includes(p)) turn.filesTouched.push(p);
      }
    } else if (v.type === 'session.usage_record' && turn) {
      const u = obj(d.usage);
      turn.inputTokens += num(u.inputTokens);
      turn.outputTokens += num(u.outputTokens);
      turn.cacheReadTokens = (turn.cacheReadTokens ?? 0) + num(u.cacheReadTokens);
      turn.cacheWriteTokens = (turn.cacheWriteTokens ?? 0) + num(u.cacheWriteTokens);
      turn.model = str(u.model) ?? turn.model ?? null;
      model = str(u.model) ?? model;
    } else if (v.type === 'assistant.turn_end' && turn && ts) {
      turnLast = ts;
    }
  }
  closeTurn(prompts[prompts.length - 1], turnLast);
  return { head, lines, startLine, prompts, messages, issues, first, last, model: model ?? head.model };
}

/** The session id a path names: its folder `session-state/<id>/events.jsonl`. */
export const idOfPath = (path: string): string => path.split(/[\\/]/).slice(-2, -1)[0] ?? path;

export function copilotTimeline(buf: Buffer, path: string): Timeline {
  const p = parseCopilotBuffer(buf);
  return timelineDoc({
    session: {
      id: p.head.sessionId ?? idOfPath(path),
      agent: 'copilot',
      title: titleOf(p.prompts),
      cwd: p.head.cwd,
      transcriptPath: path,
      version: p.head.version,
      gitBranch: null,
      sizeBytes: buf.length,
      firstTimestamp: p.first,
      lastTimestamp: p.last,
      readOnly: null,
      model: p.model,
    },
    prompts: p.prompts,
    activeLeaf: null,
    lines: p.lines.length,
    messages: p.messages,
    issues: p.issues,
  });
}
