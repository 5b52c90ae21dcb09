import { z } from 'zod';

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

// The wording lives in a module without zod, so the window's first chunk does not carry it.
export { describeCounts, timelineCounts } from './counts-wording.js';
