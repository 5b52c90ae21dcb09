import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promptMarkers } from '../../engine/store/checkpoint-markers.js';
import { checkpointsDir, listCheckpoints, type CheckpointSummary } from '../../engine/store/manifest.js';
import type { RewindEvent } from '../../shared/contract.js';
import type { Timeline } from '../../shared/session-schema.js';

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
  private async markersFor(t: Timeline): Promise<ReturnType<typeof promptMarkers>> {
    const cwd = t.session.cwd;
    if (!cwd) return promptMarkers([], t.session.transcriptPath);
    const dir = checkpointsDir(cwd);
    const [d, ix] = await Promise.all([stat(dir).catch(() => null), stat(join(dir, 'index.jsonl')).catch(() => null)]);
    if (!d) return promptMarkers([], t.session.transcriptPath);
    const key = `${d.mtimeMs}:${ix?.size}:${ix?.mtimeMs}`;
    let known = this.checkpointLists.get(cwd);
    if (known?.key !== key) {
      known = { key, list: listCheckpoints(cwd).catch(() => []) };
      this.checkpointLists.set(cwd, known);
    }
    return promptMarkers(await known.list, t.session.transcriptPath, t.prompts);
  }

  /** Which checkpoint each prompt was last sent with, per open session. */
  private readonly markersSent = new Map<string, Map<string, string | null>>();

  private remember<P extends { uuid: string; checkpoint?: { id: string } | null }>(session: string, prompts: P[]): P[] {
    const sent = this.markersSent.get(session) ?? new Map<string, string | null>();
    for (const p of prompts) sent.set(p.uuid, p.checkpoint?.id ?? null);
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
      const upserts = timeline.prompts.map(mark).filter((p) => (sent?.get(p.uuid) ?? null) !== (p.checkpoint?.id ?? null));
      if (upserts.length === 0) continue;
      this.emit({ type: 'timelineChanged', session: path, kind: 'append', upserts: this.remember(path, upserts), timeline: null, stats: timeline.stats });
    }
  }
}
