import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COPILOT_CACHE_HOME, COPILOT_CLI, DROID_CLI, GEMINI_CLI, QWEN_CLI, ensureNpmCli, orSkip, runCli } from './agents/npm-cli.js';
import { ensureClaude } from './claude-cli.js';
import { ensureCodex } from './codex-cli.js';
import { ensureCliBuilt, rewindApp } from './harness.js';
import { tempEnv } from '../temp.js';

/**
 * `rewind-app mcp install --agent <id>` judged by each agent's own CLI: its `mcp list` finds the
 * server under the name `rewind` (and, where it checks, connects to it), and after `uninstall` no
 * longer does.
 */
const claude = ensureClaude();
const codex = ensureCodex();
const AGENTS: { id: string; cmd: { cmd: string[] } | null; listed: RegExp; env?: NodeJS.ProcessEnv; args?: string[] }[] = [
  { id: 'claude', cmd: orSkip('Claude Code', 'bin' in claude ? { cmd: [claude.bin] } : claude), listed: /^rewind: .*rewind-app\.mjs mcp - ✔ Connected$/m },
  { id: 'codex', cmd: orSkip('Codex CLI', 'bin' in codex ? { cmd: [process.execPath, codex.bin] } : codex), listed: /^rewind\s+\S*node\s+\S*rewind-app\.mjs mcp\s.*\benabled\b/m },
  { id: 'droid', cmd: orSkip('Factory Droid', ensureNpmCli(DROID_CLI)), listed: /^\s*rewind\s+stdio\s+connected\s+\[user\]$/m },
  { id: 'qwen', cmd: orSkip('Qwen Code', ensureNpmCli(QWEN_CLI)), listed: /rewind: \S*node \S*rewind-app\.mjs mcp \(stdio\) - Connected/ },
  // Gemini lists user-level servers only in a trusted folder.
  { id: 'gemini', cmd: orSkip('Gemini CLI', ensureNpmCli(GEMINI_CLI)), listed: /rewind: \S*node \S*rewind-app\.mjs mcp \(stdio\) - Connected/, env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' } },
  // Copilot's `mcp list` names servers only: `mcp get` shows the command.
  { id: 'copilot', cmd: orSkip('GitHub Copilot CLI', ensureNpmCli(COPILOT_CLI)), args: ['mcp', 'get', 'rewind'], listed: /^\s*Command: \S*node \S*rewind-app\.mjs mcp$/m, env: { COPILOT_AUTO_UPDATE: 'false', COPILOT_CACHE_HOME } },
];

let home: string;
let project: string;

describe('each agent’s own CLI finds the server rewind-app mcp install registered', () => {
  beforeAll(async () => {
    ensureCliBuilt();
    home = await mkdtemp(join(tmpdir(), 'rewind-conf-mcp-install-'));
    project = join(home, 'proj');
    await mkdir(project, { recursive: true });
  });
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it.each(AGENTS.filter((a) => a.cmd))('$id mcp list', async ({ id, cmd, listed, env, args }) => {
    const e = { PATH: process.env.PATH, ...tempEnv(), HOME: home, TERM: 'dumb', NO_COLOR: '1', CI: '1', ...env };
    const list = async () => {
      const r = await runCli(cmd!.cmd, args ?? ['mcp', 'list'], { cwd: project, env: e, timeoutMs: 90_000 });
      return `${r.stdout}\n${r.stderr}`;
    };
    expect(await list()).not.toMatch(/rewind-app\.mjs/);
    const installed = rewindApp(['mcp', 'install', '--agent', id], { HOME: home }, project);
    expect(installed.code, installed.stderr).toBe(0);
    const out = await list();
    expect(out, out).toMatch(listed);
    const removed = rewindApp(['mcp', 'uninstall', '--agent', id], { HOME: home }, project);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/: rewind removed from /);
    expect(await list()).not.toMatch(/rewind-app\.mjs/);
  });
});
