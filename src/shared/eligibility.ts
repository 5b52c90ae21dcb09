/**
 * Which of the four actions a prompt allows, and why not, before any click: the window greys the
 * button out with this reason, and the service refuses the same cases with the same words.
 */

export type ActionKind = 'fork' | 'rewrite' | 'restore' | 'fork-restore';

export interface PromptFacts {
  /** Number on the live path; null on an abandoned branch. */
  number: number | null;
  /** For a dead prompt: the live message its branch hangs off (null: before the first prompt). */
  forkPoint: string | null;
  /** The prompt its branch hangs off is before every prompt (a branch of the very first prompt). */
  firstOfItsPath: boolean;
  hasRewindCheckpoint: boolean;
  hasAgentCheckpoint: boolean;
}

export interface Eligibility {
  enabled: boolean;
  /** Why it is off, or what to know before using it (a warning when enabled). */
  reason: string | null;
}

export const FIRST_PROMPT_REASON = 'This is the first prompt: nothing before it would be left to resume. Start a new session instead.';
export const DEAD_RESTORE_REASON =
  "This prompt is on an abandoned branch and Rewind took no checkpoint before it; the agent's own file history covers only the live path. Fork here to continue the chat from it, or restore the code of a live prompt.";
export const NO_CHECKPOINT_REASON = "No checkpoint covers this prompt: Rewind took none before it (it takes one before every prompt once the agent's hooks are installed: rewind-app hooks install), and the agent's own store has nothing for it.";
export const WRITING_REASON = 'The agent is writing this session right now. Stop it before rewriting: its next write would land in the replaced file. A fork is safe.';

export function eligibility(action: ActionKind, p: PromptFacts, opts: { sessionLive: boolean }): Eligibility {
  const chat = action !== 'restore';
  if (chat && p.firstOfItsPath) return { enabled: false, reason: FIRST_PROMPT_REASON };
  if (action === 'restore' || action === 'fork-restore') {
    if (p.number === null && !p.hasRewindCheckpoint) return { enabled: false, reason: DEAD_RESTORE_REASON };
    if (!p.hasRewindCheckpoint && !p.hasAgentCheckpoint) return { enabled: false, reason: NO_CHECKPOINT_REASON };
  }
  if (action === 'rewrite' && opts.sessionLive) return { enabled: true, reason: WRITING_REASON };
  return { enabled: true, reason: null };
}
