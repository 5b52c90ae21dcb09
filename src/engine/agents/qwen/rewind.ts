import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { RewindError } from '../../errors.js';
import { pickTarget, rewindByPlan, type CutPlan, type CutTarget } from '../cut-writer.js';
import { statementOfPlan, type PlannedResult, type PromptBefore } from '../statement-of-plan.js';
import { pathTo, qwenModel, qwenPromptText, type QwenModel } from './parse.js';
import { qwenRootOf } from './code-history.js';

type RewindOpts = Parameters<typeof rewindByPlan>[1];

/**
 * Qwen resumes from the last record up its `parentUuid` chain: the rewound file must end on the
 * message before the cut prompt. A fork keeps exactly that chain (the records a resume would see),
 * in file order, and restamps `sessionId` (Qwen's own `--fork-session` does the same). In place,
 * the file loses only the cut prompt and what hangs below it: every other branch stays, and when
 * something kept comes after the message before the cut, a `system` `rewind` record hung off that
 * message ends the file (the record Qwen's own /rewind appends), so the resume still lands there.
 * The statement names every prompt that goes, read off these bytes.
 */
export function planQwenCut(buf: Buffer, path: string, target: CutTarget, now: Date = new Date()): CutPlan {
  const m = qwenModel(buf);
  if (!m.sessionId) throw new RewindError('INVALID_TRANSCRIPT', `not a Qwen Code session (no sessionId): ${path}`);
  const prompts = m.records.filter((r) => qwenPromptText(r.line.value!));
  const live = prompts.filter((r) => m.active.has(r.uuid));
  const asRow = (r: (typeof prompts)[number]) => ({ uuid: r.uuid, text: qwenPromptText(r.line.value!)!.text, images: qwenPromptText(r.line.value!)!.images, timestamp: typeof r.line.value!.timestamp === 'string' ? r.line.value!.timestamp : null, offset: r.line.offset });
  const cut = pickTarget(live, prompts, target);
  if (!cut.parentUuid || !m.byUuid.has(cut.parentUuid)) throw new RewindError('NOT_ENOUGH_PROMPTS', 'that is the first prompt: nothing would be left to resume (start a new session instead)');
  const keep = pathTo(cut.parentUuid, m.byUuid);
  const kept = m.records.filter((r) => keep.has(r.uuid));
  const cutSide = below(m, cut.uuid);
  const keptInPlace = m.records.filter((r) => !cutSide.has(r.uuid));
  const dropped = m.records.filter((r) => r.line.offset < cut.line.offset && !keep.has(r.uuid)).length;
  const onCutSide = m.active.has(cut.uuid);
  const reverted = prompts.filter((p) => p.line.offset >= cut.line.offset && m.active.has(p.uuid) === onCutSide && pathTo(p.uuid, m.byUuid).has(cut.uuid));
  const oldId = m.sessionId;
  const bytesOf = (records: typeof kept, restamp: (line: string) => string) =>
    Buffer.from(records.map((r) => `${restamp(buf.subarray(r.line.offset, r.line.offset + r.line.length).toString('utf8'))}\n`).join(''));
  const tip = keptInPlace[keptInPlace.length - 1]?.uuid === cut.parentUuid ? '' : `${rewindRecord(m, cut.parentUuid, cutSide.size, now)}\n`;
  const inPlace = Buffer.concat([bytesOf(keptInPlace, (l) => l), Buffer.from(tip)]);
  const forkBytes = bytesOf(kept, (l) => l);
  const before = promptsBefore(m);
  const statementFor = (mode: 'fork' | 'in-place') =>
    statementOfPlan({
      mode,
      before,
      result: resultOf(qwenModel(mode === 'fork' ? forkBytes : inPlace)),
      target: cut.uuid,
      onTargetBranch: (u) => cutSide.has(u),
      handedBack: reverted.map((r) => r.uuid),
      leftOutMessages: mode === 'fork' ? dropped : 0,
    });
  return {
    sessionId: oldId,
    cwd: m.cwd,
    prompts: reverted.map(asRow),
    boundaryOffset: cut.line.offset,
    droppedMessages: dropped,
    fork(newId) {
      const from = `"sessionId":"${oldId}"`;
      const to = `"sessionId":"${newId}"`;
      return { path: join(dirname(path), `${newId}.jsonl`), bytes: bytesOf(kept, (l) => l.split(from).join(to)) };
    },
    inPlace,
    statementFor,
    // Qwen's file history is kept per session id: the fork's kept prompts restore code from it too.
    fileHistoryRoot: qwenRootOf(path),
    warnings: m.issues.length ? [`skipped ${m.issues.length} unreadable line(s)`] : [],
  };
}

/** The record `uuid` and every record below it in the tree. */
function below(m: QwenModel, uuid: string): Set<string> {
  const children = new Map<string, string[]>();
  for (const r of m.records) {
    if (!r.parentUuid) continue;
    const list = children.get(r.parentUuid);
    if (list) list.push(r.uuid);
    else children.set(r.parentUuid, [r.uuid]);
  }
  const out = new Set<string>([uuid]);
  const todo = [uuid];
  while (todo.length) for (const c of children.get(todo.pop()!) ?? []) if (!out.has(c)) todo.push((out.add(c), c));
  return out;
}

/** The record Qwen's own /rewind appends: hung off the message a resume must end on. Its id is derived from the cut, so a dry run and the write agree. */
function rewindRecord(m: QwenModel, parentUuid: string, truncated: number, now: Date): string {
  const h = createHash('sha256').update(`${m.sessionId}\0${parentUuid}\0${m.records.length}`).digest('hex');
  const uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  return JSON.stringify({ uuid, parentUuid, sessionId: m.sessionId, timestamp: now.toISOString(), type: 'system', provenance: 'system', cwd: m.cwd, version: m.version, subtype: 'rewind', systemPayload: { truncatedCount: truncated } });
}

/** Every prompt of the session as it is, in file order, with its live #n. */
function promptsBefore(m: QwenModel): PromptBefore[] {
  let n = 0;
  const out: PromptBefore[] = [];
  for (const r of m.records) {
    const p = qwenPromptText(r.line.value!);
    if (!p) continue;
    const live = m.active.has(r.uuid);
    out.push({ uuid: r.uuid, text: p.text, images: p.images, timestamp: typeof r.line.value!.timestamp === 'string' ? r.line.value!.timestamp : null, live, number: live ? ++n : null });
  }
  return out;
}

/** What a resume of these bytes holds and sends: read by Qwen's own reading of the file. */
function resultOf(m: QwenModel): PlannedResult {
  const prompts = promptsBefore(m);
  return { holds: new Set(prompts.map((p) => p.uuid)), live: prompts.filter((p) => p.live).map((p) => p.uuid) };
}

export function rewindQwen(opts: RewindOpts): ReturnType<typeof rewindByPlan> {
  return rewindByPlan(planQwenCut, opts);
}
