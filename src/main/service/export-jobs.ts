import type { RewindEvent } from '../../shared/contract.js';
import { RewindError } from '../../engine/errors.js';

/** How often an export says how far it got (a 3,000-prompt export reads for seconds). */
const PROGRESS_EVERY_MS = 150;

export interface ExportProgress {
  /** Turns read so far, of `total`. */
  done: number;
  total: number;
}

/**
 * Exports on their way, by the job id the window gave: Cancel aborts the job's signal, which the
 * exporter checks between turns (it stops reading, nothing is returned); progress goes out as
 * `operationProgress` events under `export-<job>`.
 */
export class ExportJobs {
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly emit: (e: RewindEvent) => void) {}

  async run<T>(job: string | undefined, work: (signal: AbortSignal, progress: (p: ExportProgress) => void) => Promise<T>): Promise<T> {
    const ctl = new AbortController();
    if (job) {
      if (this.running.has(job)) throw new RewindError('USAGE', `export job ${job} is already running`);
      this.running.set(job, ctl);
    }
    let last = 0;
    const progress = (p: ExportProgress) => {
      const now = Date.now();
      if (!job || (now - last < PROGRESS_EVERY_MS && p.done < p.total)) return;
      last = now;
      this.emit({ type: 'operationProgress', id: `export-${job}`, message: `Read ${p.done.toLocaleString('en-US')} of ${p.total.toLocaleString('en-US')} turns`, fraction: p.total ? p.done / p.total : null });
    };
    try {
      return await work(ctl.signal, progress);
    } finally {
      if (job) this.running.delete(job);
    }
  }

  /** Stops a running export; false when it had already finished (or never ran). */
  cancel(job: string): boolean {
    const ctl = this.running.get(job);
    if (!ctl) return false;
    ctl.abort(new RewindError('CANCELLED', 'the export was cancelled: nothing was saved'));
    this.running.delete(job);
    return true;
  }
}
