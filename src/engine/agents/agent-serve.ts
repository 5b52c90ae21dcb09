import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { RewindError } from '../errors.js';

/**
 * Asks an agent's own headless server (`opencode serve`, `kilo serve`) to change its store: the
 * agent writes its database with its own locking and transactions, so Rewind never writes a
 * SQLite file another process may hold (docs/agents.md says why and what it costs). The server is
 * started for the one call on 127.0.0.1 and stopped after it.
 */

export interface ServeSpec {
  /** The CLI on PATH ("opencode"); `envBin` in the environment names another. */
  command: string;
  envBin: string;
  /** The env variable that points the CLI at a store (`OPENCODE_DB`): set to the store Rewind read. */
  envDb: string;
  name: string;
}

export interface Served {
  /**
   * One request; `idempotent` ones are asked again (twice, a second apart) when the server fails
   * with a 5xx: measured with Kilo 7.7.7, an unrevert right after the server started failed now and
   * then with "Unexpected server error" while its snapshot refresh still ran, and went through when
   * asked again. A fork is never repeated (a second one would be a second fork).
   */
  call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, opts?: { idempotent?: boolean }): Promise<unknown>;
  stop(): void;
  /** Settles once the server's process has ended. */
  exited: Promise<void>;
}

const START_MS = 90_000;

/** Starts `<cli> serve` on a port it picks itself (it prints the address) in the session's folder. */
export async function startServe(spec: ServeSpec, db: string, cwd: string | null, env: NodeJS.ProcessEnv = process.env): Promise<Served> {
  const dir = cwd && (await stat(cwd).catch(() => null))?.isDirectory() ? cwd : null;
  if (!dir) throw new RewindError('NOT_FOUND', `the session's folder is gone (${cwd ?? 'none recorded'}): ${spec.name} needs it to rewrite the session`);
  const bin = env[spec.envBin] || spec.command;
  const child = spawn(bin, ['serve', '--hostname', '127.0.0.1', '--port', '0', '--pure'], {
    cwd: dir,
    env: { ...env, [spec.envDb]: db },
    stdio: ['ignore', 'pipe', 'pipe'],
    windowsHide: true,
  });
  const exited = new Promise<void>((resolve) => {
    child.on('exit', () => resolve());
    child.on('error', () => resolve());
  });
  const stop = () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  };
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => done(new RewindError('UNSUPPORTED', `${spec.name}'s server did not start within ${START_MS / 1000}s (${bin} serve)`)), START_MS);
    const done = (e: Error | null, u?: string) => {
      clearTimeout(timer);
      child.stdout.removeAllListeners('data');
      if (e) {
        stop();
        reject(e);
      } else resolve(u!);
    };
    const onData = (b: Buffer) => {
      out += b.toString('utf8');
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) done(null, m[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (e: NodeJS.ErrnoException) => done(new RewindError('UNSUPPORTED', e.code === 'ENOENT' ? `${spec.command} is not installed (or not on PATH): ${spec.name} rewrites its sessions itself` : `${bin} serve: ${e.message}`)));
    child.on('exit', (code) => done(new RewindError('UNSUPPORTED', `${bin} serve exited (${code}) before it listened: ${out.trim().split('\n').pop() ?? ''}`)));
  });
  const q = `directory=${encodeURIComponent(dir)}`;
  const once = async (method: string, path: string, body: unknown): Promise<unknown> => {
    const res = await fetch(`${url}${path}${path.includes('?') ? '&' : '?'}${q}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let v: unknown = null;
    try {
      v = text ? JSON.parse(text) : null;
    } catch {
      v = text;
    }
    if (!res.ok) {
      const msg = (v && typeof v === 'object' && 'message' in v ? String((v as { message: unknown }).message) : '') || (v && typeof v === 'object' && 'data' in v ? JSON.stringify((v as { data: unknown }).data) : String(text).slice(0, 200));
      const error = new RewindError('CONFLICT', `${spec.name} refused ${method} ${path}: ${msg}`);
      throw res.status >= 500 ? new ServerFailed(error) : error;
    }
    return v;
  };
  return {
    async call(method, path, body, opts) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await once(method, path, body);
        } catch (e) {
          if (!(e instanceof ServerFailed)) throw e;
          if (!opts?.idempotent) throw e.error;
          if (attempt >= 2) throw new IdempotentFailed(e.error);
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    },
    stop,
    exited,
  };
}

/** An idempotent request this server failed every time it was asked: a fresh server may take it. */
class IdempotentFailed extends RewindError {
  constructor(error: RewindError) {
    super(error.code, error.message);
  }
}

/** A 5xx answer: the request may be asked again when it is idempotent. */
class ServerFailed extends Error {
  constructor(readonly error: RewindError) {
    super(error.message);
  }
}

/**
 * Runs `f` against a server started for it, stopped afterwards whatever happens. An idempotent call
 * the server keeps failing with a 5xx is asked once more of a fresh server: Kilo, for one, bypasses
 * its snapshots of a folder for the rest of a server's life once a snapshot took over 10 s (a busy
 * machine), and its unrevert then fails ("Unexpected server error") however often it is asked.
 * (Its own KILO_SNAPSHOT_TRACK_TIMEOUT_MS made the unrevert wait 58 s instead of 0.5 s: not used.)
 */
export async function withServe<T>(spec: ServeSpec, db: string, cwd: string | null, f: (s: Served) => Promise<T>, env?: NodeJS.ProcessEnv): Promise<T> {
  for (let server = 0; ; server++) {
    const s = await startServe(spec, db, cwd, env);
    try {
      return await f(s);
    } catch (e) {
      if (!(e instanceof IdempotentFailed) || server >= 1) throw e;
    } finally {
      s.stop();
    }
    // The next server opens the same store: this one has let go of it first (bounded).
    await Promise.race([s.exited, new Promise((r) => setTimeout(r, 5000))]);
  }
}
