import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyClaudeHome, tempDir } from '../../../test/fixtures.js';
import { pidDomain, procStartOf } from '../../engine/io/process-alive.js';
import { RewindService } from './rewind-service.js';
import type { ResponseOf } from '../../shared/contract.js';

// The window's restore preview names an agent that has a session of the project open (idle: the
// restore is allowed, and its next turn sees the restored files), as the CLI's dry run does.

let root: string;
let project: string;
let service: RewindService;
let tui: ChildProcess;
const made: string[] = [];

beforeAll(async () => {
  root = await copyClaudeHome();
  made.push(dirname(root));
  const elsewhere = await tempDir('rewind-restore-open-');
  made.push(elsewhere);
  project = join(elsewhere, 'project');
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'a.txt'), 'first\n');
  const none = join(elsewhere, 'none');
  service = new RewindService({ claudeRoot: root, roots: { codex: none, droid: none, qwen: none, gemini: none, copilot: none }, prefsFile: join(elsewhere, 'prefs.json'), cacheDir: join(elsewhere, 'cache'), watch: false, env: { HOME: elsewhere } });
  tui = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await new Promise((r) => tui.once('spawn', r));
});
afterAll(async () => {
  tui?.kill('SIGKILL');
  await service.close();
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

describe.runIf(process.platform === 'linux')('a restore preview with an agent open in the project', () => {
  it('says nothing of it with no agent open, and names the idle agent and its pid when one is', async () => {
    const cp = await service.handle('takeCheckpoint', { project });
    expect(cp.ok).toBe(true);
    const id = cp.ok ? (cp.value as ResponseOf<'takeCheckpoint'>).id : '';
    await writeFile(join(project, 'a.txt'), 'second\n');
    const quiet = await service.handle('previewRestore', { project, ref: id });
    expect(quiet.ok && (quiet.value as ResponseOf<'previewRestore'>).openNote).toBeNull();
    await mkdir(join(root, 'sessions'), { recursive: true });
    await writeFile(join(root, 'sessions', `${tui.pid}.json`), JSON.stringify({ pid: tui.pid, sessionId: '2ea8980a-26fe-4928-aab5-4ebf6074b664', cwd: project, startedAt: Date.now(), procStart: procStartOf(tui.pid!), pidDomain: pidDomain(), status: 'idle', kind: 'interactive' }));
    const said = await service.handle('previewRestore', { project, ref: id });
    expect(said.ok, JSON.stringify(said)).toBe(true);
    const plan = said.ok ? (said.value as ResponseOf<'previewRestore'>) : null;
    expect(plan?.openNote).toBe(`This project has a session open in Claude Code (idle, pid ${tui.pid}): its next turn sees the restored files.`);
    expect(plan?.changes.length).toBe(1);
  });
});
