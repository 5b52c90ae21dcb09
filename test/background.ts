import { readBackground } from '../src/engine/store/background-checkpoint.js';
import { processAlive } from '../src/engine/io/process-alive.js';

/**
 * Waits until the detached child that takes a project's queued checkpoints has left. A test that
 * ran the built hook on a project must wait for it: a child still writing into the project after
 * the test's temp dirs are removed makes its folders again (and leaves them in TMPDIR).
 */
export async function backgroundDone(project: string, limitMs = 30_000): Promise<void> {
  const until = Date.now() + limitMs;
  for (;;) {
    const s = await readBackground(project);
    if (!s || !processAlive(s.pid)) return;
    if (Date.now() > until) throw new Error(`the background checkpoint of ${project} did not end within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
