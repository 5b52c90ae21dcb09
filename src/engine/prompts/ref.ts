import type { Timeline } from '../../shared/session-schema.js';
import { RewindError } from '../errors.js';
import { plural } from '../../shared/wording.js';

/**
 * A prompt as a user names it: `#n` (the n-th prompt of the live path, as the timeline numbers it)
 * or a prompt id (any branch). The CLI's `back --to` and the MCP tools both read it here.
 */
export function promptOfRef(t: Pick<Timeline, 'prompts' | 'stats'>, ref: string): string {
  const m = /^#(\d+)$/.exec(ref);
  if (m) {
    const live = t.stats.activePrompts;
    const p = t.prompts.find((x) => x.number === Number(m[1]));
    if (!p) throw new RewindError('NOT_FOUND', `no prompt #${m[1]} on the live path: it has ${plural(live, 'prompt')} (#1 to #${live})`);
    return p.uuid;
  }
  if (!t.prompts.some((x) => x.uuid === ref)) throw new RewindError('NOT_FOUND', `no prompt ${ref} in this session (give a prompt uuid or #n)`);
  return ref;
}
