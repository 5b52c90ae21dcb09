import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchContext, ROOT, TSX } from './lib.js';

/**
 * `npm run bench -- [name ...]`: runs the named benchmarks (all but the opt-in ones when none is
 * named), in this table's order, and merges their results into `bench-results/latest.json`. Each
 * benchmark is its own file, imported only when it runs; it prints its own summary lines.
 */
interface Bench {
  /** Its section in latest.json (none: it only prints). */
  key?: string;
  /** Runs only when named (minutes of work). */
  optIn?: boolean;
  run: (ctx: BenchContext) => Promise<unknown>;
}

const BENCHES: Record<string, Bench> = {
  parse: { key: 'parse', run: async (ctx) => (await import('./parse.js')).benchParse(ctx) },
  back: { key: 'back', run: async (ctx) => (await import('./back.js')).benchBack(ctx) },
  checkpoint: { key: 'checkpoint', run: async (ctx) => (await import('./checkpoint.js')).benchCheckpoint(ctx) },
  hook: { key: 'hook', run: async (ctx) => (await import('./hook-default.js')).benchHook(ctx) },
  // The hooks on a 20,000-file project: whole-tree checkpoints at every prompt.
  'hook-20k': { key: 'hook20k', run: async (ctx) => (await import('./hook-20k.js')).benchHook20k(ctx) },
  // Every agent's hook (`hook --agent X`), each next to node -e '' in turns: a script of its own.
  'hook-agents': { run: async () => execFileSync(TSX, [join(ROOT, 'bench', 'hook.ts')], { stdio: 'inherit' }) },
  live: { key: 'live', run: async (ctx) => (await import('./live.js')).benchLive(ctx) },
  scale: { key: 'scale', run: async (ctx) => (await import('./scale.js')).benchScale(ctx) },
  ui: { key: 'ui', run: async (ctx) => (await import('./ui.js')).benchUi(ctx) },
  browser: { key: 'browser', run: async (ctx) => (await import('./browser-speed.js')).benchBrowser(ctx) },
  'restore-big': { key: 'restoreBig', run: async (ctx) => (await import('./restore-big.js')).benchRestoreBig(ctx) },
  remote: { key: 'remote', run: async (ctx) => (await import('./remote.js')).benchRemote(ctx.dir) },
  // 100+ kill -9 trials of each operation take minutes.
  crash: { key: 'crash', optIn: true, run: async () => (await import('./crash.js')).runCrashBench(Number(process.env.CRASH_TRIALS ?? 100)) },
};

const only = process.argv.slice(2);
const unknown = only.filter((n) => !(n in BENCHES));
if (unknown.length) {
  console.error(`bench: no benchmark named ${unknown.join(', ')} (known: ${Object.keys(BENCHES).join(', ')})`);
  process.exit(2);
}

const results: Record<string, unknown> = { date: new Date().toISOString(), node: process.version };
const ctx: BenchContext = { dir: join(tmpdir(), 'rewind-bench') };
await mkdir(ctx.dir, { recursive: true });
for (const [name, bench] of Object.entries(BENCHES)) {
  if (only.length ? !only.includes(name) : bench.optIn) continue;
  const r = await bench.run(ctx);
  if (bench.key) results[bench.key] = r;
}

await mkdir(join(ROOT, 'bench-results'), { recursive: true });
// A partial run (`npm run bench -- hook`) updates its sections and keeps the others' last figures.
const latest = join(ROOT, 'bench-results', 'latest.json');
const previous = JSON.parse(await readFile(latest, 'utf8').catch(() => '{}')) as Record<string, unknown>;
await writeFile(latest, `${JSON.stringify({ ...previous, ...results }, null, 2)}\n`);
