import { parentPort, workerData } from 'node:worker_threads';
import { adapterFor } from '../agents/registry.js';
import { indexFile, skipReason, type IndexJob } from './index-file.js';
import { claimJobs, type JobOutcome } from './parallel.js';

// Worker entry of a parallel index build (parallel.ts): index the files this thread claims, send each record.
const { jobs, counter } = workerData as { jobs: IndexJob[]; counter: Int32Array };
await claimJobs(jobs, counter, async (i) => {
  let m: JobOutcome;
  try {
    m = { i, rec: await indexFile(adapterFor(jobs[i]!.agent), jobs[i]!) };
  } catch (e) {
    m = { i, reason: skipReason(e) };
  }
  // The packed prompts move to the main thread without a copy.
  parentPort!.postMessage(m, m.rec ? [m.rec.packed.folded.buffer as ArrayBuffer, m.rec.packed.texts.buffer as ArrayBuffer] : []);
});
parentPort!.postMessage({ end: true });
