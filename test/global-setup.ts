import { rm } from 'node:fs/promises';
import { TEST_CACHE_DIR } from './cache-dir.js';

// The run's scratch cache (vitest.config.ts) goes when the run is over, passed or failed.
export async function teardown(): Promise<void> {
  await rm(TEST_CACHE_DIR, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}
