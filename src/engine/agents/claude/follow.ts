import { readLines } from '../../io/read-lines.js';
import { RewindError } from '../../errors.js';
import type { FollowedSession, FollowParsed, FollowStep, SessionFollow } from '../adapter.js';
import type { Timeline } from '../../../shared/session-schema.js';
import type { SessionModel } from './model.js';
import { readSubagentFiles, type LineCountCache, type SubagentCache } from './parse-transcript.js';
import { SessionBuilder, sessionIdFromPath } from './session-builder.js';
import { cursorOf, extendTimeline, toTimeline, type TimelineCursor } from './timeline.js';
import { turnDetail } from './turn-detail.js';

/**
 * A Claude transcript followed as it grows: the builder that read it keeps reading from where it
 * stopped. When the new lines only extend the tree, the model and the timeline are extended from
 * them alone (the step names the new prompts and the one whose turn grew); anything structural (a
 * new branch, a compaction, a slash command) builds the whole timeline again.
 */
class FollowedTranscript implements FollowedSession {
  private model: SessionModel = null as unknown as SessionModel;
  timeline: Timeline = null as unknown as Timeline;
  private cursor: TimelineCursor = { leafPrompt: null };
  private readonly subagentCounts: LineCountCache = new Map();
  private readonly subagentsKnown: SubagentCache = { meta: new Map(), sibling: new Map() };

  constructor(
    private readonly path: string,
    private readonly builder: SessionBuilder,
    public endOffset: number,
    public lineCount: number,
  ) {}

  private subagentFiles() {
    return readSubagentFiles(this.path, this.builder.sessionId ?? sessionIdFromPath(this.path), this.subagentCounts, this.subagentsKnown);
  }

  async rebuild(size: number, partial: boolean): Promise<void> {
    this.model = this.builder.build({ transcriptPath: this.path, size, endOffset: this.endOffset, hasPartialLine: partial, subagentFiles: await this.subagentFiles() });
    this.timeline = toTimeline(this.model);
    this.cursor = cursorOf(this.model);
  }

  isTranscript(): boolean {
    return !(this.builder.order.length === 0 && this.builder.issues.length > 0);
  }

  async extend(): Promise<FollowStep | null> {
    const mark = this.builder.mark();
    const res = await readLines(this.path, (line) => this.builder.addLine(line), { fromOffset: this.endOffset, fromIndex: this.lineCount });
    if (res.endOffset === this.endOffset) return null; // only a partial line so far
    const lines = res.lineCount - this.lineCount;
    this.endOffset = res.endOffset;
    this.lineCount = res.lineCount;
    const meta = { transcriptPath: this.path, size: res.size, endOffset: this.endOffset, hasPartialLine: res.partial !== null, subagentFiles: await this.subagentFiles() };
    const step = this.builder.extend(this.model, mark, meta);
    if (step) {
      const next = extendTimeline(this.timeline, this.cursor, step);
      this.model = step.model;
      this.timeline = next.timeline;
      this.cursor = next.cursor;
      const work = { kind: 'extend' as const, lines, messages: step.messages + step.walked.length, prompts: next.upserts.length };
      // New slash commands and compactions are drawn from the whole document.
      return next.structural ? { kind: 'reread', upserts: [], work } : { kind: 'append', upserts: next.upserts, work };
    }
    await this.rebuild(res.size, res.partial !== null);
    return { kind: 'reread', upserts: [], work: { kind: 'rebuild', lines, messages: this.model.order.length, prompts: this.timeline.prompts.length } };
  }

  turn(promptUuid: string) {
    return turnDetail(this.model, promptUuid);
  }
}

export const claudeFollow: SessionFollow = {
  async parse(path) {
    const builder = new SessionBuilder();
    const res = await readLines(path, (line) => builder.addLine(line));
    return { state: builder, endOffset: res.endOffset, lineCount: res.lineCount, size: res.size, partial: res.partial !== null };
  },
  async revive(parsed: FollowParsed, path) {
    // The builder crossed from the worker as plain data: it gets its class back, so appends continue from where it stopped.
    const builder = Object.setPrototypeOf(parsed.state, SessionBuilder.prototype) as SessionBuilder;
    const s = new FollowedTranscript(path, builder, parsed.endOffset, parsed.lineCount);
    await s.rebuild(parsed.size, parsed.partial);
    if (!s.isTranscript()) throw new RewindError('INVALID_TRANSCRIPT', `not a Claude Code transcript: ${path}`);
    return s;
  },
};
