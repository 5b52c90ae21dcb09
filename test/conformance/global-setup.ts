import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { CONFORMANCE_TMP } from './scratch.js';

// The conformance run's own TMPDIR (vitest.conformance.config.ts): what the agents' CLIs or a test
// leave there goes with it when the run is over, passed or failed; the machine's TMPDIR stays empty.
export function setup(): void {
  mkdirSync(CONFORMANCE_TMP, { recursive: true });
}

export async function teardown(): Promise<void> {
  await rm(CONFORMANCE_TMP, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
