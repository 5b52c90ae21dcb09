import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Timeline } from '../../shared/session-schema.js';
import type { AgentTreeBefore } from './compare-code.js';
import { RewindError } from '../errors.js';
import { resolveSessionFile, timelineOfFile } from '../session-files.js';
import { AGENT_PRIMARY, adapterOfFile } from '../agents/registry.js';
import { withCost } from '../../shared/insight/cost.js';
import { loadPrices } from './load-prices.js';
import type { PriceBook } from '../../shared/insight/prices.js';
import type { ExportItem } from './export.js';
import { plainItems } from '../turn-plain.js';

/** A session read for insight: its file, its timeline with costs, and a notice from the price table. */
export async function insightTimeline(ref: string | undefined, opts: { cwd: string; env: NodeJS.ProcessEnv; claudeRoot?: string }): Promise<{ file: string; timeline: Timeline; book: PriceBook; notice: string | null }> {
  const found = await resolveSessionFile(ref, { cwd: opts.cwd, env: opts.env, roots: { [AGENT_PRIMARY]: opts.claudeRoot } });
  const file = found?.path;
  if (!file) throw new RewindError('NO_TRANSCRIPT', `no session for ${opts.cwd} (pass a session id or path)`);
  const { book, notice } = await loadPrices(opts.env);
  return { file, timeline: withCost(await timelineOfFile(file), book), book, notice };
}

/**
 * The items of each listed prompt's turn (replies, tool calls, results), read from the session file
 * by the agent's own turn reader.
 */
export async function readTurns(file: string, timeline: Timeline, uuids: string[]): Promise<Map<string, ExportItem[]>> {
  const out = new Map<string, ExportItem[]>();
  const adapter = await adapterOfFile(file);
  for (const u of uuids) if (timeline.prompts.some((p) => p.uuid === u)) out.set(u, plainItems((await adapter.turn(file, u)).items));
  return out;
}

/** The agent's own file history as a tree before a prompt (Claude Code's file-history), if it keeps one. */
export async function agentTreeBefore(file: string, claudeRoot: string, projectRoot: string): Promise<AgentTreeBefore | undefined> {
  if (!(await adapterOfFile(file)).fileHistory) return undefined;
  const { parseTranscriptFile } = await import('../agents/claude/parse-transcript.js');
  const { nativeTarget } = await import('../agents/claude/native-restore.js');
  const parsed = await parseTranscriptFile(file);
  // Paths the agent tracked are relative to the session's folder; when that folder is not on this
  // machine (a copied session), the project given stands in for it.
  const model = parsed.cwd && existsSync(parsed.cwd) ? parsed : { ...parsed, cwd: projectRoot };
  return async (promptUuid) => {
    const t = await nativeTarget(model, promptUuid, claudeRoot, projectRoot);
    return { tree: t.target, coverage: t.coverage, read: (ref) => readFile(t.blobs.get(ref) ?? '\0') };
  };
}
