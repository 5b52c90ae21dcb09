// Bundles the CLI into one small ESM file: it must start fast, so no React, no Electron.
import { build } from 'esbuild';
import { readFileSync, chmodSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const outfile = 'out/cli/rewind-app.mjs';
await build({
  // The engine worker is its own entry: `serve` runs long work on it, off the main thread.
  entryPoints: { 'rewind-app': 'src/cli/bin.ts', 'engine-worker': 'src/main/service/engine-worker.ts' },
  outdir: 'out/cli',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // Each command is its own chunk, loaded on demand: `back` never parses what `serve` needs.
  splitting: true,
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  define: { __APP_VERSION__: JSON.stringify(pkg.version) },
  external: ['electron', 'chokidar', 'fsevents'],
  metafile: true,
  logLevel: 'warning',
  legalComments: 'none',
});
chmodSync(outfile, 0o755);
