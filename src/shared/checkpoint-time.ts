/**
 * When a Rewind checkpoint counts as "the project before this prompt": taken before the prompt's
 * own time, or within this long after it (the hook and the window's watcher run as the agent
 * writes the prompt). A checkpoint taken later holds the project as it was then, not before the
 * prompt: the window labels it so and no restore offers it as the prompt's code.
 */
export const CHECKPOINT_LATE_MS = 120_000;

/** Was this checkpoint taken long after its prompt (by the prompt's own timestamp)? Unknown times: no. */
export function takenLater(promptTime: string | null, checkpointTime: string): boolean {
  const p = promptTime ? Date.parse(promptTime) : NaN;
  const c = Date.parse(checkpointTime);
  return Number.isFinite(p) && Number.isFinite(c) && c - p > CHECKPOINT_LATE_MS;
}
