import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { generateHistory } from './generate-history.js';
const scale = Number(process.env.REWIND_BENCH_SCALE ?? '0.25');
const root = `/tmp/tw/history-${scale}`;
const t0 = performance.now();
const h = await generateHistory(root, scale);
console.log(`history ${h.sessions} sessions ${(h.bytes / 2 ** 30).toFixed(2)} GiB in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
const cli = join(import.meta.dirname, '..', 'out', 'cli', 'rewind-app.mjs');
const env = { ...process.env, CLAUDE_CONFIG_DIR: root, CODEX_HOME: '/tmp/tw/no-codex', REWIND_CACHE_DIR: `/tmp/tw/history-cache-${scale}`, HOME: '/tmp/tw' };
const time = (args: string[]) => {
  const a = performance.now();
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0 && r.status !== 3) throw new Error(r.stderr);
  return performance.now() - a;
};
time([cli, 'search', process.env.WORD ?? 'value', '--limit', '20']);
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const n: number[] = [], s: number[] = [], q: number[] = [];
for (let i = 0; i < Number(process.env.RUNS ?? 9); i++) {
  n.push(time(['-e', '']));
  s.push(time([cli, 'sessions', '--json']));
  q.push(time([cli, 'search', process.env.WORD ?? 'value', '--limit', '20']));
}
console.log(`node -e '' ${med(n).toFixed(0)} ms (best ${Math.min(...n).toFixed(0)}); sessions --json ${med(s).toFixed(0)} ms = ${(med(s) / med(n)).toFixed(2)}x (best ratio ${(Math.min(...s) / Math.min(...n)).toFixed(2)}); search ${process.env.WORD ?? 'value'} --limit 20 ${med(q).toFixed(0)} ms = ${(med(q) / med(n)).toFixed(2)}x (best ratio ${(Math.min(...q) / Math.min(...n)).toFixed(2)})`);
