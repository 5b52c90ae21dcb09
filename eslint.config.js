import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import house from './eslint-rules/house.js';

/** Tests (integration ones drive the CLI from any floor), bench/ and scripts/ may import across floors and seams. */
const TESTS = ['**/*.test.ts', '**/*.test.tsx'];

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'dist/**', 'src/engine/search-index/wasm/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Process layering: shared code runs in the renderer too, the engine never sees Electron.
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['node:*', 'electron', 'fs', 'path', 'os', 'child_process'] }],
    },
  },
  {
    files: ['src/engine/**/*.ts', 'src/cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['electron', 'react', 'react-dom', 'zustand'] }] },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['node:*', 'electron', '**/engine/**', '**/main/**'] }] },
  },
  {
    // The floors point one way: shared < engine < main < cli (docs/architecture.md).
    files: ['src/**/*.{ts,tsx}'],
    ignores: TESTS,
    plugins: { house },
    rules: { 'house/floors': ['error', { floors: { 'src/shared': ['src/engine', 'src/main', 'src/cli'], 'src/engine': ['src/main', 'src/cli'], 'src/main': ['src/cli'] } }] },
  },
  {
    // The agent seam: an agent's folder is reached only through the registry (and hooks-index.ts,
    // its lazy twin for the hook path, which loads one agent's hooks alone); no agent imports another.
    files: ['src/**/*.{ts,tsx}'],
    ignores: [...TESTS, 'src/engine/agents/registry.ts', 'src/engine/agents/hooks-index.ts'],
    plugins: { house },
    rules: { 'house/agent-seam': 'error' },
  },
);
