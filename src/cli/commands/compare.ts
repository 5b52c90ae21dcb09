import { existsSync } from 'node:fs';
import { claudeConfigRoot } from '../../engine/agents/claude/paths.js';
import { RewindError } from '../../engine/errors.js';
import { comparePrompts, liveEnd, type PromptComparison } from '../../engine/insight/compare.js';
import { compareCode, type CodeComparison } from '../../engine/insight/compare-code.js';
import { costReport, formatCost } from '../../engine/insight/cost.js';
import { DEFAULT_PRICE_BOOK } from '../../engine/insight/prices.js';
import { agentTreeBefore, insightTimeline } from '../../engine/insight/session-input.js';
import { findProjectRoot } from '../../engine/project.js';
import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import { plural } from '../../shared/wording.js';
import type { CliIO } from '../io.js';
import { truncate } from '../io.js';

export interface CompareArgs {
  a?: string;
  b?: string;
  json: boolean;
  project?: string;
  claudeDir?: string;
}

interface Side {
  file: string;
  timeline: Timeline;
  prompt: TimelinePrompt;
}

/** `#n`, a prompt uuid or a uuid prefix of 8+ characters, in one timeline. */
function findPrompt(t: Timeline, ref: string): TimelinePrompt | null {
  const n = /^#(\d+)$/.exec(ref);
  if (n) return t.prompts.find((p) => p.number === Number(n[1])) ?? null;
  if (ref.length < 8) return null;
  const hits = t.prompts.filter((p) => p.uuid === ref || p.uuid.startsWith(ref));
  if (hits.length > 1) throw new RewindError('USAGE', `"${ref}" names ${hits.length} prompts: give more of the uuid`);
  return hits[0] ?? null;
}

/**
 * A side: `[SESSION:]PROMPT` (a prompt of that session, or of this directory's newest session) or
 * `SESSION` (its live end).
 */
async function resolveSide(ref: string, io: CliIO, claudeRoot: string): Promise<Side> {
  const opts = { cwd: io.cwd, env: io.env, claudeRoot };
  const cut = ref.lastIndexOf(':');
  const promptPart = cut > 1 ? ref.slice(cut + 1) : null;
  if (promptPart && (/^#\d+$/.test(promptPart) || /^[0-9a-f-]{8,}$/i.test(promptPart))) {
    const { file, timeline } = await insightTimeline(ref.slice(0, cut), opts);
    const prompt = findPrompt(timeline, promptPart);
    if (!prompt) throw new RewindError('NOT_FOUND', `no prompt ${promptPart} in session ${timeline.session.id}`);
    return { file, timeline, prompt };
  }
  if (/^#\d+$/.test(ref) || /^[0-9a-f]{8}/i.test(ref)) {
    const here = await insightTimeline(undefined, opts).catch(() => null);
    const prompt = here ? findPrompt(here.timeline, ref) : null;
    if (here && prompt) return { file: here.file, timeline: here.timeline, prompt };
    if (ref.startsWith('#')) throw new RewindError('NOT_FOUND', here ? `no prompt ${ref} on the live path of ${here.timeline.session.id}` : `no session for ${io.cwd} to find ${ref} in`);
  }
  const { file, timeline } = await insightTimeline(ref, opts);
  const end = liveEnd(timeline);
  if (!end) throw new RewindError('NOT_FOUND', `session ${timeline.session.id} has no prompt`);
  return { file, timeline, prompt: end };
}

export async function compareCommand(args: CompareArgs, io: CliIO): Promise<number> {
  if (!args.a || !args.b) throw new RewindError('USAGE', 'compare takes two prompts or sessions: compare <a> <b>');
  const root = args.claudeDir ?? claudeConfigRoot(io.env);
  const [a, b] = [await resolveSide(args.a, io, root), await resolveSide(args.b, io, root)];
  const cmp = comparePrompts(a.timeline, a.prompt.uuid, b.timeline, b.prompt.uuid);
  const projectRoot = args.project ?? (a.timeline.session.cwd && existsSync(a.timeline.session.cwd) ? a.timeline.session.cwd : await findProjectRoot(io.cwd));
  const code: CodeComparison | { unavailable: string } = projectRoot
    ? await compareCode(projectRoot, [a.timeline, b.timeline], cmp.a.end, cmp.b.end, await agentTreeBefore(a.file, root, projectRoot))
    : { unavailable: `the session's folder ${a.timeline.session.cwd ?? ''} does not exist here (pass --project)` };
  if (args.json) {
    io.out(JSON.stringify({ ancestor: brief(cmp.ancestor), a: sideJson(cmp.a, a.timeline), b: sideJson(cmp.b, b.timeline), code }, null, 2));
    return 0;
  }
  io.out(renderCompare(cmp, a.timeline, b.timeline, code));
  return 0;
}

const brief = (p: TimelinePrompt | null) => (p ? { uuid: p.uuid, number: p.number, text: p.text, active: p.active } : null);

function sideCost(side: PromptComparison['a'], t: Timeline) {
  const book = t.cost ? { overrides: {}, asOf: t.cost.pricesAsOf, source: t.cost.pricesSource } : DEFAULT_PRICE_BOOK;
  const only = { ...t, prompts: side.prompts };
  return costReport(only, book).session;
}

function sideJson(side: PromptComparison['a'], t: Timeline) {
  return { sessionId: side.sessionId, picked: brief(side.picked), end: brief(side.end), prompts: side.prompts.map(brief), cost: sideCost(side, t) };
}

const label = (p: TimelinePrompt) => (p.number !== null ? `#${p.number}` : `○${p.index}`);

export function renderCompare(cmp: PromptComparison, ta: Timeline, tb: Timeline, code: CodeComparison | { unavailable: string }): string {
  const lines: string[] = [];
  const name = (p: TimelinePrompt) => `${label(p)} "${truncate(p.text, 40)}"${p.active ? '' : ' (abandoned branch)'}`;
  lines.push(`Comparing ${name(cmp.a.picked)} with ${name(cmp.b.picked)}`);
  lines.push(cmp.ancestor ? `Common ancestor: ${name(cmp.ancestor)}` : 'No common ancestor: the two share no prompt');
  for (const [tag, side, t] of [['A', cmp.a, ta], ['B', cmp.b, tb]] as const) {
    lines.push('', `${tag}: ${plural(side.prompts.length, 'prompt')} in ${side.sessionId.slice(0, 8)} · ${formatCost(sideCost(side, t))}`);
    for (const p of side.prompts) lines.push(`  ${p.active ? '●' : '○'} ${label(p).padEnd(5)} ${truncate(p.text || '[image]', 70)}`);
    if (!side.prompts.length) lines.push('  (nothing after the common ancestor)');
  }
  lines.push('');
  if ('unavailable' in code) {
    lines.push(`Code: not compared: ${code.unavailable}`);
    return lines.join('\n');
  }
  const where = (s: CodeComparison['a']) =>
    s.kind === 'checkpoint' ? `Rewind checkpoint ${s.id}` : s.kind === 'disk' ? 'the files on disk now' : s.kind === 'agent-history' ? `the agent's own file history (${plural(s.files, 'tracked file')})` : `unknown: ${s.reason}`;
  lines.push(`Code A: ${where(code.a)}`, `Code B: ${where(code.b)}`);
  if (code.a.kind === 'unknown' || code.b.kind === 'unknown') return lines.join('\n');
  if (!code.files.length) {
    lines.push('The two sides ended with the same files.');
    return lines.join('\n');
  }
  lines.push(`${plural(code.files.length, 'file')} differ (+${code.added} -${code.removed}):`);
  for (const f of code.files) lines.push(`  ${f.status} ${f.path}${f.binary ? '  (binary)' : `  +${f.added} -${f.removed}`}`);
  for (const f of code.files) if (f.patch) lines.push('', f.patch.trimEnd());
  return lines.join('\n');
}
