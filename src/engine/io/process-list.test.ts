import { spawn, spawnSync } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/temp.js';
import { processTable } from './process-list.js';

const kids: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const k of kids) k.kill('SIGKILL');
});

async function child(cwd: string) {
  const k = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'rewind-process-list-probe'], { cwd, stdio: 'ignore' });
  kids.push(k);
  await new Promise((r) => k.once('spawn', r));
  return k;
}

const probe = (argv: string[]) => argv.includes('rewind-process-list-probe');

describe.runIf(process.platform === 'linux')('the process table: argv, parent, working folder, start time', () => {
  it('Linux /proc: a process started now, in its folder, child of ours', async () => {
    const dir = await realpath(await tempDir('proc-list-'));
    const before = Date.now();
    const k = await child(dir);
    const [p] = processTable().matching(probe).filter((x) => x.pid === k.pid);
    expect(p).toMatchObject({ pid: k.pid, ppid: process.pid, cwd: dir });
    // /proc/stat's boot time is whole seconds: the start is right to about a second.
    expect(Math.abs(p!.startedAt! - before)).toBeLessThan(5_000);
    k.kill('SIGKILL');
  });

  it.runIf(spawnSync('ps', ['-V']).status === 0)('`ps -o lstart` (the macOS reading, run here with procps): the same start to the second', async () => {
    const k = await child(await tempDir('proc-list-'));
    const linux = processTable('linux').matching(probe).find((x) => x.pid === k.pid)!;
    const viaPs = processTable('darwin').matching(probe).find((x) => x.pid === k.pid)!;
    expect(viaPs).toMatchObject({ pid: k.pid, ppid: process.pid });
    expect(Math.abs(viaPs.startedAt! - linux.startedAt!)).toBeLessThan(2_000);
    k.kill('SIGKILL');
  });
});
