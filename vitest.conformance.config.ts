import { defineConfig } from 'vitest/config';

// The real Claude Code CLI as the judge: slow, sequential, one API server per file.
export default defineConfig({
  test: {
    include: ['test/conformance/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 900_000,
    fileParallelism: false,
    pool: 'forks',
    // Each file removes the temp dirs it made (test/temp.ts). The agents' CLIs stay installed in the cache.
    setupFiles: ['test/setup-temp.ts'],
  },
});
