import { Worker } from 'node:worker_threads';
import { RewindError, type ErrorCode } from '../../engine/errors.js';
import { ENGINE_OPS, type OpArgs, type OpName, type OpResult } from './engine-ops.js';

export interface TaskRunner {
  run<K extends OpName>(op: K, args: OpArgs<K>): Promise<OpResult<K>>;
  close(): Promise<void>;
  readonly offThread: boolean;
  /** Starts the worker ahead of its first task. */
  warm?(): void;
}

/** Runs on the calling thread (tests, or when no worker script is built). */
export class InlineRunner implements TaskRunner {
  readonly offThread = false;
  run<K extends OpName>(op: K, args: OpArgs<K>): Promise<OpResult<K>> {
    return (ENGINE_OPS[op] as (a: OpArgs<K>) => Promise<OpResult<K>>)(args);
  }
  async close(): Promise<void> {}
}

/** One worker thread for the engine's long work; restarted if it dies. */
export class WorkerRunner implements TaskRunner {
  readonly offThread = true;
  private worker: Worker | null = null;
  private next = 0;
  private pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();

  constructor(
    private readonly script: string,
    private readonly execArgv: string[] = [],
  ) {}

  private get w(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(this.script, { execArgv: this.execArgv });
    w.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: { code: string; message: string } }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.value);
      else p.reject(new RewindError(m.error!.code as ErrorCode, m.error!.message));
    });
    const fail = (e: unknown) => {
      for (const p of this.pending.values()) p.reject(e instanceof Error ? e : new RewindError('INTERNAL', 'the engine worker stopped'));
      this.pending.clear();
      this.worker = null;
    };
    w.on('error', fail);
    w.on('exit', () => fail(new RewindError('INTERNAL', 'the engine worker stopped')));
    w.unref();
    this.worker = w;
    return w;
  }

  warm(): void {
    void this.w;
  }

  run<K extends OpName>(op: K, args: OpArgs<K>): Promise<OpResult<K>> {
    return new Promise((resolve, reject) => {
      const id = ++this.next;
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.w.postMessage({ id, op, args });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}
