import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { adapterFor } from '../agents/registry.js';
import { writeCacheFileAtomic } from '../io/atomic-write.js';
import { indexFile, skipReason, type FileInput } from './index-file.js';
import { claimJobs, type JobOutcome, type WorkerReport, type WorkerTask } from './parallel.js';
import { encodeSegmentParts } from './segment.js';

// Worker entry of a parallel index build (parallel.ts): index the files this thread claims, saying
// which are done as it goes (progress); then write their records as one segment of the index
// (named by the caller) and report what each job gave. No record crosses back to the caller.
// The task comes as the first message: the thread may be started before the files are listed.
const { jobs, counter, dir, segment } = await new Promise<WorkerTask>((resolve) => parentPort!.once('message', resolve));
const records: FileInput[] = [];
const outcomes: JobOutcome[] = [];
let done: number[] = [];
let flushed = Date.now();
await claimJobs(jobs, counter, async (i) => {
  try {
    const rec = await indexFile(adapterFor(jobs[i]!.agent), jobs[i]!);
    records.push(rec);
    outcomes.push({ i, rec: { mode: rec.mode, from: rec.from, indexedTo: rec.indexedTo } });
  } catch (e) {
    outcomes.push({ i, reason: skipReason(e) });
  }
  done.push(i);
  if (Date.now() - flushed > 100) {
    parentPort!.postMessage({ done } satisfies WorkerReport);
    done = [];
    flushed = Date.now();
  }
});
let report: WorkerReport = { done, outcomes };
if (records.length > 0) {
  try {
    await writeCacheFileAtomic(join(dir, segment), encodeSegmentParts({ files: records, base: false }).parts);
    report = { done, outcomes, segment };
  } catch {
    // Not written: the caller redoes these jobs itself (none is reported done).
    report = { done, outcomes: [] };
  }
}
parentPort!.postMessage(report);
