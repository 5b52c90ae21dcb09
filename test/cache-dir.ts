import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the unit tier's indexes and caches of code under test go, never the user's cache: one
 * folder per run, named by the vitest process, made by the code under test and removed by
 * test/global-setup.ts once the run is over.
 */
export const TEST_CACHE_DIR = join(tmpdir(), `rewind-test-cache-${process.pid}`);
