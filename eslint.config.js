import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

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
);
