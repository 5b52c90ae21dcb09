import { RewindError } from '../errors.js';
import { readFirstLine } from '../io/first-line.js';
import { statSessionPath } from '../io/store-ref.js';
import { AGENT_IDS as SHARED_AGENT_IDS, type AgentId } from '../../shared/agent-ids.js';
import type { AgentAdapter } from './adapter.js';
import { guardRewind } from './open-session.js';
import { claude } from './claude/adapter.js';
import { codex } from './codex/adapter.js';
import { droid } from './droid/adapter.js';
import { qwen } from './qwen/adapter.js';
import { gemini } from './gemini/adapter.js';
import { copilot } from './copilot/adapter.js';
import { opencode } from './opencode/adapter.js';
import { kilo } from './kilo/adapter.js';

/**
 * Every agent Rewind knows. Adding an agent: a folder `agents/<id>/` whose `adapter.ts` exports an
 * `AgentAdapter`, its id in `src/shared/agent-ids.ts` (the contract's list, which also sets the
 * order the tie-breaks prefer: a bare id found under two agents, the newest session of a folder),
 * and one line here. `satisfies` fails the build when an id of that list has no adapter here, or
 * an adapter here has no id there. Each adapter's `rewind` goes through `guardRewind`: no door
 * rewrites a session an agent has open.
 */
export const ADAPTERS = {
  claude: guardRewind(claude),
  codex: guardRewind(codex),
  droid: guardRewind(droid),
  qwen: guardRewind(qwen),
  gemini: guardRewind(gemini),
  copilot: guardRewind(copilot),
  opencode: guardRewind(opencode),
  kilo: guardRewind(kilo),
} as const satisfies Record<AgentId, AgentAdapter>;

export type { AgentId };
/** The agents in registry order: the shared list's (the registry's own key order plays no part). */
export const AGENT_IDS: [AgentId, ...AgentId[]] = [...SHARED_AGENT_IDS];
export const ALL_ADAPTERS: readonly AgentAdapter[] = AGENT_IDS.map((id) => ADAPTERS[id]);
/** The first agent: its root is the one `--claude-dir`, the settings and the demo set. */
export const AGENT_PRIMARY: AgentId = AGENT_IDS[0];

export function adapterFor(id: string): AgentAdapter {
  const a = (ADAPTERS as Record<string, AgentAdapter>)[id];
  if (!a) throw new RewindError('UNSUPPORTED', `unknown agent "${id}"`);
  return a;
}

/** What the window shows of each agent: the renderer names agents only through this. */
export function agentInfo(): { id: AgentId; displayName: string; badge: string; hooks: boolean; code: boolean; codeMarks: boolean }[] {
  return AGENT_IDS.map((id) => ({ id, displayName: ADAPTERS[id].displayName, badge: ADAPTERS[id].badge, hooks: !!ADAPTERS[id].hooks, code: !!ADAPTERS[id].codeHistory, codeMarks: !!ADAPTERS[id].codeHistory?.marksPrompts }));
}

/** Per-agent root overrides (a CLI flag, the demo); the rest come from env. */
export type AgentRoots = Partial<Record<AgentId, string | null>>;

/** Each agent's root; an explicit null leaves the agent out (the demo shows only its own data). */
export function rootsFor(env: NodeJS.ProcessEnv, overrides: AgentRoots = {}): { adapter: AgentAdapter; root: string }[] {
  const out: { adapter: AgentAdapter; root: string }[] = [];
  for (const id of AGENT_IDS) {
    const o = overrides[id];
    if (o === null) continue;
    out.push({ adapter: ADAPTERS[id], root: ADAPTERS[id].root(env, o) });
  }
  return out;
}

/** Which agent wrote a session file: decided by each adapter from its path and first line. */
export async function adapterOfFile(path: string): Promise<AgentAdapter> {
  const first = await readFirstLine(path).catch(() => null);
  // The default (Claude Code) is the one whose files carry no header: asked last.
  const ordered = [...ALL_ADAPTERS].sort((a, b) => Number(a.id === 'claude') - Number(b.id === 'claude'));
  return ordered.find((a) => a.owns(path, first)) ?? ADAPTERS.claude;
}

const looksLikePath = (ref: string) => ref.includes('/') || ref.includes('\\') || ref.endsWith('.jsonl');

/**
 * The one way to find a session file: by path, id or id prefix across agents (first match in
 * registry order; throws NOT_FOUND when none); with no ref, the newest session that ran in `cwd`
 * (null when none).
 */
export async function findSession(ref: string | null | undefined, roots: { adapter: AgentAdapter; root: string }[], cwd?: string): Promise<{ adapter: AgentAdapter; path: string } | null> {
  if (ref) return findSessionAcross(ref, roots);
  if (cwd === undefined) return null;
  for (const { adapter, root } of roots) {
    const path = await adapter.newestFor(cwd, root).catch(() => null);
    if (path) return { adapter, path };
  }
  return null;
}

async function findSessionAcross(ref: string, roots: { adapter: AgentAdapter; root: string }[]): Promise<{ adapter: AgentAdapter; path: string }> {
  if (looksLikePath(ref)) {
    // A session inside an agent's database is `<store>#<session id>`: the store is the file.
    const st = await statSessionPath(ref);
    if (!st) throw new RewindError('NOT_FOUND', `transcript not found: ${ref}`);
    if (!st.isFile()) throw new RewindError('INVALID_TRANSCRIPT', `not a transcript file: ${ref}`);
    return { adapter: await adapterOfFile(ref), path: ref };
  }
  for (const { adapter, root } of roots) {
    const path = await adapter.find(ref, root);
    if (path) return { adapter, path };
  }
  throw new RewindError('NOT_FOUND', `no session "${ref}" under ${roots.map((r) => r.root).join(' or ')}`);
}
