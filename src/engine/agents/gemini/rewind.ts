import { dirname, join } from 'node:path';
import { RewindError } from '../../errors.js';
import { pickTarget, rewindByPlan, type CutPlan, type CutTarget } from '../cut-writer.js';
import { str } from '../jsonl.js';
import { geminiPromptText, replayGemini } from './replay.js';

type RewindOpts = Parameters<typeof rewindByPlan>[1];

/** `session-2026-11-23T11-33-<first 8 of the id>.jsonl`, as Gemini CLI names its files. */
export function geminiFileName(id: string, at: Date): string {
  return `session-${at.toISOString().slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`;
}

/**
 * In place: append `{"$rewindTo": <prompt id>}`, what Gemini's own /rewind writes (the file keeps
 * everything; a backup is still taken). Fork: the file cut before the prompt, under a new id.
 */
export function planGeminiCut(buf: Buffer, path: string, target: CutTarget): CutPlan {
  const r = replayGemini(buf);
  if (!r.meta.sessionId) throw new RewindError('INVALID_TRANSCRIPT', `not a Gemini CLI session (no header with a sessionId): ${path}`);
  const named = (m: (typeof r.messages)[number]) => ({ ...m, uuid: m.id });
  const live = r.messages.filter((m) => geminiPromptText(m.record)).map(named);
  const all = [...r.seen.values()].filter((m) => geminiPromptText(m.record)).map(named);
  const cut = pickTarget(live, all, target);
  const at = r.messages.findIndex((m) => m.id === cut.id);
  if (at === -1) throw new RewindError('UNSUPPORTED', 'that prompt was already rewound away in Gemini (it is on a dead branch): pick a prompt on the live path');
  if (!r.messages.slice(0, at).some((m) => geminiPromptText(m.record))) throw new RewindError('NOT_ENOUGH_PROMPTS', 'that is the first prompt: nothing would be left to resume (start a new session instead)');
  const reverted = r.messages.slice(at).filter((m) => geminiPromptText(m.record));
  const sep = buf.length > 0 && buf[buf.length - 1] !== 0x0a ? '\n' : '';
  const meta = r.meta;
  const rewindLine = `${sep}${JSON.stringify({ $rewindTo: cut.id })}\n`;
  return {
    sessionId: meta.sessionId!,
    cwd: null,
    prompts: reverted.map((m) => ({ uuid: m.id, ...geminiPromptText(m.record)!, timestamp: str(m.record.timestamp), offset: m.line.offset })),
    boundaryOffset: cut.line.offset,
    droppedMessages: 0,
    fork(newId) {
      const now = new Date();
      // The lines before the prompt first appeared replay to what Gemini held when it was sent;
      // a prompt first seen inside a `$set` list has no such cut: the whole file, then a `$rewindTo`.
      const first = r.seen.get(cut.id)!.line;
      const cutAt = first.value && !('$set' in first.value) ? first.offset : null;
      const body = cutAt !== null ? buf.subarray(0, cutAt).toString('utf8') : `${buf.toString('utf8')}${rewindLine}`;
      // Every header and `$set` names the session: all of them take the new id.
      const text = body.split(`"sessionId":"${meta.sessionId!}"`).join(`"sessionId":"${newId}"`);
      return { path: join(dirname(path), geminiFileName(newId, now)), bytes: Buffer.from(text) };
    },
    inPlace: Buffer.concat([buf, Buffer.from(rewindLine)]),
    warnings: r.issues.length ? [`skipped ${r.issues.length} unreadable line(s)`] : [],
  };
}

export function rewindGemini(opts: RewindOpts): ReturnType<typeof rewindByPlan> {
  return rewindByPlan(planGeminiCut, opts);
}
