import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { backgroundRunning, type BackgroundState } from '../../engine/store/background-checkpoint.js';
import { promptMarkers } from '../../engine/store/checkpoint-markers.js';
import { storeDir } from '../../engine/project.js';
import { checkpointsDir, listCheckpoints, type CheckpointSummary } from '../../engine/store/manifest.js';
import type { RewindEvent } from '../../shared/contract.js';
import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';

type Mark = (p: TimelinePrompt) => TimelinePrompt;

/**
 * A prompt whose checkpoint is queued or being read in the background (a project's first, see
 * engine/store/background-checkpoint): marked `pending` until the checkpoint lands. Read through the
 * engine's own `backgroundRunning`; the store's files are not read here.
 */
function withPending(mark: Mark, running: BackgroundState | null, transcript: string): Mark {
  // A later prompt's checkpoint (a fraction of a second, the agent's tools wait for it) is not the
  // "first checkpoint" the window's wording names: its prompt gets its mark once it lands.
  if ((running?.kind ?? 'first') !== 'first') return mark;
  const jobs = running?.jobs.filter((j) => j.transcript && (j.transcript.transcript_path === transcript || !j.transcript.transcript_path)) ?? [];
  if (!running || jobs.length === 0) return mark;
  const pending = { started: new Date(running.started).toISOString(), queued: running.jobs.length };
  return (p) => {
    const m = mark(p);
    if (m.checkpoint) return m;
    const job = jobs.find((j) => j.transcript!.prompt_uuid === p.uuid || (!!p.promptId && j.transcript!.prompt_id === p.promptId));
    return job ? { ...m, checkpoint: { id: job.id, scan: 'full', time: new Date(job.time).toISOString(), pending } } : m;
  };
}

/**
 * Rewind's checkpoint of each prompt, marked on the timelines the window gets (whole, appended, or
 * re-marked when a checkpoint lands after its prompt): what was sent is remembered per session.
 */
export class CheckpointMarks {
  constructor(
    private readonly open: { paths(): string[]; timeline(path: string): Promise<Timeline> },
    private readonly emit: (e: RewindEvent) => void,
  ) {}

  async decorate(t: Timeline): Promise<Timeline> {
    const mark = await this.markersFor(t);
    return { ...t, prompts: this.remember(t.session.transcriptPath, t.prompts.map(mark)) };
  }

  async decorateEvent(e: RewindEvent): Promise<RewindEvent> {
    if (e.type !== 'timelineChanged') return e;
    const mark = await this.markersFor(e.timeline ?? (await this.open.timeline(e.session)));
    return { ...e, upserts: this.remember(e.session, e.upserts.map(mark)), timeline: e.timeline ? { ...e.timeline, prompts: this.remember(e.session, e.timeline.prompts.map(mark)) } : null };
  }

  /** Each project's checkpoint list, kept while its checkpoints folder and index file are unchanged. */
  private readonly checkpointLists = new Map<string, { key: string; list: Promise<CheckpointSummary[]> }>();

  /**
   * The marker function for a timeline (Rewind's checkpoint of each prompt). Two stats per call: an
   * append's event does not read the project's whole checkpoint list again, which grows with every
   * prompt ever checkpointed there.
   */
  private async markersFor(t: Timeline): Promise<Mark> {
    const cwd = t.session.cwd;
    if (!cwd) return promptMarkers([], t.session.transcriptPath);
    const dir = checkpointsDir(cwd);
    const [d, ix, bg] = await Promise.all([stat(dir).catch(() => null), stat(join(dir, 'index.jsonl')).catch(() => null), stat(join(storeDir(cwd), 'background.json')).catch(() => null)]);
    // A first checkpoint still in the background: its prompt is marked pending (no checkpoints folder may exist yet).
    const running = bg ? await backgroundRunning(cwd).catch(() => null) : null;
    if (!d) return withPending(promptMarkers([], t.session.transcriptPath), running, t.session.transcriptPath);
    const key = `${d.mtimeMs}:${ix?.size}:${ix?.mtimeMs}`;
    let known = this.checkpointLists.get(cwd);
    if (known?.key !== key) {
      known = { key, list: listCheckpoints(cwd).catch(() => []) };
      this.checkpointLists.set(cwd, known);
    }
    return withPending(promptMarkers(await known.list, t.session.transcriptPath, t.prompts), running, t.session.transcriptPath);
  }

  /** Which checkpoint each prompt was last sent with, per open session. */
  private readonly markersSent = new Map<string, Map<string, string | null>>();

  private remember<P extends { uuid: string; checkpoint?: { id: string; pending?: unknown } | null }>(session: string, prompts: P[]): P[] {
    const sent = this.markersSent.get(session) ?? new Map<string, string | null>();
    for (const p of prompts) sent.set(p.uuid, sentKey(p));
    this.markersSent.set(session, sent);
    return prompts;
  }

  /**
   * A checkpoint landed in (or left) a project's store: the open timelines of that project get the
   * prompts whose marker changed. The hook's checkpoint and the prompt's line race each other.
   */
  async remark(projectRoot: string): Promise<void> {
    for (const path of this.open.paths()) {
      const timeline = await this.open.timeline(path);
      if (timeline.session.cwd !== projectRoot) continue;
      const mark = await this.markersFor(timeline);
      const sent = this.markersSent.get(path);
      const upserts = timeline.prompts.map(mark).filter((p) => (sent?.get(p.uuid) ?? null) !== sentKey(p));
      if (upserts.length === 0) continue;
      this.emit({ type: 'timelineChanged', session: path, kind: 'append', upserts: this.remember(path, upserts), timeline: null, stats: timeline.stats });
    }
  }
}

/** A pending checkpoint and the same one landed have one id: the mark sent says which it was. */
const sentKey = (p: { checkpoint?: { id: string; pending?: unknown } | null }) => (p.checkpoint ? `${p.checkpoint.id}${p.checkpoint.pending ? ' pending' : ''}` : null);
