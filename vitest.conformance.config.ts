import { defineConfig } from 'vitest/config';
import { CONFORMANCE_TMP } from './test/conformance/scratch.js';

// The real agents' CLIs as the judges: slow, sequential, one API server per file.
export default defineConfig({
  test: {
    include: ['test/conformance/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    fileParallelism: false,
    pool: 'forks',
    // Each file removes the temp dirs it made (test/temp.ts); the run's own TMPDIR catches what an
    // agent's CLI writes after its test let go, and goes when the run is over. The agents' CLIs stay
    // installed in the cache.
    env: { TMPDIR: CONFORMANCE_TMP, TMP: CONFORMANCE_TMP, TEMP: CONFORMANCE_TMP },
    setupFiles: ['test/setup-temp.ts'],
    globalSetup: ['test/conformance/global-setup.ts'],
  },
});
