import { read } from 'node:fs';

/**
 * All of standard input, bounded: at most `maxBytes`, and given up after `waitMs` without its end.
 * An agent's hook must never hang on an input that never closes (a writer that keeps the pipe
 * open), and a synchronous read of fd 0 would block the whole process, timers included: the reads
 * go through the thread pool instead (no stream machinery to load, so a hook starts as fast). A
 * pipe opened non-blocking (EAGAIN) is read as a stream, under the same bounds.
 */
export class StdinAbandoned extends Error {}

/** Set once a read was given up: a read still pending in the thread pool keeps the process alive (bin.ts ends it). */
export let stdinAbandoned = false;

export function readStdinBounded(opts: { waitMs: number; maxBytes: number }): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (e: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (e) {
        stdinAbandoned = true;
        reject(e);
      } else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(() => finish(new StdinAbandoned(`its input did not end within ${Math.round(opts.waitMs / 1000)} s`)), opts.waitMs);
    const take = (chunk: Buffer): boolean => {
      size += chunk.length;
      if (size > opts.maxBytes) {
        finish(new StdinAbandoned(`its input is over ${opts.maxBytes} bytes`));
        return false;
      }
      chunks.push(chunk);
      return true;
    };
    const asStream = () => {
      process.stdin.on('data', (c: Buffer) => {
        if (!take(c)) process.stdin.destroy();
      });
      process.stdin.on('end', () => finish(null));
      process.stdin.on('error', (e) => finish(e));
    };
    const next = () => {
      const buf = Buffer.allocUnsafe(64 * 1024);
      read(0, buf, 0, buf.length, null, (err, n) => {
        if (settled) return;
        if (err) return err.code === 'EAGAIN' ? asStream() : err.code === 'EOF' ? finish(null) : finish(err);
        if (n === 0) return finish(null);
        if (take(buf.subarray(0, n))) next();
      });
    };
    next();
  });
}
