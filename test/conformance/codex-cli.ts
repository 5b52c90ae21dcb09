import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The pinned Codex CLI the conformance tier judges Codex rewinds against. */
export const CODEX_VERSION = '0.169.0';

export function codexCacheDir(): string {
  const base = process.env.REWIND_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'rewind');
  return join(base, `codex-${CODEX_VERSION}`);
}

/**
 * The pinned CLI, installed into a cache dir on first use (its platform binary comes as an optional
 * dependency, no install script). Returns the reason when it cannot install or run here.
 */
export function ensureCodex(): { bin: string } | { skip: string } {
  if (process.env.REWIND_CODEX_BIN) return { bin: process.env.REWIND_CODEX_BIN };
  const dir = codexCacheDir();
  const bin = join(dir, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const r = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', `@openai/codex@${CODEX_VERSION}`], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0 || !existsSync(bin)) return { skip: `could not install @openai/codex@${CODEX_VERSION} (npm exit ${r.status})` };
  }
  const v = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8', timeout: 60_000 });
  if (v.status !== 0 || !v.stdout.includes(CODEX_VERSION)) return { skip: `the Codex CLI does not run here: ${(v.stderr || v.error?.message || v.stdout).split('\n')[0]}` };
  return { bin };
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
export function runCodex(e: CodexEnv, cwd: string, args: string[], timeoutMs = 120_000): Promise<CodexRun> {
  const argv = args[0] === 'resume' || args[0] === 'fork' ? ['exec', args[0], ...FLAGS, ...args.slice(1)] : ['exec', ...FLAGS, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [e.bin, ...argv], {
      cwd,
      env: { PATH: process.env.PATH, HOME: e.home, CODEX_HOME: e.home, FAKE_OPENAI_KEY: 'sk-test', TERM: 'dumb', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`codex ${argv.join(' ')} timed out\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let threadId: string | null = null;
      for (const line of stdout.split('\n')) {
        try {
          const v = JSON.parse(line) as { type?: string; thread_id?: string };
          if (v.type === 'thread.started' && v.thread_id) threadId = v.thread_id;
        } catch {
          // not an event line
        }
      }
      resolve({ code: code ?? -1, stdout, stderr, threadId });
    });
  });
}
