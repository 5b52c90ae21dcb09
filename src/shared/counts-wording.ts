import type { SessionCounts } from './session-counts.js';
import { plural } from './wording.js';

/** "739 prompts on the live path · 531 on abandoned branches · 158 branch points" (the parts that are not zero). */
export function describeCounts(c: SessionCounts): string {
  const parts = [`${plural(c.livePrompts, 'prompt')} on the live path`];
  if (c.abandonedPrompts > 0) parts.push(`${c.abandonedPrompts} on abandoned branches`);
  if (c.branchPoints > 0) parts.push(plural(c.branchPoints, 'branch point'));
  return parts.join(' · ');
}

/** The same counts read back from a timeline document (its stats and branches come from sessionCounts). */
export function timelineCounts(t: { stats: { activePrompts: number; deadPrompts: number }; branches: unknown[] }): SessionCounts {
  return { livePrompts: t.stats.activePrompts, abandonedPrompts: t.stats.deadPrompts, branchPoints: t.branches.length };
}
