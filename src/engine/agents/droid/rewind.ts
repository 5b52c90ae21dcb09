import { dirname, join } from 'node:path';
import { RewindError } from '../../errors.js';
import { pickTarget, rewindByPlan, type CutPlan, type CutTarget } from '../cut-writer.js';
import { promptsOfTimeline, resultOfTimeline, statementOfPlan } from '../statement-of-plan.js';

type RewindOpts = Parameters<typeof rewindByPlan>[1];
import { parseDroidBuffer } from './parse.js';

/**
 * Droid replays a session file in order and ignores `parentId` (FORMATS.md §2b): a branch
 * appended in place would be replayed whole, so every rewind cuts. Fork: the lines before the
 * prompt under a new `session_start.id`, next to the original. In place: the same cut, same file.
 */
export function planDroidCut(buf: Buffer, path: string, target: CutTarget): CutPlan {
  const p = parseDroidBuffer(buf);
  const startLine = p.lines.find((l) => l.value?.type === 'session_start');
  if (!p.head?.id || !startLine) throw new RewindError('INVALID_TRANSCRIPT', `not a Droid session (no session_start line): ${path}`);
  const cut = pickTarget(p.prompts, p.prompts, target);
  if (cut.index === 1 && target.promptUuid) throw new RewindError('NOT_ENOUGH_PROMPTS', 'that is the first prompt: nothing would be left to resume (start a new session instead)');
  const boundary = cut.byteOffset;
  const reverted = p.prompts.filter((x) => x.byteOffset >= boundary);
  const kept = buf.subarray(0, boundary);
  const head = startLine.value!;
  const fork = (newId: string) => {
    // Only the id changes: Droid names the session by it; everything else stays byte for byte.
    const start = Buffer.from(JSON.stringify({ ...head, id: newId }));
    const bytes = Buffer.concat([kept.subarray(0, startLine.offset), start, kept.subarray(startLine.offset + startLine.length)]);
    return { path: join(dirname(path), `${newId}.jsonl`), bytes };
  };
  const before = promptsOfTimeline(p.prompts);
  return {
    sessionId: p.head.id,
    cwd: p.head.cwd,
    prompts: reverted.map((x) => ({ uuid: x.uuid, text: x.text, images: x.images, timestamp: x.timestamp, offset: x.byteOffset })),
    boundaryOffset: boundary,
    droppedMessages: 0,
    fork,
    inPlace: Buffer.from(kept),
    // Droid replays the file in order: what the cut bytes hold is what a resume sends.
    statementFor: (mode) =>
      statementOfPlan({
        mode,
        before,
        result: resultOfTimeline(parseDroidBuffer(mode === 'fork' ? fork(p.head!.id!).bytes : kept).prompts),
        target: cut.uuid,
        onTargetBranch: () => false,
        handedBack: reverted.map((x) => x.uuid),
        leftOutMessages: 0,
      }),
    warnings: p.issues.length ? [`skipped ${p.issues.length} unreadable line(s)`] : [],
  };
}

export function rewindDroid(opts: RewindOpts): ReturnType<typeof rewindByPlan> {
  return rewindByPlan(planDroidCut, opts);
}
