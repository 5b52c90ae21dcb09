import { dirname, join } from 'node:path';
import { RewindError } from '../../errors.js';
import { pickTarget, rewindByPlan, type CutPlan, type CutTarget } from '../cut-writer.js';
import { promptsOfTimeline, resultOfTimeline, statementOfPlan } from '../statement-of-plan.js';
import { parseCopilotBuffer } from './parse.js';

type RewindOpts = Parameters<typeof rewindByPlan>[1];

/**
 * Copilot resumes by replaying `events.jsonl` in file order (FORMATS.md §2e), and its own /rewind
 * truncates the file before the chosen `user.message`: every rewind here is that cut. In place:
 * the same file ends just before the prompt. Fork: those lines in a new session folder
 * `session-state/<new id>/events.jsonl` with the id restamped (measured: `copilot --resume <new id>`
 * needs nothing else there and sends exactly the kept history). Copilot's global
 * `session-store.db` is an index it rebuilds on use, not read back into the conversation on resume
 * (measured), so it is left alone.
 */
export function planCopilotCut(buf: Buffer, path: string, target: CutTarget): CutPlan {
  const p = parseCopilotBuffer(buf);
  const id = p.head.sessionId;
  if (!id || !p.startLine) throw new RewindError('INVALID_TRANSCRIPT', `not a Copilot session (no session.start event): ${path}`);
  const cut = pickTarget(p.prompts, p.prompts, target);
  if (cut.index === 1) throw new RewindError('NOT_ENOUGH_PROMPTS', 'that is the first prompt: nothing would be left to resume (start a new session instead)');
  const boundary = cut.byteOffset;
  const reverted = p.prompts.filter((x) => x.byteOffset >= boundary);
  const kept = buf.subarray(0, boundary);
  const fork = (newId: string) => {
    // The id is in `session.start` (and wherever an event repeats it): every spelling of it changes.
    const from = `"sessionId":"${id}"`;
    const bytes = Buffer.from(kept.toString('utf8').split(from).join(`"sessionId":"${newId}"`));
    return { path: join(dirname(dirname(path)), newId, 'events.jsonl'), bytes };
  };
  const before = promptsOfTimeline(p.prompts);
  return {
    sessionId: id,
    cwd: p.head.cwd,
    prompts: reverted.map((x) => ({ uuid: x.uuid, text: x.text, images: x.images, timestamp: x.timestamp, offset: x.byteOffset })),
    boundaryOffset: boundary,
    droppedMessages: 0,
    fork,
    forkRoot: dirname(dirname(path)),
    inPlace: Buffer.from(kept),
    // Copilot replays the file in order: what the cut bytes hold is what a resume sends.
    statementFor: (mode) =>
      statementOfPlan({
        mode,
        before,
        result: resultOfTimeline(parseCopilotBuffer(mode === 'fork' ? fork(id).bytes : kept).prompts),
        target: cut.uuid,
        onTargetBranch: () => false,
        handedBack: reverted.map((x) => x.uuid),
        leftOutMessages: 0,
      }),
    warnings: p.issues.length ? [`skipped ${p.issues.length} unreadable line(s)`] : [],
  };
}

/** An in-place rewrite of a session a Copilot CLI has open is refused by the registry's open-session guard (`openSessions`), like every agent's. */
export async function rewindCopilot(opts: RewindOpts): ReturnType<typeof rewindByPlan> {
  return rewindByPlan(planCopilotCut, opts);
}
