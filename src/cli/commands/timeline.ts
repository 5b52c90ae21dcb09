import { resolveSessionFile, timelineOfFile } from '../../engine/sessions/files.js';
import { RewindError } from '../../engine/errors.js';
import { withMarkers } from '../../engine/store/checkpoint-markers.js';
import { AGENT_PRIMARY, adapterFor } from '../../engine/agents/registry.js';
import { formatCost, withCost } from '../../shared/insight/cost.js';
import { loadPrices } from '../../engine/insight/load-prices.js';
import type { Timeline } from '../../shared/session-schema.js';
import { describeCounts, timelineCounts } from '../../shared/session-counts.js';
import { openSessionText, plural } from '../../shared/wording.js';
import type { CliIO } from '../io.js';
import { tildify, truncate } from '../io.js';

export interface TimelineArgs {
  session?: string;
  json: boolean;
  claudeDir?: string;
}

export async function timelineCommand(args: TimelineArgs, io: CliIO): Promise<number> {
  const found = await resolveSessionFile(args.session, { cwd: io.cwd, env: io.env, roots: { [AGENT_PRIMARY]: args.claudeDir } });
  if (!found) throw new RewindError('NO_TRANSCRIPT', `no agent session for ${io.cwd} (pass a session id or path)`);
  const parsed = await timelineOfFile(found.path);
  // Our checkpoints (◆) from the project's store, as the window shows them.
  const { book, notice } = await loadPrices(io.env);
  if (notice) io.err(`warning: ${notice}`);
  const timeline = withCost(await withMarkers(parsed), book);
  // A running agent that has this session open (its marker, checked for liveness).
  const { openStateOf } = await import('../../engine/agents/open-session.js');
  const open = await openStateOf(found.adapter, found.path, found.adapter.id === AGENT_PRIMARY ? (args.claudeDir ?? null) : null, { cwd: timeline.session.cwd }).catch(() => null);
  if (args.json) {
    io.out(JSON.stringify({ ...timeline, open }, null, 2));
    return 0;
  }
  io.out(renderTimeline(timeline, io.env));
  if (open) io.out(openSessionText(found.adapter.displayName, open));
  for (const issue of timeline.issues) io.err(`warning: line ${issue.line} (byte ${issue.offset}): ${issue.reason}`);
  return 0;
}

function clock(iso: string | null): string {
  if (!iso) return '        ';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '        ' : d.toISOString().slice(11, 19);
}

export function renderTimeline(t: Timeline, env: NodeJS.ProcessEnv): string {
  const lines: string[] = [];
  const s = t.session;
  lines.push(`${truncate(s.title, 70)} · ${adapterFor(s.agent).displayName} ${s.version ?? ''} · ${tildify(s.cwd, env)}`);
  lines.push(
    `${s.id} · ${describeCounts(timelineCounts(t))}`,
  );
  if (t.cost) {
    const dead = t.cost.deadBranches.reduce((s, b) => s + (b.cost.usd ?? 0), 0);
    lines.push(`cost ${formatCost(t.cost.session)}${t.cost.deadBranches.length && t.cost.session.usd !== null ? ` (live path ${formatCost(t.cost.live)}, abandoned branches $${dead.toFixed(2)})` : ''}${t.cost.unpricedModels.length ? ` · no price for ${t.cost.unpricedModels.join(', ')}` : ''}`);
  }
  lines.push('');
  type Row = { offset: number; text: string };
  const rows: Row[] = [];
  for (const p of t.prompts) {
    const mark = p.active ? '●' : `${'│ '.repeat(Math.max(p.lane - 1, 0))}└○`;
    const num = p.active ? String(p.number).padStart(3) : '   ';
    const tools = p.turn.toolCalls.length ? ` · ${plural(p.turn.toolCalls.length, 'tool')}` : '';
    const files = p.turn.filesTouched.length ? ` · ${plural(p.turn.filesTouched.length, 'file')}` : '';
    // ◆ ours (the whole project), else ◇ the agent's own (only the files it edited). Ours taken
    // long after the prompt is the project as it was then, not before it (shared/checkpoint-time).
    const marker = p.checkpoint ? (p.checkpoint.later ? ` ◆ taken later (${p.checkpoint.time.slice(0, 16).replace('T', ' ')})` : ' ◆') : p.nativeCheckpoint ? ' ◇' : '';
    const dead = p.active ? '' : '  (dead branch)';
    const c = t.cost?.prompts[p.uuid]?.turn;
    const cost = c && c.usd !== null ? ` · ${formatCost(c)}` : '';
    rows.push({ offset: p.byteOffset, text: ` ${mark} ${num}  ${clock(p.timestamp)}  ${truncate(p.text || '[image]', 60)}${tools}${files}${cost}${marker}${dead}` });
  }
  for (const c of t.commands) rows.push({ offset: c.byteOffset, text: `   ·       ${clock(c.timestamp)}  ${c.name}${c.args ? ` ${truncate(c.args, 40)}` : ''}` });
  for (const c of t.compactions) rows.push({ offset: c.byteOffset, text: `  ┄┄ compacted here${c.preTokens ? ` (${c.preTokens} tokens)` : ''} ┄┄` });
  rows.sort((a, b) => a.offset - b.offset);
  for (const r of rows) lines.push(r.text);
  if (t.subagents.length) {
    lines.push('');
    for (const a of t.subagents) lines.push(`  subagent ${a.agentType ?? ''} "${truncate(a.description ?? '', 50)}" · ${a.messageCount} messages`);
  }
  return lines.join('\n');
}
