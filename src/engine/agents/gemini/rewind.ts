import { dirname, join } from 'node:path';
import { RewindError } from '../../errors.js';
import { pickTarget, rewindByPlan, type CutPlan, type CutTarget } from '../cut-writer.js';
import { promptsOfTimeline, resultOfTimeline, statementOfPlan } from '../statement-of-plan.js';
import { geminiTimeline } from './parse.js';
import { str } from '../jsonl.js';
import { geminiPromptText, replayGemini, type GeminiMessage } from './replay.js';

type RewindOpts = Parameters<typeof rewindByPlan>[1];

/** `session-2026-11-23T11-33-<first 8 of the id>.jsonl`, as Gemini CLI names its files. */
export function geminiFileName(id: string, at: Date): string {
  return `session-${at.toISOString().slice(0, 16).replace(/:/g, '-')}-${id.slice(0, 8)}.jsonl`;
}

/**
 * In place: append `{"$rewindTo": <prompt id>}`, what Gemini's own /rewind writes (the file keeps
 * every byte; a copied backup is still taken). Fork: the file cut before the prompt, under a new id.
 *
 * Both must never trip the CLI's session cleanup, which runs at every start (FORMATS.md §2b in
 * README): a file whose replay holds no resumable message, or whose `lastUpdated` is past the
 * retention age (30 days by default), is deleted together with every file carrying the same
 * 8-character id suffix and the artifacts of the session ids their first lines name. So a fork
 * is named and headed with its own new id only, and stamped `lastUpdated` now; a cut always keeps
 * a prompt; and a `$rewindTo` always names a message the replay holds (one naming no message
 * empties the whole conversation in the CLI).
 */
export function planGeminiCut(buf: Buffer, path: string, target: CutTarget, now: Date = new Date()): CutPlan {
  const r = replayGemini(buf);
  if (!r.meta.sessionId) throw new RewindError('INVALID_TRANSCRIPT', `not a Gemini CLI session (no header with a sessionId): ${path}`);
  const named = (m: GeminiMessage) => ({ ...m, uuid: m.id });
  const live = r.messages.filter((m) => geminiPromptText(m.record)).map(named);
  const all = [...r.seen.values()].filter((m) => geminiPromptText(m.record)).map(named);
  const cut = pickTarget(live, all, target);
  const at = r.messages.findIndex((m) => m.id === cut.id);
  if (at === -1) throw new RewindError('UNSUPPORTED', 'that prompt was already rewound away in Gemini (it is on a dead branch): pick a prompt on the live path');
  if (!r.messages.slice(0, at).some((m) => geminiPromptText(m.record))) throw new RewindError('NOT_ENOUGH_PROMPTS', 'that is the first prompt: nothing would be left to resume (start a new session instead)');
  const reverted = r.messages.slice(at).filter((m) => geminiPromptText(m.record));
  const sep = buf.length > 0 && buf[buf.length - 1] !== 0x0a ? '\n' : '';
  const meta = r.meta;
  const rewindLine = Buffer.from(`${sep}${JSON.stringify({ $rewindTo: cut.id })}\n`);
  const fork = (newId: string) => {
    // The lines before the prompt first appeared replay to what Gemini held when it was sent;
    // a prompt first seen inside a `$set` list has no such cut: the whole file, then a `$rewindTo`.
    const first = r.seen.get(cut.id)!.line;
    const cutAt = first.value && !('$set' in first.value) ? first.offset : null;
    const body = cutAt !== null ? buf.subarray(0, cutAt).toString('utf8') : `${buf.toString('utf8')}${rewindLine.toString('utf8')}`;
    // Every header and `$set` names the session: all of them take the new id. The fork is a
    // session made now: the CLI's retention ages it from this moment, not from the original's.
    const text = body.split(`"sessionId":"${meta.sessionId!}"`).join(`"sessionId":"${newId}"`);
    const sep2 = text.length > 0 && !text.endsWith('\n') ? '\n' : '';
    const stamp = `${sep2}${JSON.stringify({ $set: { lastUpdated: now.toISOString() } })}\n`;
    return { path: join(dirname(path), geminiFileName(newId, now)), bytes: Buffer.from(text + stamp) };
  };
  const inPlace = Buffer.concat([buf, rewindLine]);
  const before = promptsOfTimeline(geminiTimeline(buf, path).prompts);
  return {
    sessionId: meta.sessionId!,
    cwd: null,
    prompts: reverted.map((m) => ({ uuid: m.id, ...geminiPromptText(m.record)!, timestamp: str(m.record.timestamp), offset: m.line.offset })),
    boundaryOffset: cut.line.offset,
    droppedMessages: 0,
    fork,
    inPlace,
    append: rewindLine,
    // Read off the replay of what is written: a fork's cut, or the file with its `$rewindTo`.
    statementFor: (mode) =>
      statementOfPlan({
        mode,
        before,
        result: resultOfTimeline(geminiTimeline(mode === 'fork' ? fork(meta.sessionId!).bytes : inPlace, path).prompts),
        target: cut.id,
        onTargetBranch: () => false,
        handedBack: reverted.map((m) => m.id),
        leftOutMessages: 0,
      }),
    warnings: r.issues.length ? [`skipped ${r.issues.length} unreadable line(s)`] : [],
  };
}

/** Holds nothing the CLI would resume (no prompt, no model reply): its session cleanup deletes such a file. */
export function geminiNothingToResume(buf: Buffer): boolean {
  return !replayGemini(buf).messages.some((m) => geminiPromptText(m.record) || m.record.type === 'gemini');
}

/**
 * Files beside `path` under the same 8-character id that the CLI's next start will delete, and
 * `path` with them: what a resume in a later minute leaves behind (README, Gemini CLI).
 */
async function doomedSiblings(path: string, sessionId: string): Promise<string[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const { basename } = await import('node:path');
  const suffix = `-${sessionId.slice(0, 8)}.jsonl`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  const out: string[] = [];
  for (const n of names) {
    if (n === basename(path) || !n.startsWith('session-') || !n.endsWith(suffix)) continue;
    const buf = await readFile(join(dirname(path), n)).catch(() => null);
    if (buf && geminiNothingToResume(buf)) out.push(n);
  }
  return out;
}

export async function rewindGemini(opts: RewindOpts): ReturnType<typeof rewindByPlan> {
  // The session's folder is not in its file: `projects.json` names it (the writer uses it for the
  // backup and journal when the caller gave none, and only if it is a folder on this machine).
  const cwd = opts.projectRoot ? null : await import('./discover.js').then((m) => m.readGeminiTimeline(opts.transcriptPath)).then((t) => t.session.cwd, () => null);
  const out = await rewindByPlan((buf, path, target) => ({ ...planGeminiCut(buf, path, target), cwd }), opts);
  const doomed = await doomedSiblings(opts.transcriptPath, out.sessionId);
  if (doomed.length > 0 && opts.mode === 'in-place') out.warnings.push(`Gemini CLI will delete this session at its next start that is not a resume of it (${doomed.join(', ')} beside it holds no conversation, and its session cleanup deletes every file under that id): resume it next, or set general.sessionRetention.enabled to false`);
  return out;
}
