import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One folder per conformance run, in the machine's TMPDIR (read in the main process, before workers get this as theirs). */
export const CONFORMANCE_TMP = join(tmpdir(), `rewind-conformance-${process.pid}`);
