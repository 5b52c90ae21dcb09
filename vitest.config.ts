import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['test/conformance/**', 'node_modules/**', 'out/**'],
    testTimeout: 30_000,
    pool: 'forks',
    // Indexes and caches of code under test go to a scratch folder, never the user's cache.
    env: { REWIND_CACHE_DIR: join(tmpdir(), `rewind-test-cache-${process.pid}`) },
  },
});
