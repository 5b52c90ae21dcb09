import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNpmCli, runCli } from './agents/npm-cli.js';
import { tempEnv } from '../temp.js';

/** The pinned CLI the conformance tier judges against (REWIND_CLAUDE_VERSION judges another: scripts/conformance.mjs --latest). */
export const CLAUDE_VERSION = process.env.REWIND_CLAUDE_VERSION || '2.1.332';

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

/**
 * Finds the pinned binary, installing it into a cache dir on first use (about 370 MB, reused by
 * every later run; the platform binary runs directly, no install script). Returns the reason when
 * it cannot run on this platform.
 */
export function ensureClaude(): { bin: string } | { skip: string } {
  if (process.env.REWIND_CLAUDE_BIN) return { bin: process.env.REWIND_CLAUDE_BIN };
  const pkg = platformPackage();
  if (!pkg) return { skip: `no Claude Code ${CLAUDE_VERSION} binary for ${process.platform}-${process.arch}` };
  const r = ensureNpmCli({
    dir: `claude-code-${CLAUDE_VERSION}`,
    packages: [`@anthropic-ai/claude-code@${CLAUDE_VERSION}`],
    bin: join('node_modules', '@anthropic-ai', pkg, process.platform === 'win32' ? 'claude.exe' : 'claude'),
    version: CLAUDE_VERSION,
  });
  return 'cmd' in r ? { bin: r.cmd[0]! } : r;
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
    PATH: process.env.PATH, ...tempEnv(),
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
export async function runClaude(e: ClaudeEnv, cwd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<RunResult> {
  const r = await runCli([e.bin], args, { cwd, env: claudeEnv(e, extraEnv), timeoutMs });
  let json: RunResult['json'] = null;
  try {
    json = JSON.parse(r.stdout.trim().split('\n').pop() ?? '');
  } catch {
    json = null;
  }
  return { ...r, json };
}

export const PRINT_FLAGS = ['--output-format', 'json', '--permission-mode', 'acceptEdits', '--allowedTools', 'Write Edit Bash Read'];
