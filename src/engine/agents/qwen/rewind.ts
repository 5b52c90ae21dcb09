import { dirname, join } from 'node:path';
import { RewindError } from '../../errors.js';
import { pickTarget, rewindByPlan, type CutPlan, type CutTarget } from '../cut-writer.js';
import { pathTo, qwenModel, qwenPromptText } from './parse.js';
import { qwenRootOf } from './code-history.js';

type RewindOpts = Parameters<typeof rewindByPlan>[1];

/**
 * Qwen resumes from the last record up its `parentUuid` chain: the rewound file must end on the
 * message before the cut prompt, so it keeps exactly that chain (the records before the cut that
 * a resume would see), in file order. Dead branches before the cut are left out, as Claude's fork
 * leaves them out. A fork restamps `sessionId` (Qwen's own `--fork-session` does the same).
 */
export function planQwenCut(buf: Buffer, path: string, target: CutTarget): CutPlan {
  const m = qwenModel(buf);
  if (!m.sessionId) throw new RewindError('INVALID_TRANSCRIPT', `not a Qwen Code session (no sessionId): ${path}`);
  const prompts = m.records.filter((r) => qwenPromptText(r.line.value!));
  const live = prompts.filter((r) => m.active.has(r.uuid));
  const asRow = (r: (typeof prompts)[number]) => ({ uuid: r.uuid, text: qwenPromptText(r.line.value!)!.text, images: qwenPromptText(r.line.value!)!.images, timestamp: typeof r.line.value!.timestamp === 'string' ? r.line.value!.timestamp : null, offset: r.line.offset });
  const cut = pickTarget(live, prompts, target);
  if (!cut.parentUuid || !m.byUuid.has(cut.parentUuid)) throw new RewindError('NOT_ENOUGH_PROMPTS', 'that is the first prompt: nothing would be left to resume (start a new session instead)');
  const keep = pathTo(cut.parentUuid, m.byUuid);
  const kept = m.records.filter((r) => keep.has(r.uuid));
  const dropped = m.records.filter((r) => r.line.offset < cut.line.offset && !keep.has(r.uuid)).length;
  const onCutSide = m.active.has(cut.uuid);
  const reverted = prompts.filter((p) => p.line.offset >= cut.line.offset && m.active.has(p.uuid) === onCutSide && pathTo(p.uuid, m.byUuid).has(cut.uuid));
  const oldId = m.sessionId;
  const bytesOf = (restamp: (line: string) => string) =>
    Buffer.from(kept.map((r) => `${restamp(buf.subarray(r.line.offset, r.line.offset + r.line.length).toString('utf8'))}\n`).join(''));
  return {
    sessionId: oldId,
    cwd: m.cwd,
    prompts: reverted.map(asRow),
    boundaryOffset: cut.line.offset,
    droppedMessages: dropped,
    fork(newId) {
      const from = `"sessionId":"${oldId}"`;
      const to = `"sessionId":"${newId}"`;
      return { path: join(dirname(path), `${newId}.jsonl`), bytes: bytesOf((l) => l.split(from).join(to)) };
    },
    inPlace: bytesOf((l) => l),
    // Qwen's file history is kept per session id: the fork's kept prompts restore code from it too.
    fileHistoryRoot: qwenRootOf(path),
    warnings: m.issues.length ? [`skipped ${m.issues.length} unreadable line(s)`] : [],
  };
}

export function rewindQwen(opts: RewindOpts): ReturnType<typeof rewindByPlan> {
  return rewindByPlan(planQwenCut, opts);
}
