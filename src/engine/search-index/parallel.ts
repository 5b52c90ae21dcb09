import type { Worker } from 'node:worker_threads';
import type { FileInput, IndexJob } from './index-file.js';

/** What the caller learns of a job a worker did: where its record's bytes are, or why the file was skipped. */
export interface JobOutcome {
  i: number;
  rec?: Pick<FileInput, 'mode' | 'from' | 'indexedTo'>;
  reason?: string;
}

/** A worker's last message: the jobs it did, and the segment file it wrote their records to. */
export interface WorkerReport {
  done: number[];
  outcomes?: JobOutcome[];
  /** The segment's name in the index folder (absent: no record, or it could not be written). */
  segment?: string;
}

/** What a worker is given: the jobs, the shared counter, and where to write its segment. */
export interface WorkerTask {
  jobs: IndexJob[];
  counter: Int32Array;
  dir: string;
  segment: string;
}

export interface ParallelOptions {
  /** The worker entry (index-worker.ts as built); each worker indexes files like this thread does. */
  workerScript: string | URL;
  /** Threads in all, this one included. */
  threads: number;
  /** Split only when at least this much is to be read (default 64 MiB: below, starting workers costs more than it saves). */
  minBytes?: number;
  /** This thread claims files too (else it only gathers, and takes what the workers leave). */
  alsoHere?: boolean;
}

/** A worker thread started before its jobs are known: it waits for its task (a cold build starts it while listing). */
export interface StartedWorker {
  worker: Worker;
  /** Resolves when the thread has ended (also when it could not start). */
  exited: Promise<void>;
}

/** Starts the worker threads of a parallel build ahead of their task (runJobs sends it). */
export function startWorkers(opts: ParallelOptions): StartedWorker[] {
  const n = opts.alsoHere ? opts.threads - 1 : opts.threads;
  return Array.from({ length: Math.max(0, n) }, () => {
    // A larger young generation: the scan's short-lived objects die young instead of being copied.
    // Loaded by a build that starts threads, not by every search.
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    const worker = new Worker(opts.workerScript, { resourceLimits: { maxYoungGenerationSizeMb: 64 } });
    // An error before runJobs listens must not be thrown: the thread's jobs are then done here.
    worker.on('error', () => undefined);
    return { worker, exited: new Promise<void>((resolve) => worker.once('exit', () => resolve())) };
  });
}

/** Ends threads that were started but are not needed after all. */
export function stopWorkers(started: StartedWorker[]): void {
  for (const { worker } of started) void worker.terminate();
}

/**
 * Runs `jobs` on this thread (`local`) and `threads - 1` worker threads at once. Every thread claims
 * the next job from one shared counter, so a slow thread (or a busy core) takes fewer: put the
 * biggest jobs first. Each worker writes the records it made into a segment of its own in `dir`
 * (named by `segmentName(t)`, so the caller orders them): encoding and writing are split too, and
 * no record crosses between threads. A job a worker did not report (it crashed, could not start or
 * could not write) runs here, after `afterLocal`. Resolves to the segments the workers wrote.
 */
export async function runJobs(
  jobs: IndexJob[],
  opts: ParallelOptions & { dir: string; segmentName: (t: number) => string; afterLocal?: () => Promise<void>; started?: StartedWorker[] },
  local: (i: number) => Promise<void>,
  onOutcome: (o: JobOutcome) => void,
  onProgress: (i: number) => void,
): Promise<string[]> {
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const done = new Uint8Array(jobs.length);
  const finished: Promise<void>[] = [];
  const segments: string[] = [];
  const threads = opts.started ?? startWorkers(opts);
  threads.forEach(({ worker: w, exited }, t) => {
    finished.push(
      new Promise<void>((resolve) => {
        w.postMessage({ jobs, counter, dir: opts.dir, segment: opts.segmentName(t) } satisfies WorkerTask);
        w.on('message', (m: WorkerReport) => {
          for (const i of m.done) onProgress(i);
          if (!m.outcomes) return;
          if (m.segment) segments.push(m.segment);
          for (const o of m.outcomes) {
            if (done[o.i]) continue;
            done[o.i] = 1;
            onOutcome(o);
          }
          resolve();
        });
        w.on('error', () => resolve());
        void exited.then(() => setImmediate(resolve));
      }),
    );
  });
  if (opts.alsoHere)
    await claimJobs(jobs, counter, async (i) => {
      await local(i);
      done[i] = 1;
    });
  // This thread's own work once it has no more files to claim (its segment), while the workers finish.
  await opts.afterLocal?.();
  await Promise.all(finished);
  for (let i = 0; i < jobs.length; i++) {
    if (done[i]) continue;
    await local(i);
    done[i] = 1;
  }
  return segments;
}

/**
 * Files one thread has under way at once: a file's scan is synchronous, but while one waits for its
 * summary (an adapter's own reads), the next is scanned (1 instead of 4 measured the same on Claude's).
 */
const PER_THREAD = 4;

/** Claims jobs from `counter` until none is left, a few at a time (every thread's loop). */
export async function claimJobs(jobs: IndexJob[], counter: Int32Array, run: (i: number) => Promise<void>): Promise<void> {
  const loop = async () => {
    for (let i = Atomics.add(counter, 0, 1); i < jobs.length; i = Atomics.add(counter, 0, 1)) await run(i);
  };
  await Promise.all(Array.from({ length: PER_THREAD }, loop));
}
