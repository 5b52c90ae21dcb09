import { Worker } from 'node:worker_threads';
import type { FileInput, IndexJob } from './index-file.js';

/** What a worker thread sends back for job `i`: its record, or why the file was skipped. */
export interface JobOutcome {
  i: number;
  rec?: FileInput;
  reason?: string;
}

export interface ParallelOptions {
  /** The worker entry (index-worker.ts as built); each worker indexes files like this thread does. */
  workerScript: string | URL;
  /** Threads in all, this one included. */
  threads: number;
  /** This thread claims files too (else it only gathers, and takes what the workers leave). */
  alsoHere?: boolean;
}

/**
 * Runs `jobs` on this thread (`local`) and `threads - 1` worker threads at once. Every thread claims
 * the next job from one shared counter, so a slow thread (or a busy core) takes fewer: put the
 * biggest jobs first. A job a worker did not report (it crashed or could not start) runs here.
 */
export async function runJobs(jobs: IndexJob[], opts: ParallelOptions, local: (i: number) => Promise<void>, onOutcome: (o: JobOutcome) => void): Promise<void> {
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const done = new Uint8Array(jobs.length);
  const finished: Promise<void>[] = [];
  const workers = opts.alsoHere ? opts.threads - 1 : opts.threads;
  for (let t = 0; t < workers; t++) {
    finished.push(
      new Promise<void>((resolve) => {
        // A larger young generation: the scan's short-lived objects die young instead of being copied.
        const w = new Worker(opts.workerScript, { workerData: { jobs, counter }, resourceLimits: { maxYoungGenerationSizeMb: 64 } });
        w.on('message', (m: JobOutcome | { end: true }) => {
          if ('end' in m) return resolve();
          if (done[m.i]) return;
          done[m.i] = 1;
          onOutcome(m);
        });
        w.on('error', () => resolve());
        w.on('exit', () => resolve());
      }),
    );
  }
  if (opts.alsoHere)
    await claimJobs(jobs, counter, async (i) => {
      await local(i);
      done[i] = 1;
    });
  await Promise.all(finished);
  for (let i = 0; i < jobs.length; i++) {
    if (done[i]) continue;
    await local(i);
    done[i] = 1;
  }
}

/** Files one thread has under way at once: while one waits for a read, the next is scanned. */
const PER_THREAD = 4;

/** Claims jobs from `counter` until none is left, a few at a time (every thread's loop). */
export async function claimJobs(jobs: IndexJob[], counter: Int32Array, run: (i: number) => Promise<void>): Promise<void> {
  const loop = async () => {
    for (let i = Atomics.add(counter, 0, 1); i < jobs.length; i = Atomics.add(counter, 0, 1)) await run(i);
  };
  await Promise.all(Array.from({ length: PER_THREAD }, loop));
}
