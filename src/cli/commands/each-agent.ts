import { describeError, type ErrorCode } from '../../engine/errors.js';
import { exitCodeFor } from '../exit-codes.js';
import type { CliIO } from '../io.js';

/**
 * One change per agent (`--agent all`): an agent refused (its config a link out of the project, say)
 * is said in its own line, after what the others did, and the command exits non-zero. Stopping at
 * the first refusal hid the configs already written and said "nothing was written".
 */
export interface Failed {
  agent: string;
  code: ErrorCode;
  message: string;
}

export async function forEachAgent<T>(ids: readonly string[], fn: (id: string) => Promise<T>): Promise<{ done: T[]; failed: Failed[] }> {
  const done: T[] = [];
  const failed: Failed[] = [];
  for (const id of ids) {
    try {
      done.push(await fn(id));
    } catch (e) {
      if (ids.length === 1) throw e;
      failed.push({ agent: id, ...describeError(e) });
    }
  }
  return { done, failed };
}

/** The refused agents, one line each on stderr; the exit code of the first (0: none). */
export function reportFailed(failed: Failed[], nameOf: (id: string) => string, io: CliIO, json: boolean): number {
  if (!json) for (const f of failed) io.err(`rewind-app: ${nameOf(f.agent)}: ${f.message}`);
  return failed.length ? exitCodeFor(failed[0]!.code) : 0;
}
