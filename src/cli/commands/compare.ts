import { AGENT_PRIMARY, adapterFor } from '../../engine/agents/registry.js';
import { RewindError } from '../../engine/errors.js';
import { liveEnd } from '../../engine/insight/compare.js';
import { runCompare, type InsightSession } from '../../engine/insight/run.js';
import { insightTimeline } from '../../engine/insight/session-input.js';
import type { CompareResult } from '../../shared/contract.js';
import { formatCost } from '../../shared/insight/cost.js';
import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import { plural, treeSourceText } from '../../shared/wording.js';
import type { CliIO } from '../io.js';
import { truncate } from '../io.js';

export interface CompareArgs {
  a?: string;
  b?: string;
  json: boolean;
  project?: string;
  claudeDir?: string;
}

interface Side extends InsightSession {
  prompt: TimelinePrompt;
}

/** `#n`, a prompt uuid or a uuid prefix of 8+ characters, in one timeline. */
export function findPrompt(t: Timeline, ref: string): TimelinePrompt | null {
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
    const { file, timeline, book } = await insightTimeline(ref.slice(0, cut), opts);
    const prompt = findPrompt(timeline, promptPart);
    if (!prompt) throw new RewindError('NOT_FOUND', `no prompt ${promptPart} in session ${timeline.session.id}`);
    return { file, timeline, book, prompt };
  }
  if (/^#\d+$/.test(ref) || /^[0-9a-f]{8}/i.test(ref)) {
    const here = await insightTimeline(undefined, opts).catch(() => null);
    const prompt = here ? findPrompt(here.timeline, ref) : null;
    if (here && prompt) return { file: here.file, timeline: here.timeline, book: here.book, prompt };
    if (ref.startsWith('#')) throw new RewindError('NOT_FOUND', here ? `no prompt ${ref} on the live path of ${here.timeline.session.id}` : `no session for ${io.cwd} to find ${ref} in`);
  }
  const { file, timeline, book } = await insightTimeline(ref, opts);
  const end = liveEnd(timeline);
  if (!end) throw new RewindError('NOT_FOUND', `session ${timeline.session.id} has no prompt`);
  return { file, timeline, book, prompt: end };
}

export async function compareCommand(args: CompareArgs, io: CliIO): Promise<number> {
  if (!args.a || !args.b) throw new RewindError('USAGE', 'compare takes two prompts or sessions: compare <a> <b>');
  const root = adapterFor(AGENT_PRIMARY).root(io.env, args.claudeDir);
  const [a, b] = [await resolveSide(args.a, io, root), await resolveSide(args.b, io, root)];
  const r = await runCompare({ ...a, prompt: a.prompt.uuid }, { ...b, prompt: b.prompt.uuid }, { project: args.project, cwd: io.cwd, claudeRoot: root });
  io.out(args.json ? JSON.stringify(r, null, 2) : renderCompare(r));
  return 0;
}


type Brief = CompareResult['a']['prompts'][number];
const briefLabel = (p: Brief) => (p.number !== null ? `#${p.number}` : '○');

export function renderCompare(r: CompareResult): string {
  const lines: string[] = [];
  const name = (p: Brief) => `${briefLabel(p)} "${truncate(p.text, 40)}"${p.active ? '' : ' (abandoned branch)'}`;
  lines.push(`Comparing ${name(r.a.picked)} with ${name(r.b.picked)}`);
  lines.push(r.ancestor ? `Common ancestor: ${name(r.ancestor)}` : 'No common ancestor: the two share no prompt');
  for (const [tag, side] of [['A', r.a], ['B', r.b]] as const) {
    lines.push('', `${tag}: ${plural(side.prompts.length, 'prompt')} in ${side.sessionId.slice(0, 8)} · ${formatCost(side.cost)}`);
    for (const p of side.prompts) lines.push(`  ${p.active ? '●' : '○'} ${briefLabel(p).padEnd(4)} ${truncate(p.text || '[image]', 70)}`);
    if (!side.prompts.length) lines.push('  (nothing after the common ancestor)');
  }
  lines.push('');
  const code = r.code;
  if ('unavailable' in code) {
    lines.push(`Code: not compared: ${code.unavailable}`);
    return lines.join('\n');
  }
  lines.push(`Code A: ${treeSourceText(code.a)}`, `Code B: ${treeSourceText(code.b)}`);
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
