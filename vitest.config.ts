import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['test/conformance/**', 'node_modules/**', 'out/**'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});
