import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureNpmCli, runCli } from './agents/npm-cli.js';
import { tempEnv } from '../temp.js';

/** The pinned Codex CLI the conformance tier judges Codex rewinds against (REWIND_CODEX_VERSION judges another: scripts/conformance.mjs --latest). */
export const CODEX_VERSION = process.env.REWIND_CODEX_VERSION || '0.171.0';

/**
 * The pinned CLI, installed into a cache dir on first use (its platform binary comes as an optional
 * dependency, no install script). Returns the reason when it cannot install or run here.
 */
export function ensureCodex(): { bin: string } | { skip: string } {
  if (process.env.REWIND_CODEX_BIN) return { bin: process.env.REWIND_CODEX_BIN };
  const r = ensureNpmCli({ dir: `codex-${CODEX_VERSION}`, packages: [`@openai/codex@${CODEX_VERSION}`], bin: join('node_modules', '@openai', 'codex', 'bin', 'codex.js'), node: true, version: CODEX_VERSION });
  return 'cmd' in r ? { bin: r.cmd[1]! } : r;
}

export interface CodexEnv {
  bin: string;
  apiUrl: string;
  /** `$CODEX_HOME`, holding the config that points Codex at the scripted API. */
  home: string;
}

/** A fresh `$CODEX_HOME` with the config FORMATS.md §2 gives (offline, no update check, no analytics). */
export async function codexHome(dir: string, apiUrl: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'config.toml'),
    [
      'model = "fake-model"',
      'model_provider = "fake"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "${apiUrl}"`,
      'env_key = "FAKE_OPENAI_KEY"',
      'wire_api = "responses"',
      '',
      '[analytics]',
      'enabled = false',
      '',
    ].join('\n'),
  );
  return dir;
}

export interface CodexRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The thread id `--json` reported (`thread.started`). */
  threadId: string | null;
}

const FLAGS = ['--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--json'];

/** `codex exec [args] "prompt"` in `cwd`, stdin closed (or it waits for input). */
export async function runCodex(e: CodexEnv, cwd: string, args: string[], timeoutMs = 120_000): Promise<CodexRun> {
  const argv = args[0] === 'resume' || args[0] === 'fork' ? ['exec', args[0], ...FLAGS, ...args.slice(1)] : ['exec', ...FLAGS, ...args];
  const env = { PATH: process.env.PATH, ...tempEnv(), HOME: e.home, CODEX_HOME: e.home, FAKE_OPENAI_KEY: 'sk-test', TERM: 'dumb', NO_COLOR: '1' };
  const r = await runCli([process.execPath, e.bin], argv, { cwd, env, timeoutMs });
  let threadId: string | null = null;
  for (const line of r.stdout.split('\n')) {
    try {
      const v = JSON.parse(line) as { type?: string; thread_id?: string };
      if (v.type === 'thread.started' && v.thread_id) threadId = v.thread_id;
    } catch {
      // not an event line
    }
  }
  return { ...r, threadId };
}
