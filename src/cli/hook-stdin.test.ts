import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../../test/fixtures.js';
import { listCheckpointIds } from '../engine/store/manifest.js';
import { backgroundDone } from '../../test/background.js';
import { tempDir, tempEnv } from '../../test/temp.js';

/**
 * The built hook and its standard input (issue #34, "the hook never blocks the agent"): an input
 * that never ends held the hook for ever (a synchronous read of fd 0), so the agent waited out its
 * own hook timeout on every event; an oversized one was read whole first.
 */

async function hook(home: string, write: (stdin: NodeJS.WritableStream) => void, killAfterMs: number) {
  const child = spawn(process.execPath, [BUILT_CLI, 'hook', '--agent', 'claude'], { env: { HOME: home, PATH: process.env.PATH ?? '', ...tempEnv() }, stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin.on('error', () => undefined);
  const t = Date.now();
  const ended = new Promise<{ ms: number; code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ ms: Date.now() - t, code, signal })));
  const guard = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  write(child.stdin);
  const r = await ended;
  clearTimeout(guard);
  child.stdin.destroy();
  return r;
}

const log = async (home: string) => (await readFile(join(home, '.cache', 'rewind', 'hook.log'), 'utf8').catch(() => '')).trim().split('\n').pop() ?? '';

describe.skipIf(process.platform === 'win32')('the built hook bounds its input', () => {
  it('an input that never ends is given up after 10 s, logged, the agent not left waiting', async () => {
    if (!existsSync(BUILT_CLI)) throw new Error('build the CLI first (npm run build)');
    const home = await tempDir('hook-stdin-open-');
    // Half a payload, and the pipe kept open.
    const r = await hook(home, (s) => s.write('{"hook_event_name": "PreToolUse", '), 25_000);
    expect(r.ms).toBeLessThan(20_000);
    expect(await log(home)).toMatch(/input did not end within 10 s/);
  }, 40_000);

  it('an input over 16 MB is refused without reading it all, and logged', async () => {
    const home = await tempDir('hook-stdin-big-');
    const r = await hook(home, (s) => s.write(Buffer.alloc(17 * 1024 * 1024, 0x20)), 25_000);
    expect(r.ms).toBeLessThan(15_000);
    expect(await log(home)).toMatch(/input is over 16777216 bytes/);
  }, 40_000);

  it('a payload that ends is handled as before: exit 0, the checkpoint taken', async () => {
    const home = await tempDir('hook-stdin-ok-');
    const project = join(home, 'proj');
    await mkdir(project);
    const payload = { hook_event_name: 'UserPromptSubmit', session_id: 's', cwd: project, prompt: 'p', transcript_path: join(project, 't.jsonl') };
    const r = await hook(home, (s) => s.end(JSON.stringify(payload)), 25_000);
    expect(r).toMatchObject({ code: 0, signal: null });
    expect(await readdir(join(project, '.agent', 'rewind'))).toContain('hook-claude.json');
    // The project's first checkpoint is taken by a detached child: it is there once the child left.
    await backgroundDone(project);
    expect(await listCheckpointIds(project)).toHaveLength(1);
  }, 40_000);
});
