import { lstat, mkdir, readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { RewindError } from '../errors.js';
import { writeBufferAtomic } from '../io/atomic-write.js';
import { defaultPrefsFile } from '../config/ui-prefs.js';

/** A host the user added: what they call it, and the ssh target it stands for. */
export const RemoteHostSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/),
  target: z.string().min(1).max(512),
  /** The remote's rewind-app version when it was last checked. */
  version: z.string().max(64).nullable().default(null),
  addedAt: z.string(),
});
export type RemoteHost = z.infer<typeof RemoteHostSchema>;

const RemotesFileSchema = z.object({ hosts: z.array(RemoteHostSchema).default([]) });

const MAX_BYTES = 256 * 1024;

/** `remotes.json` beside the window's prefs (REWIND_CONFIG_DIR, else the platform's config folder). */
export function remotesFile(env: NodeJS.ProcessEnv): string {
  return join(dirname(defaultPrefsFile(env)), 'remotes.json');
}

/** A name as the CLI takes it: an ssh alias or user@host, reduced to what `--host` can say. */
export function nameFor(target: string): string {
  const host = target.replace(/^[^@]*@/, '').replace(/:\d+$/, '');
  const name = host.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 63);
  return name || 'remote';
}

/**
 * The hosts the user added. Missing: none. Read only when it is a regular file of sane size (a FIFO
 * must not hang the CLI). A file that does not parse is put aside with a timestamp and reported:
 * the next write must not silently drop the user's hosts.
 */
export async function readRemotes(file: string): Promise<{ hosts: RemoteHost[]; warning: string | null }> {
  const st = await lstat(file).catch(() => null);
  if (!st) return { hosts: [], warning: null };
  if (!st.isFile()) throw new RewindError('UNREADABLE', `not a regular file: ${file}`);
  if (st.size > MAX_BYTES) throw new RewindError('UNREADABLE', `too large to be Rewind's hosts file: ${file}`);
  const raw = await readFile(file, 'utf8');
  try {
    return { hosts: RemotesFileSchema.parse(JSON.parse(raw)).hosts, warning: null };
  } catch {
    const aside = `${file}.broken-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await rename(file, aside);
    return { hosts: [], warning: `the hosts file did not parse; it was kept as ${aside}` };
  }
}

export async function writeRemotes(file: string, hosts: RemoteHost[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeBufferAtomic(file, `${JSON.stringify({ hosts }, null, 2)}\n`);
}

/** The host `--host NAME` means, or a one-line refusal that says how to add it. */
export function hostNamed(hosts: RemoteHost[], name: string): RemoteHost {
  const h = hosts.find((x) => x.name === name);
  if (h) return h;
  const known = hosts.length ? ` (known: ${hosts.map((x) => x.name).join(', ')})` : '';
  throw new RewindError('NOT_FOUND', `no remote host named "${name}"${known}: add it with rewind-app remote add <ssh target> --name ${name}`);
}
