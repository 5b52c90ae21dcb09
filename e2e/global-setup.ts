import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The e2e run's own TMPDIR (the workers inherit it): what an agent's CLI, the app or the browser
 * leaves there, even after its test let go, goes with it when the run is over, passed or failed.
 * The machine's TMPDIR stays as it was (`.ci/run` checks).
 */
export default function globalSetup(): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'rewind-e2e-'));
  for (const k of ['TMPDIR', 'TMP', 'TEMP']) process.env[k] = dir;
  return () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
