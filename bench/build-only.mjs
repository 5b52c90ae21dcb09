// Cold index build alone (the first `search` with an empty cache) next to `grep -rlF` over the same
// history, best of N each, interleaved: node bench/build-only.mjs [scale] [runs]. Run `npm run build:cli` first.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const scale = process.argv[2] ?? '0.25';
const runs = Number(process.argv[3] ?? '3');
const dir = '/tmp/rewind-bench';
const root = join(dir, `history-${scale}`);
const cache = join(dir, `build-only-cache-${process.pid}`);
const cli = join(ROOT, 'out', 'cli', 'rewind-app.mjs');
const env = { ...process.env, CLAUDE_CONFIG_DIR: root, CODEX_HOME: join(dir, 'no-codex'), REWIND_CACHE_DIR: cache, HOME: dir };
const time = (cmd, args, opts) => {
  const a = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...opts });
  return { ms: performance.now() - a, r };
};
time('grep', ['-rlF', 'zqxplantmany', join(root, 'projects')]);
const g = [];
const b = [];
let hits = null;
for (let k = 0; k < runs; k++) {
  g.push(time('grep', ['-rlF', 'zqxplantmany', join(root, 'projects')]).ms);
  rmSync(cache, { recursive: true, force: true });
  const s = time('/usr/bin/time', ['-f', '%U %S', process.execPath, cli, 'search', 'zqxplantmany', '--json'], { env });
  if (s.r.status !== 0) throw new Error(s.r.stderr);
  hits = JSON.parse(s.r.stdout).totalHits;
  b.push(s.ms);
  console.log(`run ${k}: build ${s.ms.toFixed(0)} ms (cpu user sys ${s.r.stderr.trim().split('\n').pop()}), grep ${g[k].toFixed(0)} ms`);
}
rmSync(cache, { recursive: true, force: true });
const bb = Math.min(...b);
const gg = Math.min(...g);
console.log(`best: first search ${bb.toFixed(0)} ms vs grep ${gg.toFixed(0)} ms = ${(bb / gg).toFixed(2)}x; hits ${hits}; load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
