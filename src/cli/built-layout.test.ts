import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, LINEAR, ROOT, copyClaudeHome, inCopy, runBuiltCli, tempDir } from '../../test/fixtures.js';
import { appRootFrom } from './commands/open-app.js';

const CLI = BUILT_CLI;
const runBuilt = async (args: string[], env: NodeJS.ProcessEnv) => {
  const r = await runBuiltCli(args, env);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('the built CLI (npm run build)', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error('build the CLI first (npm run build)');
  });

  it('back runs from the one hot file; other commands load their lazy modules', async () => {
    const root = await copyClaudeHome();
    const linear = inCopy(root, LINEAR);
    const past = new Date(Date.now() - 3600_000);
    await utimes(linear, past, past);
    const project = await tempDir();
    const env = { ...process.env, CLAUDE_CONFIG_DIR: root, HOME: project, REWIND_NO_FORWARD: '1' };
    const hot = readFileSync(CLI, 'utf8');
    // The hot file imports nothing of ours statically: only node builtins.
    expect(hot.match(/^import .* from ["'](?!node:)[^"']+["']/gm)).toBeNull();
    const back = await runBuilt(['back', '1', '--dry-run', '--transcript', linear, '--project', project], env);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/Dry run: would fork/);
    const sessions = await runBuilt(['sessions', '--json'], env);
    expect(sessions.code, sessions.stderr).toBe(0);
    expect(JSON.parse(sessions.stdout).sessions.length).toBe(3);
    const timeline = await runBuilt(['timeline', '--json', linear], env);
    expect(timeline.code, timeline.stderr).toBe(0);
    const usage = await runBuilt(['checkpoint', 'extra'], env);
    expect(usage.code).toBe(2);
  });

  it('the desktop app is launched from the package folder, whose main entry is built', () => {
    for (const from of [join(ROOT, 'out', 'cli', 'lazy'), join(ROOT, 'out', 'cli', 'lazy', 'chunks'), join(ROOT, 'src', 'cli', 'commands')]) {
      const root = appRootFrom(from);
      expect(root).toBe(ROOT);
      const pkg = JSON.parse(readFileSync(join(root!, 'package.json'), 'utf8')) as { main: string };
      expect(existsSync(join(root!, pkg.main))).toBe(true);
    }
    expect(appRootFrom('/')).toBeNull();
  });

  it('a reader that closes the pipe early (| head) ends the output: no stack trace, exit 0', async () => {
    const root = await copyClaudeHome();
    const env = { ...process.env, CLAUDE_CONFIG_DIR: root, HOME: await tempDir(), REWIND_CACHE_DIR: await tempDir(), REWIND_NO_FORWARD: '1' };
    const child = spawn(process.execPath, [CLI, 'sessions', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    // Closed before the list is written: its write meets EPIPE.
    child.stdout.destroy();
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((res) => child.on('close', res));
    expect(err).toBe('');
    expect(code).toBe(0);
  });
});
