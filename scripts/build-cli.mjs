// Bundles the CLI for a fast start: no React, no Electron, and as few modules as possible on the
// hot path. Two passes:
// - hot: `rewind-app.mjs`, one flat file holding argv parsing and `back` (the terminal path users
//   run mid-session; every extra ES module costs about a millisecond to resolve, read and link);
// - cold: every other command and every lazy import of the hot file, as split entries under
//   `lazy/`, loaded only by the command that needs them.
import { build } from 'esbuild';
import { chmodSync, existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const ROOT = resolve(import.meta.dirname, '..');
/** Dynamic imports that stay inside the hot file. */
const HOT = new Set(['src/main/doors/socket-path.ts', 'src/cli/commands/back.ts', 'src/engine/agents/claude/rewind/rewind.ts']);

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  outExtension: { '.js': '.mjs' },
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  define: { __APP_VERSION__: JSON.stringify(pkg.version) },
  // node-sqlite3-wasm finds its .wasm beside its own files, and ws requires its optional native
  // helpers (bufferutil, utf-8-validate) lazily: loaded from node_modules, not bundled.
  external: ['electron', 'chokidar', 'fsevents', 'node-sqlite3-wasm', 'ws'],
  // jsonc-parser's `main` is a UMD build whose lazy require()s a bundle cannot follow: its ES build.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  logLevel: 'warning',
  legalComments: 'none',
};

/** Source path (relative to the root, .ts) -> the cold entry's name. */
const cold = new Map();
const entryName = (rel) => rel.replace(/^src\//, '').replace(/\.ts$/, '').replaceAll('/', '-');

/**
 * Leaves a bundle's dynamic imports as imports of the lazy entries (recorded in `cold`, so the split
 * build below makes them); `prefix` leads from the bundle's folder to them. With `keepHot`, the HOT
 * ones stay inside the bundle.
 */
const leaveDynamicImports = (name, prefix, keepHot) => ({
  name,
  setup(b) {
    b.onResolve({ filter: /^\./ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.pluginData === 'inner') return undefined;
      const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'inner' });
      if (r.errors.length) return { errors: r.errors };
      const rel = relative(ROOT, r.path).replaceAll('\\', '/');
      if (keepHot && HOT.has(rel)) return { path: r.path };
      cold.set(rel, entryName(rel));
      return { path: `${prefix}${entryName(rel)}.mjs`, external: true };
    });
  },
});
/** The hot file's dynamic imports: lazy entries under lazy/. */
const splitOffCold = leaveDynamicImports('split-off-cold', './lazy/', true);
/** A standalone lazy file's (below): the lazy entries next to it. */
const lazyFromLazy = leaveDynamicImports('lazy-from-lazy', './', false);

rmSync('out/cli', { recursive: true, force: true });
// The hot file needs no `require` (loading node:module for it costs a few milliseconds at start).
await build({ ...common, banner: { js: '#!/usr/bin/env node' }, entryPoints: { 'rewind-app': 'src/cli/bin.ts' }, outdir: 'out/cli', plugins: [splitOffCold] });
if (/typeof require/.test(readFileSync('out/cli/rewind-app.mjs', 'utf8'))) throw new Error('the hot CLI file now needs require(): move that import to a lazy module');
chmodSync('out/cli/rewind-app.mjs', 0o755);

// `search`, `sessions` and the index build's worker threads: each one file with everything it imports statically
// (its dynamic imports stay lazy entries). From the split build they loaded 37 modules each, about a
// millisecond apiece to resolve, read and link: a warm search's budget is three times `node -e ''`.
const STANDALONE = { 'cli-commands-search': 'src/cli/commands/search.ts', 'cli-commands-sessions': 'src/cli/commands/sessions.ts', 'search-index-worker': 'src/engine/search-index/index-worker.ts' };
await build({ ...common, entryPoints: STANDALONE, outdir: 'out/cli/lazy', plugins: [lazyFromLazy] });
for (const rel of Object.values(STANDALONE)) cold.delete(rel);

// `hook`, run by the agents at every prompt and tool call: two files. The command's own (the
// handler, the io and lock helpers, inlined) and the store's half (src/engine/hooks/hook-store.ts:
// the checkpoint and everything it needs, node:crypto included), loaded only by a prompt's
// checkpoint and a tool's write record. Each agent's hook module stays a lazy entry of its own.
const HOOK_STORE = 'src/engine/hooks/hook-store.ts';
// A tool's post-hook: the hash and the record of the agent's write, a file of its own too.
const HOOK_WRITE = 'src/engine/hooks/hook-write.ts';
const isAgentHooks = (rel) => /^src\/engine\/agents\/[^/]+\/hooks\.ts$/.test(rel);
const hookSplit = (outside) => ({
  name: 'hook-split',
  setup(b) {
    b.onResolve({ filter: /^\./ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.pluginData === 'inner') return undefined;
      const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'inner' });
      if (r.errors.length) return { errors: r.errors };
      const rel = relative(ROOT, r.path).replaceAll('\\', '/');
      if (!outside(rel)) return { path: r.path };
      if (rel !== HOOK_STORE && rel !== HOOK_WRITE && !isAgentHooks(rel)) cold.set(rel, entryName(rel));
      return { path: `./${entryName(rel)}.mjs`, external: true };
    });
  },
});
// Neither needs `require` (loading node:module for it costs a few milliseconds at every tool call).
const hookCommon = { ...common, banner: { js: '' }, outdir: 'out/cli/lazy' };
await build({ ...hookCommon, entryPoints: { 'cli-commands-hook': 'src/cli/commands/hook.ts' }, plugins: [hookSplit((rel) => rel === HOOK_STORE || rel === HOOK_WRITE || isAgentHooks(rel))] });
// Each agent's hook module too (read at every tool call): the split build's would bring the
// `require` banner (node:module, ~10-30 ms at load) and two shared chunks.
const agentHooks = readdirSync('src/engine/agents', { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(`src/engine/agents/${d.name}/hooks.ts`))
  .map((d) => `src/engine/agents/${d.name}/hooks.ts`);
const hookFiles = { [entryName(HOOK_STORE)]: HOOK_STORE, [entryName(HOOK_WRITE)]: HOOK_WRITE, ...Object.fromEntries(agentHooks.map((rel) => [entryName(rel), rel])) };
await build({ ...hookCommon, entryPoints: hookFiles, plugins: [hookSplit(() => false)] });
cold.delete('src/cli/commands/hook.ts');
for (const rel of agentHooks) cold.delete(rel);
for (const f of ['cli-commands-hook', ...Object.keys(hookFiles)]) {
  const text = readFileSync(`out/cli/lazy/${f}.mjs`, 'utf8');
  if (/typeof require/.test(text)) throw new Error(`${f}.mjs now needs require(): give it back the banner`);
  if (f === 'cli-commands-hook' && /from ["']node:crypto["']/.test(text)) throw new Error('the hook command file now loads node:crypto: move that import to the store half');
}

await build({
  ...common,
  // The engine worker is its own entry: `serve` runs long work on it, off the main thread.
  entryPoints: { ...Object.fromEntries([...cold].sort(([a], [b]) => a.localeCompare(b)).map(([rel, name]) => [name, rel])), 'engine-worker': 'src/main/service/engine-worker.ts' },
  outdir: 'out/cli/lazy',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
});
