import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { CallFrameSchema, MAX_FRAME_BYTES, REMOTE_PROTOCOL, type ServerFrame } from '../../shared/remote-protocol.js';
import type { RewindService } from '../service/rewind-service.js';

/**
 * The service over a pipe (`serve --stdio`, what `ssh host rewind-app serve --stdio` runs): each
 * line in is a call, validated as a frame here and as a request by the service, exactly as the HTTP
 * door does; each line out is a hello, a result or an event. Ends when its input ends.
 */
export function startStdioDoor(service: RewindService, io: { input: Readable; output: Writable; version: string; hostname?: string }): Promise<void> {
  const send = (f: ServerFrame) => io.output.write(`${JSON.stringify(f)}\n`);
  send({ t: 'hello', protocol: REMOTE_PROTOCOL, version: io.version, hostname: io.hostname });
  const off = service.onEvent((event) => send({ t: 'event', event }));
  const lines = createInterface({ input: io.input, crlfDelay: Infinity });
  const pending = new Set<Promise<void>>();
  lines.on('line', (line) => {
    if (!line.trim()) return;
    if (line.length > MAX_FRAME_BYTES) return;
    let frame;
    try {
      frame = CallFrameSchema.safeParse(JSON.parse(line));
    } catch {
      frame = null;
    }
    if (!frame?.success) {
      // No id to answer to: say it as an event-free result 0 so the peer can log it.
      send({ t: 'result', id: 0, result: { ok: false, error: { code: 'INVALID_REQUEST', message: 'not a call frame' } } });
      return;
    }
    const { id, op, payload } = frame.data;
    const p = service.handle(op, payload).then((result) => {
      send({ t: 'result', id, result });
    });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  });
  return new Promise((resolve) => {
    lines.once('close', () => {
      off();
      void Promise.allSettled([...pending]).then(() => resolve());
    });
  });
}
