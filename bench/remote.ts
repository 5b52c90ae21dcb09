import { spawnSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { startSshd } from '../test/remote/sshd.js';
import { generateHistory } from './generate-history.js';
import { median } from './lib.js';

/**
 * Remote listing over loopback ssh (the Remote issue's target): `sessions --json --host box` for a
 * host with 2,500 sessions against the same listing run on that host, plus one ssh round trip.
 * Medians of 5, interleaved, warm index on the host. Bytes do not matter here (the list reads heads
 * and the index), so the history is generated at a small scale: REWIND_BENCH_REMOTE_SCALE (0.02).
 */
export async function benchRemote(dir: string): Promise<Record<string, unknown>> {
  const ROOT = resolve(import.meta.dirname, '..');
  const cli = join(ROOT, 'out', 'cli', 'rewind-app.mjs');
  const scale = Number(process.env.REWIND_BENCH_REMOTE_SCALE ?? '0.02');
  const root = join(dir, `history-${scale}`);
  const h = await generateHistory(root, scale);
  const cache = join(dir, `remote-cache-${scale}`);
  const hostEnv = { CLAUDE_CONFIG_DIR: root, REWIND_CACHE_DIR: cache, CODEX_HOME: join(dir, 'no-codex'), REWIND_NO_FORWARD: '1' };
  const sshd = await startSshd({ remoteBin: cli, remoteEnv: hostEnv });
  const local = join(sshd.dir, 'local');
  await mkdir(local);
  const env = { PATH: process.env.PATH, HOME: local, REWIND_CONFIG_DIR: join(local, 'config'), REWIND_SSH: sshd.sshWrapper, REWIND_NO_FORWARD: '1' };
  const time = (cmd: string, args: string[], e: NodeJS.ProcessEnv) => {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { env: e, encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
    return { ms: performance.now() - t0, out: r.stdout };
  };
  try {
    time(process.execPath, [cli, 'remote', 'add', sshd.alias, '--name', 'box'], env);
    const there = { ...process.env, HOME: sshd.remoteHome, ...hostEnv };
    time(process.execPath, [cli, 'sessions', '--json'], there); // the host's index, warm
    const onHost: number[] = [];
    const rtt: number[] = [];
    const viaSsh: number[] = [];
    let listed = 0;
    for (let i = 0; i < 5; i++) {
      onHost.push(time(process.execPath, [cli, 'sessions', '--json'], there).ms);
      rtt.push(time(sshd.sshWrapper, ['-T', '-o', 'BatchMode=yes', sshd.alias, 'true'], env).ms);
      const r = time(process.execPath, [cli, 'sessions', '--json', '--host', 'box'], env);
      viaSsh.push(r.ms);
      listed = (JSON.parse(r.out) as { sessions: unknown[] }).sessions.length;
    }
    const r = {
      sessions: h.sessions,
      listed,
      onHostMs: +median(onHost).toFixed(1),
      roundTripMs: +median(rtt).toFixed(1),
      viaSshMs: +median(viaSsh).toFixed(1),
      budgetMs: +(1.5 * median(onHost) + median(rtt)).toFixed(1),
      target: 'via ssh <= 1.5x on the host + one round trip',
    };
    console.log(`remote: sessions --json --host for ${r.listed}/${r.sessions} sessions ${r.viaSshMs} ms; on the host ${r.onHostMs} ms, ssh round trip ${r.roundTripMs} ms; budget ${r.budgetMs} ms (${r.viaSshMs <= r.budgetMs ? 'met' : 'MISSED'})`);
    return r;
  } finally {
    await sshd.stop();
    await rm(cache, { recursive: true, force: true });
  }
}
