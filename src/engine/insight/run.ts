import { adapterFor } from '../agents/registry.js';
import { existsSync } from 'node:fs';
import type { CompareResult } from '../../shared/contract.js';
import { costReport } from '../../shared/insight/cost.js';
import type { PriceBook } from '../../shared/insight/prices.js';
import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import { RewindError } from '../errors.js';
import { findProjectRoot } from '../project.js';
import { comparePrompts, type CompareSide } from './compare.js';
import { compareCode } from './compare-code.js';
import { exportedPrompts, toHtml, toMarkdown } from './export.js';
import { agentTreeBefore, readTurns, type ReadTurnsOptions } from './session-input.js';

/** A session as insight reads it: its file, its timeline (with costs) and the prices they came from. */
export interface InsightSession {
  file: string;
  timeline: Timeline;
  book: PriceBook;
}

const brief = (p: TimelinePrompt) => ({ uuid: p.uuid, number: p.number, text: p.text, active: p.active });

/** A side's cost: its own prompts' turns (what was spent after the two parted), at the session's prices. */
function sideOf(side: CompareSide, s: InsightSession): CompareResult['a'] {
  const cost = costReport({ ...s.timeline, prompts: side.prompts }, s.book).session;
  return { sessionId: side.sessionId, picked: brief(side.picked), end: side.end ? brief(side.end) : null, prompts: side.prompts.map(brief), cost };
}

/**
 * Two prompts (of one session, or of a fork and its original) side by side, with the code each side
 * ended with. `project` is where the code lives (default: the session's folder, when it exists here).
 */
export async function runCompare(a: InsightSession & { prompt: string }, b: InsightSession & { prompt: string }, opts: { project?: string; cwd: string; claudeRoot: string }): Promise<CompareResult> {
  const cmp = comparePrompts(a.timeline, a.prompt, b.timeline, b.prompt);
  const cwd = a.timeline.session.cwd;
  const projectRoot = opts.project ?? (cwd && existsSync(cwd) ? cwd : await findProjectRoot(opts.cwd));
  const code = projectRoot
    ? await compareCode(projectRoot, [a.timeline, b.timeline], cmp.a.end, cmp.b.end, await agentTreeBefore(a.file, opts.claudeRoot, projectRoot))
    : { unavailable: `the session's folder ${cwd ?? ''} is not on this machine (give the project folder)` };
  return { ancestor: cmp.ancestor ? brief(cmp.ancestor) : null, a: sideOf(cmp.a, a), b: sideOf(cmp.b, b), code };
}

/** A session or one branch of it as Markdown or HTML, redacted unless told otherwise. */
export async function runExport(s: InsightSession, o: { branch?: string; format: 'md' | 'html'; redact: boolean; now?: Date; signal?: AbortSignal; onProgress?: ReadTurnsOptions['onProgress'] }) {
  if (o.branch && !s.timeline.prompts.some((p) => p.uuid === o.branch)) throw new RewindError('NOT_FOUND', `no prompt ${o.branch} in session ${s.timeline.session.id}`);
  const prompts = exportedPrompts(s.timeline, o.branch);
  const turns = await readTurns(s.file, s.timeline, prompts.map((p) => p.uuid), { signal: o.signal, onProgress: o.onProgress });
  o.signal?.throwIfAborted();
  const input = { timeline: s.timeline, agentName: adapterFor(s.timeline.session.agent).displayName, branch: o.branch, turns, redact: o.redact, exportedAt: (o.now ?? new Date()).toISOString() };
  const r = o.format === 'html' ? toHtml(input) : toMarkdown(input);
  // From the title as exported: a redacted export's file name carries no secret either.
  const slug = r.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'session';
  return { filename: `${slug}-${s.timeline.session.id.slice(0, 8)}.${o.format}`, mime: o.format === 'html' ? 'text/html' : 'text/markdown', content: r.content, prompts: r.prompts, redacted: r.redacted };
}
