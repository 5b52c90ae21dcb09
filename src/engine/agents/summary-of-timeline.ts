import { dirname, resolve } from 'node:path';
import type { Agent, SessionSummary, Timeline } from '../../shared/session-schema.js';

/** The list row of a session whose agent reads it whole (Droid, Qwen, Gemini): from its timeline. */
export function summaryOfTimeline(
  agent: Agent,
  t: Timeline,
  f: { path: string; size: number; mtimeMs: number },
  o: { now: number; liveWindowMs: number; version?: string | null; forkOf?: string | null },
): SessionSummary {
  return {
    id: t.session.id,
    agent,
    title: t.session.title,
    cwd: t.session.cwd,
    projectDir: dirname(f.path),
    transcriptPath: f.path,
    promptCount: t.prompts.length,
    livePromptCount: t.stats.activePrompts,
    firstPrompt: t.prompts[0]?.text ?? null,
    lastPrompt: t.prompts[t.prompts.length - 1]?.text ?? null,
    createdAt: t.session.firstTimestamp,
    lastActivity: new Date(f.mtimeMs).toISOString(),
    sizeBytes: f.size,
    version: o.version ?? null,
    live: o.now - f.mtimeMs < o.liveWindowMs,
    forkOf: o.forkOf ?? null,
  };
}

/** Did this session run in `project` (no project: every session does)? */
export function inProject(t: Timeline, project: string | undefined): boolean {
  return !project || (!!t.session.cwd && resolve(t.session.cwd) === resolve(project));
}
