import { parentPort } from 'node:worker_threads';
import { describeError } from '../../engine/errors.js';
import { ENGINE_OPS, type OpName } from './engine-ops.js';

// Worker entry: runs engine operations off the main thread; errors cross as {code, message}.
parentPort?.on('message', (m: { id: number; op: OpName; args: unknown }) => {
  void (async () => {
    try {
      const value = await (ENGINE_OPS[m.op] as (a: unknown) => Promise<unknown>)(m.args);
      parentPort!.postMessage({ id: m.id, ok: true, value });
    } catch (e) {
      parentPort!.postMessage({ id: m.id, ok: false, error: describeError(e) });
    }
  })();
});
