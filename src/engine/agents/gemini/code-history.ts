import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RewindError } from '../../errors.js';
import type { CodeBefore, CodeBeforeRequest } from '../adapter.js';
import { shadowSnapshotFiles } from '../code-history-parts.js';
import { obj, str } from '../jsonl.js';

interface Checkpoint {
  file: string;
  time: number;
  commit: string;
}

/** `2026-11-23T11-46-22_266Z-a.txt-write_file.json` -> its time; else the file's mtime. */
async function checkpointTime(dir: string, name: string): Promise<number> {
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)_(\d{3})Z/.exec(name);
  if (m) return Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return (await stat(join(dir, name))).mtimeMs;
}

/** This session's checkpoints, oldest first (Gemini names each one's prompt `<session>########<n>`). */
async function checkpointsOf(dir: string, sessionId: string): Promise<Checkpoint[]> {
  const out: Checkpoint[] = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.endsWith('.json')) continue;
    let v: Record<string, unknown>;
    try {
      v = obj(JSON.parse(await readFile(join(dir, name), 'utf8')));
    } catch {
      continue;
    }
    const commit = str(v.commitHash);
    if (!commit || !str(v.messageId)?.startsWith(`${sessionId}#`)) continue;
    out.push({ file: name, time: await checkpointTime(dir, name), commit });
  }
  return out.sort((a, b) => a.time - b.time);
}

/**
 * Gemini CLI's checkpoints (`<root>/tmp/<slug>/checkpoints/*.json`): before a turn's first file
 * edit Gemini commits the whole project into its shadow git (`<root>/history/<slug>`) and names
 * the commit there. The project before a prompt is the first checkpoint taken after it: the whole
 * tree, so a file it does not hold did not exist then.
 */
export async function geminiCodeBefore(req: CodeBeforeRequest): Promise<CodeBefore | null> {
  const { readGeminiTimeline } = await import('./discover.js');
  const timeline = await readGeminiTimeline(req.transcriptPath);
  const at = timeline.prompts.findIndex((p) => p.uuid === req.promptUuid);
  if (at === -1) throw new RewindError('NOT_FOUND', `no prompt ${req.promptUuid} in this session`);
  const prompt = timeline.prompts[at]!;
  const since = prompt.timestamp ? Date.parse(prompt.timestamp) : NaN;
  if (Number.isNaN(since)) return null;
  const slugDir = dirname(dirname(req.transcriptPath));
  const root = req.agentRoot ?? dirname(dirname(slugDir));
  const slug = basename(slugDir);
  const checkpoint = (await checkpointsOf(join(slugDir, 'checkpoints'), timeline.session.id)).find((c) => c.time >= since);
  if (!checkpoint) return null;
  const unknown: string[] = [];
  const later = timeline.prompts.map((p) => (p.timestamp ? Date.parse(p.timestamp) : NaN)).filter((t) => t > since).sort((a, b) => a - b)[0];
  if (later !== undefined && checkpoint.time > later) unknown.push(`no checkpoint in that prompt's turn: the nearest is ${checkpoint.file}, from a later prompt (changes made in between without a file tool are not known)`);
  const history = join(root, 'history', slug);
  const gitDir = existsSync(join(history, '.git')) ? join(history, '.git') : history;
  const who = "Gemini's checkpoint";
  const cwd = timeline.session.cwd && existsSync(timeline.session.cwd) ? timeline.session.cwd : req.projectRoot;
  const { files, byRef, outside, other } = await shadowSnapshotFiles(gitDir, checkpoint.commit, who, req.projectRoot, cwd);
  for (const p of other) unknown.push(`${p}: a link or submodule in Gemini's checkpoint, left as it is`);
  // The checkpoint is the whole folder Gemini ran in: it speaks for every file only when that is the project.
  const whole = cwd === req.projectRoot;
  if (!whole) unknown.push(`Gemini ran in ${cwd}, not ${req.projectRoot}: only the files its checkpoint holds are restored (files created since are kept)`);
  return { files, scope: whole ? 'tree' : 'tracked', read: async (ref) => byRef.get(ref) ?? Buffer.alloc(0), outside, unknown };
}
