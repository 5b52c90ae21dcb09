import type { Timeline } from '../../shared/session-schema.js';
import type { AgentTreeBefore } from './compare-code.js';
import { RewindError } from '../errors.js';
import { resolveSessionFile, timelineOfFile } from '../sessions/files.js';
import { AGENT_PRIMARY, adapterOfFile } from '../agents/registry.js';
import { withCost } from '../../shared/insight/cost.js';
import { loadPrices } from './load-prices.js';
import type { PriceBook } from '../../shared/insight/prices.js';
import type { ExportItem } from './export.js';
import { plainItems } from '../turn/plain.js';

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
 * by the agent's own turn reader, one turn at a time (the long part of an export: progress and
 * cancel are between turns).
 */
export async function readTurns(file: string, timeline: Timeline, uuids: string[], opts: ReadTurnsOptions = {}): Promise<Map<string, ExportItem[]>> {
  const out = new Map<string, ExportItem[]>();
  const adapter = await adapterOfFile(file);
  const known = new Set(timeline.prompts.map((p) => p.uuid));
  const wanted = uuids.filter((u) => known.has(u));
  opts.onProgress?.({ done: 0, total: wanted.length });
  for (const [i, u] of wanted.entries()) {
    // Between turns: a cancelled export stops here, with nothing returned.
    opts.signal?.throwIfAborted();
    out.set(u, plainItems((await adapter.turn(file, u)).items));
    opts.onProgress?.({ done: i + 1, total: wanted.length });
  }
  return out;
}

export interface ReadTurnsOptions {
  /** Aborted: the read stops before the next turn and throws the signal's reason. */
  signal?: AbortSignal;
  onProgress?: (p: { done: number; total: number }) => void;
}

/** The agent's own store (its `codeHistory`) as a tree before a prompt, if it keeps one. */
export async function agentTreeBefore(file: string, agentRoot: string, projectRoot: string): Promise<AgentTreeBefore | undefined> {
  const adapter = await adapterOfFile(file);
  const history = adapter.codeHistory;
  if (!history) return undefined;
  const { treeOfAgentStore } = await import('../store/restore.js');
  // The root given is the primary agent's (the app's settings); another agent finds its own store.
  const root = adapter.id === AGENT_PRIMARY ? agentRoot : null;
  return async (promptUuid) => {
    const before = await history.before({ transcriptPath: file, promptUuid, projectRoot, agentRoot: root });
    if (!before) return null;
    const { tree, coverage } = treeOfAgentStore(before, new Map());
    return { tree, coverage, read: (ref) => before.read(ref) };
  };
}
