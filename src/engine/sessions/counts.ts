import type { SessionCounts } from '../../shared/session-counts.js';

export type { SessionCounts } from '../../shared/session-counts.js';

/**
 * The counts of a parsed session (see SessionCounts for what each one means). Pure: the model
 * already knows the live path and its branch points.
 */
export function sessionCounts(model: { prompts: readonly { uuid: string }[]; active: ReadonlySet<string>; branchPoints: { readonly size: number } }): SessionCounts {
  let live = 0;
  for (const p of model.prompts) if (model.active.has(p.uuid)) live++;
  return { livePrompts: live, abandonedPrompts: model.prompts.length - live, branchPoints: model.branchPoints.size };
}
