import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempEnv } from '../../temp.js';
import { runCli, type NpmCli } from './npm-cli.js';
import type { Driver } from './drivers.js';

/**
 * How the conformance tier drives an OpenCode-family CLI (OpenCode, Kilo) offline: a custom
 * provider in `~/.config/<cli>/<cli>.json` speaking Chat Completions to the scripted server
 * (`@ai-sdk/openai-compatible` is bundled in the binary), models fetch and autoupdate off
 * (FORMATS.md §2e). Prompts go as separate words, as `run -s ID PROBE WORDS` takes them.
 */
export interface StoreCli {
  cli: NpmCli;
  command: string;
  envPrefix: string;
  /** The package the agent installs into its config folders for plugins (read in its bundle). */
  pluginPackage: string;
}

// The versions judged (judged.json); `npm run conformance -- --latest` sets these to the newest releases.
const OPENCODE_VERSION = process.env.REWIND_OPENCODE_VERSION || '1.18.33';
const KILO_VERSION = process.env.REWIND_KILO_VERSION || '7.7.7';

export const OPENCODE: StoreCli = {
  cli: { dir: `opencode-${OPENCODE_VERSION}`, packages: [`opencode-ai@${OPENCODE_VERSION}`], bin: join('node_modules', 'opencode-linux-x64', 'bin', 'opencode'), version: OPENCODE_VERSION },
  command: 'opencode',
  envPrefix: 'OPENCODE',
  pluginPackage: '@opencode-ai/plugin',
};

export const KILO: StoreCli = {
  // The platform binary (an optional dependency of `@kilocode/cli`) is the CLI: `bin` runs it, never
  // the package's node launcher, so the binary package alone is installed. (7.7.9 was published as
  // a binary without its launcher; 7.8.1 as a launcher without any binary: docs/agents.md.)
  cli: { dir: `kilo-${KILO_VERSION}`, packages: [`@kilocode/cli-linux-x64@${KILO_VERSION}`], bin: join('node_modules', '@kilocode', 'cli-linux-x64', 'bin', 'kilo'), version: KILO_VERSION },
  command: 'kilo',
  envPrefix: 'KILO',
  pluginPackage: '@kilocode/plugin',
};

export function storeEnv(s: StoreCli, bin: string, home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    ...tempEnv(),
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    [`${s.envPrefix}_DISABLE_MODELS_FETCH`]: '1',
    [`${s.envPrefix}_DISABLE_AUTOUPDATE`]: '1',
    [`${s.envPrefix}_DISABLE_SHARE`]: '1',
    // Kilo's own services (a daemon, session ingest, indexing, LSP downloads): off, offline.
    [`${s.envPrefix}_NO_DAEMON`]: '1',
    [`${s.envPrefix}_DISABLE_SESSION_INGEST`]: '1',
    [`${s.envPrefix}_DISABLE_CODEBASE_INDEXING`]: '1',
    [`${s.envPrefix}_DISABLE_LSP_DOWNLOAD`]: '1',
    [`${s.envPrefix}_TELEMETRY_LEVEL`]: 'off',
    // Rewind's own: which CLI its fork and in-place rewinds ask (else the one on PATH).
    [`REWIND_${s.envPrefix}_BIN`]: bin,
    NO_COLOR: '1',
    CI: '1',
  };
}

export async function setupStore(s: StoreCli, home: string, project: string, apiUrl: string, opts: { git?: boolean } = {}): Promise<void> {
  const dir = join(home, '.config', s.command);
  await mkdir(dir, { recursive: true });
  const config = {
    provider: { fake: { npm: '@ai-sdk/openai-compatible', name: 'fake', options: { baseURL: `${apiUrl}/v1`, apiKey: 'x' }, models: { 'fake-model': { name: 'fake-model' } } } },
    model: 'fake/fake-model',
    small_model: 'fake/fake-model',
    autoupdate: false,
    share: 'disabled',
    permission: { edit: 'allow', bash: 'allow' },
  };
  await writeFile(join(dir, `${s.command}.json`), JSON.stringify(config, null, 2));
  // At every start the agent installs its plugin package with npm into each config folder (in its
  // own process, from the registry: measured with strace, 35 connections to it on a fresh home)
  // unless `node_modules` exists and the lock file lists it. Rewind's plugin imports nothing of it:
  // the folder is marked as installed, so the tests need no network and no npm work per run.
  await mkdir(join(dir, 'node_modules'), { recursive: true });
  const deps = { dependencies: { [s.pluginPackage]: s.cli.version } };
  await writeFile(join(dir, 'package.json'), JSON.stringify(deps));
  await writeFile(join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { '': deps } }));
  await mkdir(project, { recursive: true });
  if (opts.git === false) return;
  // A git project: the agent takes its file snapshots only in one.
  await writeFile(join(project, 'a.txt'), 'v0\n');
  const git = (...a: string[]) => execFileSync('git', a, { cwd: project, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'init');
}

/** One `run` (resuming `sessionId` when given): the session id it ran under, from its JSON events. */
export async function runStore(bin: string, env: NodeJS.ProcessEnv, project: string, sessionId: string | null, prompt: string): Promise<string> {
  const args = ['run', ...(sessionId ? ['-s', sessionId] : []), '--format', 'json', ...prompt.split(' ')];
  const r = await runCli([bin], args, { cwd: project, env, timeoutMs: 400_000 });
  if (r.code !== 0) throw new Error(`${bin} ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)} ${r.stdout.slice(-1000)}`);
  const id = /"sessionID":"(ses_[A-Za-z0-9]+)"/.exec(r.stdout)?.[1];
  if (!id) throw new Error(`no session id in the output of ${bin} ${args.join(' ')}: ${r.stdout.slice(-1000)} ${r.stderr.slice(-1000)}`);
  return id;
}

/**
 * The code suite's driver for an OpenCode-family CLI: the same offline home, a project that is not
 * a git repository (the suite compares whole trees, `.git` included; Rewind's checkpoints do not
 * need one), each prompt a `run -s ID` resuming the session.
 */
export function storeDriver(s: StoreCli, bin: string): Driver {
  return {
    env: (home) => storeEnv(s, bin, home),
    setup: (home, project, api) => setupStore(s, home, project, api.url, { git: false }),
    run: (home, project, _api, sessionId, prompt) => runStore(bin, storeEnv(s, bin, home), project, sessionId, prompt),
  };
}
