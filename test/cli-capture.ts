import type { CliIO } from '../src/cli/io.js';
import { run } from '../src/cli/main.js';

export interface Captured {
  code: number;
  out: string;
  err: string;
}

export interface CaptureOptions {
  /** Over HOME=/nonexistent-home: no test reads the real home by accident. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** What standard input holds (none: the command has no stdin). */
  stdin?: string;
  /** As if installed at a fixed place (the hooks a command writes name it). */
  installed?: boolean;
  tty?: boolean;
}

/** Runs the CLI in this process with its output captured, a line a call. */
export async function captureCli(argv: string[], opts: CaptureOptions = {}): Promise<Captured> {
  let out = '';
  let err = '';
  const line = (t: string) => (t.endsWith('\n') ? t : `${t}\n`);
  const io: CliIO = {
    out: (t) => (out += line(t)),
    err: (t) => (err += line(t)),
    env: { HOME: '/nonexistent-home', ...opts.env },
    cwd: opts.cwd ?? '/',
    tty: opts.tty,
  };
  if (opts.stdin !== undefined) io.stdin = async () => opts.stdin!;
  if (opts.installed) io.self = { node: '/usr/bin/node', script: '/opt/rewind/out/cli/rewind-app.mjs' };
  return { code: await run(argv, io), out, err };
}
