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
 * everything; a backup is still taken). Fork: a new file under a new id holding a header and the
 * replayed conversation before the prompt, one record per message.
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
  const kept = r.messages.slice(0, at);
  const sep = buf.length > 0 && buf[buf.length - 1] !== 0x0a ? '\n' : '';
  const meta = r.meta;
  return {
    sessionId: meta.sessionId!,
    cwd: null,
    prompts: reverted.map((m) => ({ uuid: m.id, ...geminiPromptText(m.record)!, timestamp: str(m.record.timestamp), offset: m.line.offset })),
    boundaryOffset: cut.line.offset,
    droppedMessages: 0,
    fork(newId) {
      const now = new Date();
      const header = { sessionId: newId, projectHash: meta.projectHash, startTime: now.toISOString(), lastUpdated: now.toISOString(), kind: meta.kind ?? 'main' };
      // The shape Gemini itself writes on resume: the whole list in one `$set` (it may repeat an id).
      const text = [header, { $set: { messages: kept.map((m) => m.record), lastUpdated: header.lastUpdated } }].map((v) => `${JSON.stringify(v)}\n`).join('');
      return { path: join(dirname(path), geminiFileName(newId, now)), bytes: Buffer.from(text) };
    },
    inPlace: Buffer.concat([buf, Buffer.from(`${sep}${JSON.stringify({ $rewindTo: cut.id })}\n`)]),
    warnings: r.issues.length ? [`skipped ${r.issues.length} unreadable line(s)`] : [],
  };
}

export function rewindGemini(opts: RewindOpts): ReturnType<typeof rewindByPlan> {
  return rewindByPlan(planGeminiCut, opts);
}
