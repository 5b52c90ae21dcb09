import type { Timeline, TimelinePrompt } from '../../../shared/session-schema.js';
import { num, obj, splitJsonl, str, type JsonlLine } from '../jsonl.js';
import { addToolCall, closeTurn, promptRow, timelineDoc, titleOf } from '../timeline-parts.js';

/**
 * Qwen Code sessions (`~/.qwen/projects/<cwd with / as ->/chats/<sessionId>.jsonl`, FORMATS.md §2b):
 * a tree like Claude Code's. Every record (user, assistant, tool_result, system) has `uuid` and
 * `parentUuid`; message content is Gemini `parts`. Resume walks `parentUuid` up from the LAST
 * record, so an in-place branch is honoured and a native `/rewind` (a `system` `rewind` record
 * hung off the message before the dropped turn) leaves the dropped turns as a dead branch.
 */

export interface QwenRecord {
  line: JsonlLine;
  uuid: string;
  parentUuid: string | null;
  type: string;
}

type Part = Record<string, unknown>;
const partsOf = (v: Record<string, unknown>): Part[] => {
  const p = obj(v.message).parts;
  return Array.isArray(p) ? p.filter((x): x is Part => !!x && typeof x === 'object') : [];
};

/** A human prompt: a `user` record whose parts hold text and no function response. */
export function qwenPromptText(v: Record<string, unknown>): { text: string; images: number } | null {
  if (v.type !== 'user') return null;
  const parts = partsOf(v);
  if (parts.some((p) => p.functionResponse)) return null;
  const texts = parts.filter((p) => typeof p.text === 'string' && !p.thought).map((p) => String(p.text));
  const images = parts.filter((p) => p.inlineData || p.fileData).length;
  if (texts.length === 0 && images === 0) return null;
  return { text: texts.join('\n'), images };
}

export interface QwenModel {
  lines: JsonlLine[];
  records: QwenRecord[];
  byUuid: Map<string, QwenRecord>;
  sessionId: string | null;
  cwd: string | null;
  version: string | null;
  leaf: string | null;
  /** uuids on the path a resume takes (from the last record up). */
  active: Set<string>;
  issues: Timeline['issues'];
}

export function qwenModel(buf: Buffer): QwenModel {
  const { lines } = splitJsonl(buf);
  const records: QwenRecord[] = [];
  const byUuid = new Map<string, QwenRecord>();
  const issues: Timeline['issues'] = [];
  let sessionId: string | null = null;
  let cwd: string | null = null;
  let version: string | null = null;
  for (const line of lines) {
    const v = line.value;
    if (!v) {
      if (line.length > 0) issues.push({ line: line.index + 1, offset: line.offset, reason: line.reason ?? 'unreadable' });
      continue;
    }
    const uuid = str(v.uuid);
    if (!uuid) continue;
    sessionId ??= str(v.sessionId);
    cwd ??= str(v.cwd);
    version = str(v.version) ?? version;
    const r: QwenRecord = { line, uuid, parentUuid: str(v.parentUuid), type: str(v.type) ?? '' };
    records.push(r);
    byUuid.set(uuid, r);
  }
  const leaf = records[records.length - 1]?.uuid ?? null;
  return { lines, records, byUuid, sessionId, cwd, version, leaf, active: pathTo(leaf, byUuid), issues };
}

/** uuids from `uuid` up to its root (a broken chain just ends). */
export function pathTo(uuid: string | null, byUuid: Map<string, QwenRecord>): Set<string> {
  const out = new Set<string>();
  let cur = uuid ? byUuid.get(uuid) : undefined;
  while (cur && !out.has(cur.uuid)) {
    out.add(cur.uuid);
    cur = cur.parentUuid ? byUuid.get(cur.parentUuid) : undefined;
  }
  return out;
}

export function qwenTimeline(buf: Buffer, path: string): Timeline {
  const m = qwenModel(buf);
  const prompts: TimelinePrompt[] = [];
  const promptOf = new Map<string, TimelinePrompt>();
  let messages = 0;
  let first: string | null = null;
  let last: string | null = null;
  let model: string | null = null;
  const turnLast = new Map<TimelinePrompt, string>();
  // The prompt each record belongs to: the nearest prompt above it (branches keep their own).
  const ownerOf = (r: QwenRecord): TimelinePrompt | undefined => (r.parentUuid ? promptOf.get(r.parentUuid) : undefined);
  let live = 0;
  for (const r of m.records) {
    const v = r.line.value!;
    const ts = str(v.timestamp);
    if (ts) {
      first ??= ts;
      last = ts;
    }
    const p = qwenPromptText(v);
    if (p) {
      messages++;
      const active = m.active.has(r.uuid);
      const row = promptRow({ uuid: r.uuid, index: prompts.length + 1, number: active ? ++live : null, text: p.text, images: p.images, timestamp: ts, offset: r.line.offset, length: r.line.length, line: r.line.index, parentUuid: r.parentUuid });
      prompts.push(row);
      promptOf.set(r.uuid, row);
      continue;
    }
    const owner = ownerOf(r);
    if (owner) promptOf.set(r.uuid, owner);
    if (r.type === 'assistant' || r.type === 'tool_result' || r.type === 'user') messages++;
    if (!owner) continue;
    if (ts) turnLast.set(owner, ts);
    const turn = owner.turn;
    if (r.type === 'assistant') {
      turn.assistantMessages++;
      turn.messageCount++;
      model = str(v.model) ?? model;
      for (const part of partsOf(v)) {
        const call = obj(part.functionCall);
        if (part.functionCall) addToolCall(turn, str(call.name) ?? 'tool', obj(call.args));
      }
      const usage = obj(v.usageMetadata);
      turn.inputTokens += num(usage.promptTokenCount);
      turn.outputTokens += num(usage.candidatesTokenCount);
    } else if (r.type === 'tool_result') {
      turn.messageCount++;
    } else if (r.type === 'system' && v.subtype === 'ui_telemetry') {
      const ev = obj(obj(v.systemPayload).uiEvent);
      if (ev['event.name'] === 'qwen-code.api_response') {
        model = str(ev.model) ?? model;
        if (!obj(v).usageMetadata) {
          turn.inputTokens += num(ev.input_token_count);
          turn.outputTokens += num(ev.output_token_count);
        }
      }
    }
  }
  for (const [p, ts] of turnLast) closeTurn(p, ts);
  const branches = branchesOf(m, prompts);
  return timelineDoc({
    session: {
      id: m.sessionId ?? path.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, ''),
      agent: 'qwen',
      title: titleOf(prompts),
      cwd: m.cwd,
      transcriptPath: path,
      version: m.version,
      gitBranch: null,
      sizeBytes: buf.length,
      firstTimestamp: first,
      lastTimestamp: last,
      readOnly: null,
      model,
    },
    prompts,
    branches,
    activeLeaf: m.leaf,
    lines: m.lines.length,
    messages,
    issues: m.issues,
  });
}

/** Dead prompts get a lane per abandoned branch and the live record their branch hangs off. */
function branchesOf(m: QwenModel, prompts: TimelinePrompt[]): Timeline['branches'] {
  const laneOfRoot = new Map<string, number>();
  const byPoint = new Map<string, { liveChild: string | null; deadRoots: string[] }>();
  const promptAt = (uuid: string): string | null => {
    let cur = m.byUuid.get(uuid);
    const seen = new Set<string>();
    while (cur && !seen.has(cur.uuid)) {
      seen.add(cur.uuid);
      if (qwenPromptText(cur.line.value!)) return cur.uuid;
      cur = cur.parentUuid ? m.byUuid.get(cur.parentUuid) : undefined;
    }
    return null;
  };
  for (const p of prompts) {
    if (p.active) continue;
    // Up from the dead prompt to the first live record: that is the fork point.
    let child = m.byUuid.get(p.uuid);
    const seen = new Set<string>();
    while (child?.parentUuid && !m.active.has(child.parentUuid) && !seen.has(child.uuid)) {
      seen.add(child.uuid);
      child = m.byUuid.get(child.parentUuid);
    }
    if (!child) continue;
    if (!laneOfRoot.has(child.uuid)) laneOfRoot.set(child.uuid, laneOfRoot.size + 1);
    p.lane = laneOfRoot.get(child.uuid)!;
    p.forkPoint = child.parentUuid;
    if (!child.parentUuid) continue;
    const b = byPoint.get(child.parentUuid) ?? { liveChild: m.records.find((r) => r.parentUuid === child!.parentUuid && m.active.has(r.uuid))?.uuid ?? null, deadRoots: [] };
    if (!b.deadRoots.includes(child.uuid)) b.deadRoots.push(child.uuid);
    byPoint.set(child.parentUuid, b);
  }
  return [...byPoint].map(([forkPoint, b]) => ({ forkPoint, afterPromptUuid: promptAt(forkPoint), liveChild: b.liveChild, deadRoots: b.deadRoots }));
}
