import { mkdtempSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Temp dirs a test makes, remembered so they all go when its file is done (`test/setup.ts`
 * registers `removeTempDirs` as an afterAll for every unit test file). A fresh machine's TMPDIR
 * is left as it was found: `test/fresh-machine.test.ts` checks it.
 */
const made = new Set<string>();

/**
 * TMPDIR (and Windows' TMP, TEMP) for a process a test starts with an environment of its own: a
 * temp dir of the test's, removed with the others when its file is done. Without it an agent's CLI
 * keeps its scratch (Claude Code's claude-<uid>, cc-socks) in the machine's /tmp, or in the run's
 * TMPDIR, which a fresh machine's run must leave empty.
 */
export function tempEnv(): NodeJS.ProcessEnv {
  const t = tempDirSync('rewind-agent-tmp-');
  return { TMPDIR: t, TMP: t, TEMP: t };
}

export async function tempDir(prefix = 'rewind-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** A temp dir made elsewhere (by code under test), to be removed with the test's own. */
export function trackTempDir(dir: string): string {
  made.add(dir);
  return dir;
}

export function tempDirSync(prefix = 'rewind-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Makes every folder under `dir` writable again, so a test that took permissions away can be cleaned up. */
async function unlock(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined);
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) if (e.isDirectory()) await unlock(join(dir, e.name));
}

/** Removes every temp dir made so far; retries while a child process the test started lets go of it. */
export async function removeTempDirs(): Promise<void> {
  const dirs = [...made];
  made.clear();
  await Promise.all(
    dirs.map(async (dir) => {
      try {
        await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      } catch {
        await unlock(dir);
        await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      }
    }),
  );
}
