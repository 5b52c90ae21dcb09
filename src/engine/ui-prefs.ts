import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { writeBufferAtomic } from './io/atomic-write.js';

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

/** A missing file is empty prefs; an unreadable or invalid one too (it only holds niceties), and is replaced on the next write. */
export async function readPrefs(file: string): Promise<UiPrefs> {
  const raw = await readFile(file, 'utf8').catch(() => null);
  if (raw === null) return UiPrefsSchema.parse({});
  try {
    const r = UiPrefsSchema.safeParse(JSON.parse(raw));
    return r.success ? r.data : UiPrefsSchema.parse({});
  } catch {
    return UiPrefsSchema.parse({});
  }
}

/** Read, change, validate, write atomically; concurrent calls are applied one after the other. */
let chain: Promise<unknown> = Promise.resolve();
export function updatePrefs(file: string, change: (p: UiPrefs) => UiPrefs): Promise<UiPrefs> {
  const run = chain.then(async () => {
    const next = UiPrefsSchema.parse(change(await readPrefs(file)));
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await writeBufferAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
    return next;
  });
  chain = run.catch(() => undefined);
  return run;
}

/** A name is one trimmed line; empty means "back to the session's own title". */
export function normalizeName(name: string | null): string | null {
  const n = (name ?? '').replace(/\s+/g, ' ').trim();
  return n ? n.slice(0, MAX_NAME) : null;
}

export function renameSession(file: string, sessionId: string, name: string | null): Promise<UiPrefs> {
  const n = normalizeName(name);
  return updatePrefs(file, (p) => {
    const names = { ...p.names };
    if (n) names[sessionId] = n;
    else delete names[sessionId];
    return { ...p, names };
  });
}

export function hideHooksNotice(file: string, project: string): Promise<UiPrefs> {
  return updatePrefs(file, (p) => (p.hiddenHooksNotice.includes(project) ? p : { ...p, hiddenHooksNotice: [...p.hiddenHooksNotice, project] }));
}
