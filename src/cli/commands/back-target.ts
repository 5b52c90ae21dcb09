import type { AgentAdapter } from '../../engine/agents/adapter.js';
import { RewindError } from '../../engine/errors.js';
import { plural } from '../../shared/wording.js';

/** `back --to`: a prompt uuid (any branch) or `#n` (the n-th prompt of the live path), read by the session's agent. */
export async function targetPrompt(adapter: AgentAdapter, path: string, to: string): Promise<string> {
  const t = await adapter.timeline(path);
  const m = /^#(\d+)$/.exec(to);
  if (m) {
    const p = t.prompts.find((x) => x.number === Number(m[1]));
    if (!p) throw new RewindError('NOT_FOUND', `no prompt #${m[1]} on the live path: it has ${plural(t.stats.activePrompts, 'prompt')} (#1 to #${t.stats.activePrompts})`);
    return p.uuid;
  }
  if (!t.prompts.some((x) => x.uuid === to)) throw new RewindError('NOT_FOUND', `no prompt ${to} in this session (give a prompt uuid or #n)`);
  return to;
}
