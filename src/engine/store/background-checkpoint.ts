import { spawn } from 'node:child_process';
import { lstat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeCacheFileAtomic } from '../io/atomic-write.js';
import { readOwnText } from '../io/own-file.js';
import { processAlive } from '../io/process-alive.js';
import { storeDir } from '../project.js';
import { withLock } from './lock.js';
import { linkOnTheWay } from './safe-path.js';
import { listCheckpointIds, newCheckpointId, type TranscriptCursor, type Trigger } from './manifest.js';

/**
 * A prompt's checkpoint is taken by a detached child: the hook gives the prompt a checkpoint id at
 * once and returns, and prompts sent meanwhile queue behind it (in order). Two kinds:
 *
 * - `first`: a project's first checkpoint reads every file (9-16 s on 20,000 files): the agent must
 *   not wait for it. While it runs, the tools' pre-hooks keep the content of the files they are about
 *   to change ("pre-images"), so the checkpoint still holds the tree as it was when the prompt was
 *   sent; what a shell changed meanwhile cannot be told and is said.
 * - `prompt`: any later prompt's checkpoint (a walk of the tree against the stat cache, ~0.2-0.3 s on
 *   20,000 files). Every tool pre-hook and the turn-end hook first wait for it to be complete
 *   (`waitForPromptCheckpoint`), so no tool of the agent runs before it is taken. The wait is
 *   bounded: past it (or if the child died) the hook goes on as for a `first` one (pre-images).
 */
export interface BackgroundJob {
  id: string;
  time: number;
  trigger: Trigger;
  transcript: TranscriptCursor | null;
  touched: string[];
  /** Content of files before a tool of this prompt changed them: [blob | null (absent), mode, size]. */
  pre: Record<string, [string | null, number, number]>;
  /** A tool whose paths are unknown (a shell) ran while the job waited or ran. */
  uncovered: boolean;
}

export interface BackgroundState {
  pid: number;
  started: number;
  jobs: BackgroundJob[];
  /** See above; absent (written by an earlier version): `first`. */
  kind?: 'first' | 'prompt';
}

const file = (root: string) => join(storeDir(root), 'background.json');
/** The hooks' own lock: a job is queued, tied and finished under it, never half-seen. */
export const hookLock = (root: string) => join(storeDir(root), 'touched.lock');

export async function readBackground(root: string): Promise<BackgroundState | null> {
  try {
    const v = JSON.parse((await readOwnText(file(root))) ?? 'null') as BackgroundState;
    if (typeof v.pid === 'number' && Array.isArray(v.jobs)) return v;
  } catch {
    // none
  }
  return null;
}

const writeBackground = (root: string, s: BackgroundState) => writeCacheFileAtomic(file(root), Buffer.from(JSON.stringify(s)));

/** The running background checkpoint, if any (a killed one's leftover is no longer running). */
export async function backgroundRunning(root: string): Promise<BackgroundState | null> {
  const s = await readBackground(root);
  return s && s.jobs.length && processAlive(s.pid) ? s : null;
}

/** Words for `checkpoints` and the window while it runs. */
export function inProgressText(s: BackgroundState): string {
  if (s.kind === 'prompt') return `checkpoint before a prompt in progress (started ${new Date(s.started).toISOString()}, ${s.jobs.length} queued): restores to prompts before it is complete wait for it`;
  return `first checkpoint in progress (started ${new Date(s.started).toISOString()}, ${s.jobs.length} queued): restores to prompts before it is complete wait for it`;
}

/**
 * Called by the hook under its lock: whether this checkpoint goes to the background (the project
 * has none yet, one is still being taken there, or `prompt`: a prompt's checkpoint the tools will
 * wait for), and if so its id, queued.
 */
export async function queueIfBackground(root: string, job: Omit<BackgroundJob, 'id' | 'pre' | 'uncovered'>, cliArgs: string[], prompt = false): Promise<string | null> {
  const running = await backgroundRunning(root);
  const kind = running ? null : (await listCheckpointIds(root)).length === 0 ? 'first' : prompt ? 'prompt' : null;
  if (!running && !kind) {
    // A child that died left its queue: its prompts get no checkpoint (none is made up), and the
    // tool hooks need not go on looking at it.
    await unlink(file(root)).catch(() => undefined);
    return null;
  }
  const id = newCheckpointId(job.time);
  const full: BackgroundJob = { ...job, id, pre: {}, uncovered: false };
  if (running) {
    running.jobs.push(full);
    await writeBackground(root, running);
    return id;
  }
  const child = spawn(process.execPath, cliArgs, {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, REWIND_BG_CHECKPOINT: root },
    windowsHide: true,
  });
  child.on('error', () => undefined);
  child.unref();
  // Not started (no pid: pid 0 would name this process group as alive): taken inline instead.
  if (!child.pid) return null;
  await writeBackground(root, { pid: child.pid, started: Date.now(), jobs: [full], kind: kind ?? 'first' });
  return id;
}

/** How long a tool or turn-end hook waits for a prompt's checkpoint: well inside the agents' 30 s hook timeout. */
export const PROMPT_WAIT_MS = 20_000;

/**
 * Before a tool that may write (or the turn's end): waits until the project's queued `prompt`
 * checkpoints are taken. true: none is pending any more. false: go on without it (a `first` one,
 * which is never waited for; a child that died; past `limitMs`): the caller keeps pre-images.
 * Never under the hooks' lock (the child takes it to finish each job).
 */
export async function waitForPromptCheckpoint(root: string, limitMs = PROMPT_WAIT_MS): Promise<boolean> {
  const until = Date.now() + limitMs;
  for (let pause = 5; ; pause = Math.min(pause * 2, 15)) {
    const s = await readBackground(root);
    if (!s || s.jobs.length === 0) return true;
    if ((s.kind ?? 'first') === 'first' || Date.now() >= until) return false;
    // Gone: it may have finished (and removed its queue) since the read above.
    if (!processAlive(s.pid)) return !(await readBackground(root))?.jobs.length;
    await new Promise((r) => setTimeout(r, pause));
  }
}

/**
 * A tool is about to run while a background checkpoint is queued or running: keep what the files it
 * names hold now (first time per path only), or note that a tool with unknown paths ran.
 */
export async function keepPreImages(root: string, rels: string[] | null): Promise<void> {
  const s = await backgroundRunning(root);
  if (!s) return;
  const job = s.jobs[s.jobs.length - 1]!;
  if (rels === null) job.uncovered = true;
  else {
    const { objectStore } = await import('./checkpoint.js');
    for (const rel of rels) {
      if (rel in job.pre || (await linkOnTheWay(root, rel))) continue;
      const abs = join(root, rel);
      const st = await lstat(abs).catch(() => null);
      if (!st) job.pre[rel] = [null, 0, 0];
      else if (st.isFile()) {
        const ref = await objectStore(root).putFile(abs, st.size).catch(() => null);
        if (ref) job.pre[rel] = [ref, st.mode & 0o777, st.size];
      }
    }
  }
  await writeBackground(root, s);
}

/** Ties a queued job to its prompt (the prompt was written after the hook queued it). */
export async function tieQueued(root: string, id: string, promptUuid: string): Promise<boolean> {
  const s = await readBackground(root);
  const job = s?.jobs.find((j) => j.id === id);
  if (!s || !job?.transcript) return false;
  job.transcript = { ...job.transcript, prompt_uuid: promptUuid };
  await writeBackground(root, s);
  return true;
}

/**
 * What the files held when job `id`'s prompt was sent, as far as the tools said: a path's first
 * pre-image in this job or any later one (a file untouched by this prompt but changed by the next
 * held, until then, what the next one's pre-hook kept).
 */
export function preImagesFor(s: BackgroundState | null, id: string): { pre: BackgroundJob['pre']; uncovered: boolean } | null {
  const i = s?.jobs.findIndex((j) => j.id === id) ?? -1;
  if (!s || i < 0) return null;
  const pre: BackgroundJob['pre'] = {};
  let uncovered = false;
  for (const j of s.jobs.slice(i)) {
    for (const [p, v] of Object.entries(j.pre)) if (!(p in pre)) pre[p] = v;
    uncovered ||= j.uncovered;
  }
  return { pre, uncovered };
}

const UNCOVERED = 'a shell command ran while this first checkpoint was read: a file it changed then may hold its later content';
const UNCOVERED_PROMPT = 'a shell command ran before this checkpoint was complete (its hook stopped waiting for it): a file it changed then may hold its later content';

/**
 * The detached child: takes the queued checkpoints one by one, then leaves. `owner`: its own pid;
 * a queue written by another child (this one was given up for dead) is that one's to take.
 */
export async function runBackground(root: string, owner?: number): Promise<void> {
  const { takeCheckpoint } = await import('./checkpoint.js');
  const { tieToPrompt } = await import('./prompt-tie.js');
  for (;;) {
    // Under the lock: the hook that started this child writes its queue only after the spawn.
    const s = await withLock(hookLock(root), () => readBackground(root), 60_000);
    const job = s?.jobs[0];
    if (!s || !job || (owner !== undefined && s.pid !== owner)) return;
    const first = (s.kind ?? 'first') === 'first';
    // Checkpoints of later prompts wait for this one (they are deltas of it).
    await takeCheckpoint({
      projectRoot: root,
      id: job.id,
      time: job.time,
      trigger: job.trigger,
      transcript: job.transcript,
      touched: job.touched,
      preImages: () => readBackground(root).then((n) => preImagesFor(n, job.id)),
      background: { started: new Date(job.time).toISOString() },
      uncoveredNote: first ? UNCOVERED : UNCOVERED_PROMPT,
    });
    await withLock(hookLock(root), async () => {
      const now = await readBackground(root);
      const done = now?.jobs.find((j) => j.id === job.id);
      if (done?.transcript?.prompt_uuid && done.transcript.prompt_uuid !== job.transcript?.prompt_uuid) await tieToPrompt(root, job.id, done.transcript.prompt_uuid);
      const rest = (now?.jobs ?? []).filter((j) => j.id !== job.id);
      if (rest.length) await writeBackground(root, { ...now!, jobs: rest });
      else await unlink(file(root)).catch(() => undefined);
    }, 60_000);
  }
}
