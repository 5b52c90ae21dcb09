// The README's install promises: `npm ci` never downloads the desktop runtime (so it works where that
// host is out of reach), `npm start` falls back to browser mode in one line, CI runs the README's
// commands as they are, the packaging config is valid, and the npm tarball installs a working CLI.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, utimes } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, LINEAR, ROOT, copyClaudeHome, inCopy, tempDir } from '../../test/fixtures.js';

const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const running: ChildProcess[] = [];
// Each child runs in its own process group (POSIX): `start.mjs` runs the CLI under spawnSync, and
// killing only start.mjs left that CLI serving after the test.
const GROUP = process.platform !== 'win32';
/** Is any process of the child's group (or the child itself) still running? */
function alive(c: ChildProcess): boolean {
  if (!GROUP || !c.pid) return c.exitCode === null && c.signalCode === null;
  try {
    process.kill(-c.pid, 0);
    return true;
  } catch {
    return false;
  }
}
// Stopped, then waited for: the app removes its demo copy on the way out, before the file's temp dirs go.
afterEach(async () => {
  const children = running.splice(0);
  for (const c of children) {
    try {
      if (GROUP && c.pid) process.kill(-c.pid, 'SIGTERM');
      else c.kill('SIGTERM');
    } catch {
      c.kill('SIGTERM');
    }
  }
  for (const deadline = Date.now() + 10_000; children.some(alive) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
});

describe('install', () => {
  it('.ci/run runs the README commands verbatim and hides nothing from them', () => {
    const ci = read('.ci/run');
    const readme = read('README.md');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    for (const hidden of ['ELECTRON_SKIP_BINARY_DOWNLOAD', 'ignore-scripts', 'allow-scripts', 'ELECTRON_OVERRIDE_DIST_PATH', 'npm_config_', 'REWIND_ALLOW_CONFORMANCE_SKIP', 'REWIND_CHROMIUM', 'REWIND_CACHE_DIR', 'XDG_CACHE_HOME']) expect(ci).not.toContain(hidden);
    expect(ci).toMatch(/^npm ci && npm test\b/m);
    // As a new user: an empty HOME and TMPDIR, and TMPDIR checked empty afterwards.
    expect(ci).toMatch(/^export HOME="\$fresh_home" TMPDIR="\$fresh_tmp"$/m);
    expect(ci).toMatch(/ls -A "\$TMPDIR"/);
  });

  it('the install never runs electron\'s download, by the project\'s own policy (not a variable)', () => {
    const pkg = JSON.parse(read('package.json')) as { allowScripts: Record<string, boolean>; devDependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.devDependencies.electron).toBeTruthy();
    expect(pkg.allowScripts.electron).toBe(false);
    if (existsSync(join(ROOT, '.npmrc'))) expect(read('.npmrc')).not.toMatch(/dangerously-allow-all-scripts|allow-scripts/);
    expect(pkg.scripts.prepack).toBe('npm run build');
  });
});

/** Runs `npm start -- --demo` until it prints its URL; returns what it said by then. */
async function startUntilUrl(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.mjs'), '--demo'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: GROUP });
  running.push(child);
  let stdout = '';
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL in 30 s: ${stdout}${stderr}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (/http:\/\/127\.0\.0\.1:\d+\/\?token=/.test(stdout)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${stdout}${stderr}`)));
  });
  return { child, stdout, stderr };
}
describe('npm start without a desktop runtime', () => {
  beforeAll(() => {
    if (!existsSync(BUILT_CLI)) throw new Error('build first (npm run build)');
  });
  const baseEnv = async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: await tempDir(), electron_config_cache: await tempDir(), REWIND_SOCKET: join(await tempDir(), 's.sock') };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    delete env.ELECTRON_OVERRIDE_DIST_PATH;
    return env;
  };

  it.skipIf(process.platform !== 'linux')('with no display: one line says why, then browser mode with its URL', async () => {
    const { stdout, stderr } = await startUntilUrl(await baseEnv());
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^The desktop window is not available: there is no display .*\. Opening Rewind in browser mode instead\.$/);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stdout).toMatch(/^Rewind is running at http:\/\/127\.0\.0\.1:\d+\/\?token=\w+/m);
  });

  it('when the runtime cannot be fetched: a progress line, the reason in one line, then browser mode', async () => {
    // A mirror nobody listens on: the fetch fails here as it does on a machine without internet.
    const env = { ...(await baseEnv()), DISPLAY: ':99', ELECTRON_MIRROR: 'http://127.0.0.1:9/' };
    const { stdout, stderr } = await startUntilUrl(env);
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^Fetching the Electron [\d.]+ runtime for the desktop window/);
    expect(lines[1]).toMatch(/^The desktop window is not available: fetching the Electron [\d.]+ runtime failed \(.*ECONNREFUSED.*\)\. Opening Rewind in browser mode instead\.$/);
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stdout).toMatch(/Rewind is running at http:\/\/127\.0\.0\.1:\d+\//);
  });
});

describe('packaging', () => {
  const builder = createRequire(join(ROOT, 'package.json'))('app-builder-lib/out/util/config/config.js') as {
    getConfig(dir: string, file: string | null): Promise<Record<string, unknown>>;
    validateConfiguration(cfg: Record<string, unknown>, log: { isEnabled: boolean; add(): void }): Promise<void>;
  };
  const log = { isEnabled: false, add() {} };

  it('the electron-builder config passes electron-builder\'s own schema and names every platform', async () => {
    const cfg = await builder.getConfig(ROOT, null);
    await builder.validateConfiguration(cfg, log);
    const c = cfg as { appId: string; productName: string; linux: { target: string[]; desktop: { entry: { Categories: string } } }; mac: { target: string }; win: { target: string } };
    expect(c.appId).toMatch(/^[a-z]+(\.[a-z]+)+$/);
    expect(c.productName).toBe('Rewind');
    expect(c.linux.target).toEqual(['AppImage', 'deb']);
    expect(c.linux.desktop.entry.Categories).toContain('Development');
    expect(c.mac.target).toBe('dmg');
    expect(c.win.target).toBe('nsis');
  });

  it('a typo in the config is caught', async () => {
    const cfg = { ...(await builder.getConfig(ROOT, null)), linx: { target: ['deb'] } };
    await expect(builder.validateConfiguration(cfg, log)).rejects.toThrow(/linx/);
  });

  it('icons: a 1024 px source and each platform\'s format', () => {
    const png = readFileSync(join(ROOT, 'resources', 'icons', 'icon.png'));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1024, 1024]);
    expect(readFileSync(join(ROOT, 'resources', 'icons', 'icon.icns')).subarray(0, 4).toString()).toBe('icns');
    expect(readFileSync(join(ROOT, 'resources', 'icons', 'icon.ico')).readUInt16LE(2)).toBe(1);
    for (const s of ['rewind-app', 'rewind-app.cmd']) expect(existsSync(join(ROOT, 'resources', 'bin', s))).toBe(true);
  });
});

describe('the npm package', () => {
  beforeAll(() => {
    if (!existsSync(BUILT_CLI)) throw new Error('build first (npm run build)');
  });

  it('packs the built app and CLI only, and installs a rewind-app that works from any directory', async () => {
    const dir = await tempDir();
    // The build ran already (npm test builds first); prepack would only build it again.
    const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' });
    expect(pack.status, pack.stderr).toBe(0);
    const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>;
    const files = info!.files.map((f) => f.path);
    expect(files).toContain('out/cli/rewind-app.mjs');
    expect(files).toContain('out/renderer/index.html');
    expect(files.some((f) => f.startsWith('out/main/'))).toBe(true);
    expect(files.filter((f) => /^(test|bench|e2e|src|scripts)\//.test(f) || f.endsWith('.map'))).toEqual([]);

    const prefix = join(dir, 'prefix');
    const inst = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', join(dir, info!.filename)], { cwd: dir, encoding: 'utf8' });
    expect(inst.status, inst.stderr).toBe(0);
    const bin = join(prefix, process.platform === 'win32' ? 'rewind-app.cmd' : join('bin', 'rewind-app'));
    const elsewhere = await tempDir();
    const claude = await copyClaudeHome();
    const linear = inCopy(claude, LINEAR);
    const past = new Date(Date.now() - 3600_000);
    await utimes(linear, past, past);
    const project = join(elsewhere, 'project');
    await mkdir(project);
    const env = { ...process.env, CLAUDE_CONFIG_DIR: claude, HOME: elsewhere, REWIND_NO_FORWARD: '1' };
    const run = (args: string[]) => spawnSync(bin, args, { cwd: elsewhere, env, encoding: 'utf8' });

    const version = run(['--version']);
    expect(version.stdout.trim()).toBe((JSON.parse(read('package.json')) as { version: string }).version);
    const sessions = run(['sessions', '--json']);
    expect(sessions.status, sessions.stderr).toBe(0);
    expect((JSON.parse(sessions.stdout) as { sessions: unknown[] }).sessions.length).toBe(3);
    const timeline = run(['timeline', linear]);
    expect(timeline.status, timeline.stderr).toBe(0);
    expect(timeline.stdout).toContain('WRITE a.txt version two');
    const back = run(['back', '1', '--dry-run', '--transcript', linear, '--project', project]);
    expect(back.status, back.stderr).toBe(0);

    // `rewind-app` alone, with no desktop runtime in a plain npm install: browser mode.
    const child = spawn(bin, [], { cwd: elsewhere, env: { ...env, DISPLAY: ':99', REWIND_SOCKET: join(elsewhere, 's.sock') }, stdio: ['ignore', 'pipe', 'pipe'], detached: GROUP });
    running.push(child);
    const said = await new Promise<string>((resolve, reject) => {
      let all = '';
      const timer = setTimeout(() => reject(new Error(`no URL: ${all}`)), 20_000);
      const on = (d: Buffer) => {
        all += d.toString();
        if (/Rewind is running at http/.test(all)) {
          clearTimeout(timer);
          resolve(all);
        }
      };
      child.stdout!.on('data', on);
      child.stderr!.on('data', on);
    });
    expect(said).toMatch(/The desktop window is not available: this install has no desktop runtime/);
  });
});
