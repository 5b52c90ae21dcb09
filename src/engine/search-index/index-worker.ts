import { parentPort, workerData } from 'node:worker_threads';
import { adapterFor } from '../agents/registry.js';
import { indexFile, skipReason, type IndexJob } from './index-file.js';
import { claimJobs, packOutcomes, type JobOutcome } from './parallel.js';

// Worker entry of a parallel index build (parallel.ts): index the files this thread claims; say
// which are done as it goes (progress), and send every record at the end in one message.
const { jobs, counter } = workerData as { jobs: IndexJob[]; counter: Int32Array };
const outcomes: JobOutcome[] = [];
let done: number[] = [];
let flushed = Date.now();
await claimJobs(jobs, counter, async (i) => {
  try {
    outcomes.push({ i, rec: await indexFile(adapterFor(jobs[i]!.agent), jobs[i]!) });
  } catch (e) {
    outcomes.push({ i, reason: skipReason(e) });
  }
  done.push(i);
  if (Date.now() - flushed > 100) {
    parentPort!.postMessage({ done });
    done = [];
    flushed = Date.now();
  }
});
const batch = packOutcomes(outcomes);
parentPort!.postMessage({ done, batch }, [batch.folded, batch.texts]);
