import { Worker } from 'node:worker_threads';
import type { FileInput, IndexJob } from './index-file.js';
import { encodeJson, type FileMeta } from './segment.js';

/** What stands for a record's meta once it travels as JSON (encodeSegment uses the JSON). */
const NO_META: FileMeta = { prompts: [], recent: {}, leaf: null };

/** What a worker thread sends back for job `i`: its record, or why the file was skipped. */
export interface JobOutcome {
  i: number;
  rec?: FileInput;
  reason?: string;
}

/** A worker's records in one message: every prompt in two buffers (moved, not copied), each record's part named by offsets. */
export interface OutcomeBatch {
  outcomes: (Omit<JobOutcome, 'rec'> & { rec?: Omit<FileInput, 'packed'> & { packed: { fa: number; ta: number; foldLens: number[]; textLens: number[] } } })[];
  folded: ArrayBuffer;
  texts: ArrayBuffer;
}

export function packOutcomes(outcomes: JobOutcome[]): OutcomeBatch {
  const recs = outcomes.flatMap((o) => (o.rec ? [o.rec] : []));
  const folded = new Uint8Array(recs.reduce((a, r) => a + r.packed.folded.length, 0));
  const texts = new Uint8Array(recs.reduce((a, r) => a + r.packed.texts.length, 0));
  let fa = 0;
  let ta = 0;
  const out: OutcomeBatch['outcomes'] = outcomes.map((o) => {
    if (!o.rec) return { i: o.i, reason: o.reason };
    const { packed, ...rest } = o.rec;
    folded.set(packed.folded, fa);
    texts.set(packed.texts, ta);
    // The meta travels as its JSON only (made here, on the worker): the object is not cloned too.
    const json = rest.json ?? encodeJson(rest.meta, rest.summary);
    const m = { i: o.i, rec: { ...rest, meta: NO_META, json, packed: { fa, ta, foldLens: packed.foldLens, textLens: packed.textLens } } };
    fa += packed.folded.length;
    ta += packed.texts.length;
    return m;
  });
  return { outcomes: out, folded: folded.buffer, texts: texts.buffer };
}

function unpackOutcomes(b: OutcomeBatch): JobOutcome[] {
  const sum = (l: number[]) => l.reduce((a, x) => a + x, 0);
  return b.outcomes.map((o) => {
    if (!o.rec) return { i: o.i, reason: o.reason };
    const { fa, ta, foldLens, textLens } = o.rec.packed;
    const packed = { folded: new Uint8Array(b.folded, fa, sum(foldLens)), texts: new Uint8Array(b.texts, ta, sum(textLens)), foldLens, textLens };
    return { i: o.i, rec: { ...o.rec, packed } };
  });
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

/**
 * Runs `jobs` on this thread (`local`) and `threads - 1` worker threads at once. Every thread claims
 * the next job from one shared counter, so a slow thread (or a busy core) takes fewer: put the
 * biggest jobs first. A job a worker did not report (it crashed or could not start) runs here.
 */
export async function runJobs(jobs: IndexJob[], opts: ParallelOptions, local: (i: number) => Promise<void>, onOutcome: (o: JobOutcome) => void, onProgress: (i: number) => void): Promise<void> {
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const done = new Uint8Array(jobs.length);
  const finished: Promise<void>[] = [];
  const workers = opts.alsoHere ? opts.threads - 1 : opts.threads;
  for (let t = 0; t < workers; t++) {
    finished.push(
      new Promise<void>((resolve) => {
        // A larger young generation: the scan's short-lived objects die young instead of being copied.
        const w = new Worker(opts.workerScript, { workerData: { jobs, counter }, resourceLimits: { maxYoungGenerationSizeMb: 64 } });
        w.on('message', (m: { done: number[]; batch?: OutcomeBatch }) => {
          for (const i of m.done) onProgress(i);
          if (!m.batch) return;
          for (const o of unpackOutcomes(m.batch)) {
            if (done[o.i]) continue;
            done[o.i] = 1;
            onOutcome(o);
          }
          resolve();
        });
        w.on('error', () => resolve());
        w.on('exit', () => setImmediate(resolve));
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
