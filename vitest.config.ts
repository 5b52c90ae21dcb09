import { defineConfig } from 'vitest/config';
import { TEST_CACHE_DIR } from './test/cache-dir.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'e2e/**/*.test.ts'],
    exclude: ['test/conformance/**', 'node_modules/**', 'out/**'],
    testTimeout: 30_000,
    pool: 'forks',
    // Each file runs in an empty home of its own and removes the temp dirs it made (test/temp.ts);
    // the run removes its cache.
    setupFiles: ['test/setup.ts', 'test/setup-temp.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Indexes and caches of code under test go to a scratch folder, never the user's cache.
    // Tools loaded by tests keep no disk cache in TMPDIR: tsx (workers started from TypeScript
    // sources) and jiti (app-builder-lib, loaded to check the packaging config).
    env: { REWIND_CACHE_DIR: TEST_CACHE_DIR, TSX_DISABLE_CACHE: '1', JITI_FS_CACHE: 'false' },
  },
});
