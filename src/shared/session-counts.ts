import { z } from 'zod';
import { plural } from './wording.js';

/**
 * The three counts a session is described by, everywhere (timeline header, sidebar, CLI
 * `timeline`/`sessions`): one definition so they always agree.
 * - livePrompts: human prompts on the live path (what a resume sends the model);
 * - abandonedPrompts: human prompts on abandoned (rewound-away) branches;
 * - branchPoints: live messages from which at least one abandoned branch holding a prompt hangs off
 *   (parallel tool calls also give a message two children; those are not branch points).
 */
export const SessionCountsSchema = z.object({
  livePrompts: z.number().int(),
  abandonedPrompts: z.number().int(),
  branchPoints: z.number().int(),
});
export type SessionCounts = z.infer<typeof SessionCountsSchema>;

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
