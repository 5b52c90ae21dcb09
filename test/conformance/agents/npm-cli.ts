import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempEnv } from '../../temp.js';

/** Where a pinned CLI is installed once and reused: `~/.cache/rewind/<dir>` (REWIND_CACHE_DIR overrides). */
export function cacheDirFor(dir: string): string {
  const base = process.env.REWIND_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'rewind');
  return join(base, dir);
}

export interface NpmCli {
  /** Folder under the cache, e.g. `factory-cli-0.225.1`. */
  dir: string;
  /** What `npm install` gets. */
  packages: string[];
  /** The executable inside the install folder. */
  bin: string;
  /** How to run it: directly, or a JS entry under node. */
  node?: boolean;
  /** What `--version` must print. */
  version: string;
}

/**
 * The agents' CLIs the conformance tiers judge against, pinned (FORMATS.md §2b). `REWIND_<AGENT>_VERSION`
 * judges another release (`npm run conformance -- --latest` sets it to the newest published one).
 */
const DROID_VERSION = process.env.REWIND_DROID_VERSION;
export const DROID_CLI: NpmCli = DROID_VERSION
  ? { dir: `factory-cli-${DROID_VERSION}`, packages: [`@factory/cli@${DROID_VERSION}`], bin: join('node_modules', '@factory', 'cli-linux-x64', 'bin', 'droid'), version: DROID_VERSION }
  : {
      dir: 'factory-cli-0.225.1',
      // 0.225.1's binary package is missing from the registry: the 0.225.2 one runs it.
      packages: ['@factory/cli@0.225.1', '@factory/cli-linux-x64@0.225.2'],
      bin: join('node_modules', '@factory', 'cli-linux-x64', 'bin', 'droid'),
      version: '0.225',
    };
const QWEN_VERSION = process.env.REWIND_QWEN_VERSION || '0.24.4';
export const QWEN_CLI: NpmCli = { dir: `qwen-code-${QWEN_VERSION}`, packages: [`@qwen-code/qwen-code@${QWEN_VERSION}`], bin: join('node_modules', '@qwen-code', 'qwen-code', 'cli.js'), node: true, version: QWEN_VERSION };
/** Qwen Code's environment against a scripted OpenAI-compatible model at `apiUrl`, offline. */
export const qwenEnv = (home: string, apiUrl: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH, ...tempEnv(),
  HOME: home,
  OPENAI_BASE_URL: `${apiUrl}/v1`,
  OPENAI_API_KEY: 'sk-test',
  OPENAI_MODEL: 'fake-model',
  QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
  TERM: 'dumb',
  CI: '1',
  NO_COLOR: '1',
});
/** GitHub Copilot CLI 1.0.102 (FORMATS.md §2e): the loader runs the platform's binary package, installed with it. */
const COPILOT_VERSION = process.env.REWIND_COPILOT_VERSION || '1.0.102';
export const COPILOT_CLI: NpmCli = { dir: `copilot-${COPILOT_VERSION}`, packages: [`@github/copilot@${COPILOT_VERSION}`], bin: join('node_modules', '@github', 'copilot', 'npm-loader.js'), node: true, version: COPILOT_VERSION };
/** Where the Copilot CLI unpacks its runtime on first run, kept beside its install. */
export const COPILOT_CACHE_HOME = cacheDirFor(join(`copilot-${COPILOT_VERSION}`, 'cache'));
/** Copilot's environment in BYOK mode against a scripted OpenAI-compatible model at `apiUrl`, offline, no login. */
export const copilotEnv = (home: string, apiUrl: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH, ...tempEnv(),
  HOME: home,
  COPILOT_OFFLINE: 'true',
  COPILOT_PROVIDER_BASE_URL: `${apiUrl}/v1`,
  COPILOT_PROVIDER_TYPE: 'openai',
  COPILOT_PROVIDER_API_KEY: 'sk-test',
  COPILOT_MODEL: 'fake-model',
  COPILOT_AUTO_UPDATE: 'false',
  // The runtime it unpacks on first run (about 200 MB) is kept once beside the install, not in every test's home.
  COPILOT_CACHE_HOME,
  TERM: 'dumb',
  CI: '1',
  NO_COLOR: '1',
});
const GEMINI_VERSION = process.env.REWIND_GEMINI_VERSION || '0.61.0';
export const GEMINI_CLI: NpmCli = { dir: `gemini-cli-${GEMINI_VERSION}`, packages: [`@google/gemini-cli@${GEMINI_VERSION}`], bin: join('node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js'), node: true, version: GEMINI_VERSION };

/**
 * The pinned CLI, installed on first use (`npm install --prefix … --ignore-scripts`), or the reason
 * it cannot run here. Callers skip loudly with that reason; they never pass without running it.
 */
export function ensureNpmCli(c: NpmCli): { cmd: string[] } | { skip: string } {
  const dir = cacheDirFor(c.dir);
  const bin = join(dir, c.bin);
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const r = spawnSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', ...c.packages], {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, npm_config_engine_strict: 'false' },
    });
    if (r.status !== 0 || !existsSync(bin)) return { skip: `could not install ${c.packages.join(' ')} (npm exit ${r.status})` };
  }
  const cmd = c.node ? [process.execPath, bin] : [bin];
  // An empty home for `--version`, removed at once: this runs at import, also in a runner's main
  // process (Playwright collects specs there) where no afterAll of the file would remove it.
  const home = mkdtempSync(join(tmpdir(), 'rewind-cli-version-home-'));
  let v;
  try {
    v = spawnSync(cmd[0]!, [...cmd.slice(1), '--version'], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, HOME: home } });
  } finally {
    rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
  if (v.status !== 0 || !v.stdout.includes(c.version)) return { skip: `${c.packages[0]} does not run here: ${(v.stderr || v.error?.message || v.stdout || '').split('\n')[0]}` };
  return { cmd };
}

/** Skips a suite with its reason in a banner; on linux-x64 (where CI runs) a skip is a failure. */
export function orSkip(name: string, r: { cmd: string[] } | { skip: string }): { cmd: string[] } | null {
  if ('cmd' in r) return r;
  const banner = `\n${'!'.repeat(78)}\n!! ${name} CONFORMANCE SKIPPED: ${r.skip}\n${'!'.repeat(78)}\n`;
  if (process.platform === 'linux' && process.arch === 'x64' && !process.env.REWIND_ALLOW_CONFORMANCE_SKIP) throw new Error(`${name} conformance must run on linux-x64: ${r.skip}`);
  console.warn(banner);
  return null;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(cmd: string[], args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd[0]!, [...cmd.slice(1), ...args], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd.join(' ')} ${args.join(' ')} timed out\n${stderr}`));
    }, opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}
