import { mkdir, rename } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { writeBufferAtomic } from '../io/atomic-write.js';
import { readConfigFile } from '../io/config-file.js';
import { RewindError } from '../errors.js';

/**
 * What the window remembers for the user, in Rewind's own file (never in a transcript): names given
 * to sessions, and the projects where the hooks notice was dismissed.
 */
export const UiPrefsSchema = z.object({
  /** Session id -> the name the user gave it in Rewind. */
  names: z.record(z.string(), z.string()).default({}),
  /** Project folders where "checkpoints are off" was dismissed. */
  hiddenHooksNotice: z.array(z.string()).default([]),
});
export type UiPrefs = z.infer<typeof UiPrefsSchema>;

export const MAX_NAME = 120;

export function defaultPrefsFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.REWIND_CONFIG_DIR) return join(env.REWIND_CONFIG_DIR, 'prefs.json');
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'rewind', 'prefs.json');
}

/** Prefs as read, and what was wrong with the file (null: nothing; `broken`: a regular file that is not valid prefs). */
export interface PrefsRead {
  prefs: UiPrefs;
  problem: { why: string; broken: boolean } | null;
}

const EMPTY = (): UiPrefs => UiPrefsSchema.parse({});

/**
 * The prefs file, read only as a regular file of bounded size (a FIFO in its place never hangs a
 * read). A missing file is empty prefs; an invalid one reads as empty too, with the problem said.
 */
export async function loadPrefs(file: string): Promise<PrefsRead> {
  const read = await readConfigFile(file);
  if (read.kind === 'missing') return { prefs: EMPTY(), problem: null };
  if (read.kind === 'refused') return { prefs: EMPTY(), problem: { why: read.why, broken: read.regular } };
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch (e) {
    return { prefs: EMPTY(), problem: { why: (e as Error).message, broken: true } };
  }
  const r = UiPrefsSchema.safeParse(json);
  if (r.success) return { prefs: r.data, problem: null };
  const issue = r.error.issues[0];
  return { prefs: EMPTY(), problem: { why: issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid', broken: true } };
}

/** The prefs (empty when the file is missing or invalid: they only hold niceties); `notice` says what was wrong. */
export async function readPrefs(file: string): Promise<UiPrefs & { notice?: string }> {
  const { prefs, problem } = await loadPrefs(file);
  return problem ? { ...prefs, notice: `${file} is not valid (${problem.why}): shown as empty, left as it is` } : prefs;
}

/**
 * Read, change, validate, write atomically; concurrent calls are applied one after the other. An
 * invalid file is never written over: it is kept aside (renamed with a timestamp) and said in
 * `notice`; one that is not a regular file (a FIFO, a folder) is refused.
 */
let chain: Promise<unknown> = Promise.resolve();
export function updatePrefs(file: string, change: (p: UiPrefs) => UiPrefs): Promise<UiPrefs & { notice?: string }> {
  const run = chain.then(async () => {
    const { prefs, problem } = await loadPrefs(file);
    let notice: string | undefined;
    if (problem && !problem.broken) throw new RewindError('UNREADABLE', `${file} was not read (${problem.why}); nothing was changed`);
    if (problem) {
      const aside = `${file}.invalid-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      await rename(file, aside);
      notice = `${file} was not valid (${problem.why}): kept as ${aside}, and a new one started`;
    }
    const next = UiPrefsSchema.parse(change(prefs));
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await writeBufferAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
    return notice ? { ...next, notice } : next;
  });
  chain = run.catch(() => undefined);
  return run;
}

/** A name is one trimmed line; empty means "back to the session's own title". */
export function normalizeName(name: string | null): string | null {
  const n = (name ?? '').replace(/\s+/g, ' ').trim();
  return n ? n.slice(0, MAX_NAME) : null;
}

export function renameSession(file: string, sessionId: string, name: string | null): Promise<UiPrefs & { notice?: string }> {
  const n = normalizeName(name);
  return updatePrefs(file, (p) => {
    const names = { ...p.names };
    if (n) names[sessionId] = n;
    else delete names[sessionId];
    return { ...p, names };
  });
}

export function hideHooksNotice(file: string, project: string): Promise<UiPrefs & { notice?: string }> {
  return updatePrefs(file, (p) => (p.hiddenHooksNotice.includes(project) ? p : { ...p, hiddenHooksNotice: [...p.hiddenHooksNotice, project] }));
}
