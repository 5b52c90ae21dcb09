import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// The `electron` package is installed without its install script (package.json `allowScripts`), so
// `npm ci` never downloads the ~100 MB runtime and never fails where that host is out of reach. The
// runtime is fetched here, the first time the desktop window is wanted, with electron's own
// downloader (@electron/get, a dependency of the package) and its own checksums and installer.

export type ElectronRuntime =
  | { kind: 'ready'; path: string }
  /** The package is here, the runtime is not: it can be fetched. */
  | { kind: 'fetchable'; version: string; packageDir: string }
  | { kind: 'absent'; reason: string };

const require = createRequire(import.meta.url);

function packageDir(): string | null {
  try {
    return dirname(require.resolve('electron/package.json'));
  } catch {
    return null;
  }
}

/** What this install has of the desktop runtime. Reads a few small files; never fetches. */
export function electronRuntime(): ElectronRuntime {
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = join(process.env.ELECTRON_OVERRIDE_DIST_PATH, platformBinary());
    return existsSync(p) ? { kind: 'ready', path: p } : { kind: 'absent', reason: `no Electron runtime at ${p}` };
  }
  const dir = packageDir();
  if (!dir) return { kind: 'absent', reason: 'this install has no desktop runtime (the electron package is not installed)' };
  const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  try {
    const rel = readFileSync(join(dir, 'path.txt'), 'utf8');
    const installed = readFileSync(join(dir, 'dist', 'version'), 'utf8').replace(/^v/, '').trim();
    const path = join(dir, 'dist', rel);
    if (installed === version && existsSync(path)) return { kind: 'ready', path };
  } catch {
    // not fetched yet
  }
  return { kind: 'fetchable', version, packageDir: dir };
}

function platformBinary(): string {
  if (process.platform === 'darwin') return 'Electron.app/Contents/MacOS/Electron';
  return process.platform === 'win32' ? 'electron.exe' : 'electron';
}

interface Progress {
  percent: number;
}
interface ElectronGet {
  downloadArtifact(opts: Record<string, unknown>): Promise<string>;
}

/**
 * Fetches the runtime into electron's cache, then lets electron's own installer unpack it from
 * there (the same files and checksums as an install-time download). Progress goes to `say` in
 * steps of 10%. Resolves to the runtime, or to the one-line reason it could not be had.
 */
export async function fetchElectron(rt: { version: string; packageDir: string }, say: (line: string) => void): Promise<{ path: string } | { reason: string }> {
  let get: ElectronGet;
  try {
    get = createRequire(join(rt.packageDir, 'package.json'))('@electron/get') as ElectronGet;
  } catch (e) {
    return { reason: `electron's downloader is missing (${firstLine(e)})` };
  }
  say(`Fetching the Electron ${rt.version} runtime for the desktop window (one time, about 100 MB)…`);
  let shown = 0;
  // @electron/get draws its own progress bar after 30 s unless told not to.
  process.env.ELECTRON_GET_NO_PROGRESS = '1';
  try {
    await get.downloadArtifact({
      version: rt.version,
      artifactName: 'electron',
      // the same cache electron's installer reads, so it unpacks what we fetched
      cacheRoot: process.env.electron_config_cache,
      platform: process.platform,
      arch: process.arch,
      checksums: JSON.parse(readFileSync(join(rt.packageDir, 'checksums.json'), 'utf8')) as Record<string, string>,
      downloadOptions: {
        quiet: true,
        timeout: { connect: 20_000, socket: 60_000 },
        getProgressCallback: (p: Progress) => {
          const pct = Math.floor(p.percent * 10) * 10;
          if (pct > shown) {
            shown = pct;
            say(`  ${pct}%`);
          }
        },
      },
    });
  } catch (e) {
    return { reason: `fetching the Electron ${rt.version} runtime failed (${firstLine(e)})` };
  }
  const unpack = spawnSync(process.execPath, [join(rt.packageDir, 'install.js')], { cwd: rt.packageDir, encoding: 'utf8', env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '' } });
  const after = electronRuntime();
  if (unpack.status !== 0 || after.kind !== 'ready') return { reason: `unpacking the Electron ${rt.version} runtime failed (${(unpack.stderr || '').trim().split('\n').pop() || `exit ${unpack.status}`})` };
  return { path: after.path };
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0]!.trim();
}
