import { readFileSync, realpathSync } from 'node:fs';
import { readStdinBounded } from './read-stdin.js';

/** Where a command writes: injectable so tests and the app's forwarder can capture output. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** All of standard input; `bounds`: given up (an error) past that many bytes or that long without its end. */
  stdin?: (bounds?: { waitMs: number; maxBytes: number }) => Promise<string>;
  /** How to run this CLI again from anywhere (for the hooks we install): absolute paths. */
  self?: { node: string; script: string };
  /** Set when the app itself runs a forwarded command: never forward again. */
  inApp?: boolean;
  /** Output goes to a terminal (JSON is then indented for a person to read). */
  tty?: boolean;
  /** Writes bytes as they are (a big document made as UTF-8 need not become a string first). */
  outBytes?(bytes: Buffer): void;
  /** The same on standard error (a remote's stderr passed through). */
  errBytes?(bytes: Buffer): void;
}

/** `bytes` on standard output: as they are where the IO can, else as text. */
export function outBytes(io: CliIO, bytes: Buffer): void {
  if (io.outBytes) io.outBytes(bytes);
  else io.out(bytes.toString('utf8'));
}

/** `bytes` on standard error: as they are where the IO can, else as text. */
export function errBytes(io: CliIO, bytes: Buffer): void {
  if (io.errBytes) io.errBytes(bytes);
  else io.err(bytes.toString('utf8'));
}

/**
 * A command's --json document: indented on a terminal, compact into a pipe or a file (what a
 * program reads; megabytes of indentation cost a big list more than its own making).
 */
export function jsonText(io: CliIO, value: unknown): string {
  return io.tty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

export function processIO(): CliIO {
  return {
    out: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
    outBytes: (b) => process.stdout.write(b),
    errBytes: (b) => process.stderr.write(b),
    env: process.env,
    cwd: process.cwd(),
    tty: process.stdout.isTTY === true,
    self: { node: process.execPath, script: realScript() },
    stdin: async (bounds) => {
      if (bounds) return readStdinBounded(bounds);
      // A plain read is faster to start than process.stdin (no stream machinery), and hooks run on
      // every tool call; a non-blocking pipe (EAGAIN) falls back to the stream.
      try {
        return readFileSync(0, 'utf8');
      } catch {
        const chunks: Buffer[] = [];
        for await (const c of process.stdin) chunks.push(c as Buffer);
        return Buffer.concat(chunks).toString('utf8');
      }
    },
  };
}

function realScript(): string {
  const p = process.argv[1] ?? '';
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

export function relTime(iso: string | null, now = Date.now()): string {
  if (!iso) return '-';
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '-';
  const s = Math.round((now - t) / 1000);
  if (s < 60) return `${Math.max(s, 0)}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.round(h / 24)}d ago`;
}

export function truncate(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

export function tildify(p: string | null, env: NodeJS.ProcessEnv): string {
  if (!p) return '-';
  const home = env.HOME;
  return home && p.startsWith(`${home}/`) ? `~${p.slice(home.length)}` : p;
}
