import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The pinned CLI the conformance tier judges against. */
export const CLAUDE_VERSION = '2.1.330';

function platformPackage(): string | null {
  const arch = process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : null;
  if (!arch) return null;
  if (process.platform === 'darwin') return `claude-code-darwin-${arch}`;
  if (process.platform === 'win32') return `claude-code-win32-${arch}`;
  if (process.platform === 'linux') {
    const musl = existsSync('/etc/alpine-release');
    return `claude-code-linux-${arch}${musl ? '-musl' : ''}`;
  }
  return null;
}

export function cacheDir(): string {
  const base = process.env.REWIND_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'rewind');
  return join(base, `claude-code-${CLAUDE_VERSION}`);
}

/**
 * Finds the pinned binary, installing it into a cache dir on first use (about 370 MB, reused by
 * every later run). Returns null with the reason when it cannot run on this platform.
 */
export function ensureClaude(): { bin: string } | { skip: string } {
  if (process.env.REWIND_CLAUDE_BIN) return { bin: process.env.REWIND_CLAUDE_BIN };
  const pkg = platformPackage();
  if (!pkg) return { skip: `no Claude Code ${CLAUDE_VERSION} binary for ${process.platform}-${process.arch}` };
  const dir = cacheDir();
  const bin = join(dir, 'node_modules', '@anthropic-ai', pkg, process.platform === 'win32' ? 'claude.exe' : 'claude');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    // --ignore-scripts: we run the platform binary directly, no postinstall needed.
    const r = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', `@anthropic-ai/claude-code@${CLAUDE_VERSION}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, npm_config_engine_strict: 'false' },
    });
    if (r.status !== 0 || !existsSync(bin)) return { skip: `could not install @anthropic-ai/claude-code@${CLAUDE_VERSION} (npm exit ${r.status})` };
  }
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (v.status !== 0 || !v.stdout.includes(CLAUDE_VERSION)) return { skip: `the Claude Code binary does not run here: ${(v.stderr || v.error?.message || '').split('\n')[0]}` };
  return { bin };
}

export interface ClaudeEnv {
  bin: string;
  apiUrl: string;
  home: string;
  configDir: string;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  json: { session_id?: string; result?: string; is_error?: boolean } | null;
}

export function claudeEnv(e: ClaudeEnv, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: e.home,
    CLAUDE_CONFIG_DIR: e.configDir,
    ANTHROPIC_BASE_URL: e.apiUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test-conformance',
    CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_BUG_COMMAND: '1',
    CI: '1',
    TERM: 'dumb',
    ...extra,
  };
}

/** Runs the CLI in print mode in `cwd`. */
export function runClaude(e: ClaudeEnv, cwd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(e.bin, args, { cwd, env: claudeEnv(e, extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`claude ${args.join(' ')} timed out\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      let json: RunResult['json'] = null;
      try {
        json = JSON.parse(stdout.trim().split('\n').pop() ?? '');
      } catch {
        json = null;
      }
      resolve({ code: code ?? -1, stdout, stderr, json });
    });
  });
}

export const PRINT_FLAGS = ['--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools', 'Write Edit Bash Read'];
