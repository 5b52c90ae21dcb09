import type { RewindMode, RewindStatement, StatedPrompt } from './adapter.js';

/** A prompt of the session as it is before the rewind, in file order. */
export interface PromptBefore {
  uuid: string;
  text: string;
  images: number;
  timestamp: string | null;
  /** On the live path now. */
  live: boolean;
  /** Its #n on the live path (null when abandoned). */
  number: number | null;
}

/** What the planned result holds, read off the bytes the plan will write (never predicted). */
export interface PlannedResult {
  /** Prompts the written file holds, on any branch. */
  holds: ReadonlySet<string>;
  /** The prompts a resume of the result sends, oldest first. */
  live: readonly string[];
}

export interface StatementInput {
  mode: RewindMode;
  before: readonly PromptBefore[];
  result: PlannedResult;
  /** The prompt cut before. */
  target: string;
  /** Is this abandoned prompt on the target's own branch, after it? */
  onTargetBranch: (uuid: string) => boolean;
  /** The prompts handed back to edit, oldest first (the plan's reverted prompts). */
  handedBack: readonly string[];
  leftOutMessages: number;
}

/**
 * Pure: the rewind statement of any agent, from the session before and the result the plan writes.
 * Every prompt the result no longer holds is in exactly one list: live ones in `droppedLive`, the
 * target's own branch in `droppedBranch`, other abandoned branches an in-place cut takes out of the
 * file in `droppedOther` (a fork leaves the original whole, so it names none there).
 */
export function statementOfPlan(i: StatementInput): RewindStatement {
  const byUuid = new Map(i.before.map((p) => [p.uuid, p]));
  const state = (p: PromptBefore): StatedPrompt => ({ uuid: p.uuid, text: p.text, images: p.images, timestamp: p.timestamp, number: p.live ? p.number : null, live: p.live });
  const liveAfter = new Set(i.result.live);
  const target = byUuid.get(i.target);
  const targetLive = target?.live ?? true;
  const droppedLive = i.before.filter((p) => p.live && !liveAfter.has(p.uuid));
  const abandonedGone = i.before.filter((p) => !p.live && p.uuid !== i.target && !liveAfter.has(p.uuid));
  const droppedBranch = targetLive ? [] : abandonedGone.filter((p) => i.onTargetBranch(p.uuid));
  const inBranch = new Set(droppedBranch.map((p) => p.uuid));
  const others = abandonedGone.filter((p) => !inBranch.has(p.uuid));
  const droppedOther = i.mode === 'in-place' ? others.filter((p) => !i.result.holds.has(p.uuid)) : [];
  const keptAbandoned = i.mode === 'in-place' ? others.filter((p) => i.result.holds.has(p.uuid)).length : 0;
  const keptEndUuid = i.result.live[i.result.live.length - 1];
  const keptEnd = keptEndUuid ? byUuid.get(keptEndUuid) : undefined;
  return {
    mode: i.mode,
    keptEnd: keptEnd ? state(keptEnd) : null,
    droppedLive: droppedLive.map(state),
    droppedBranch: droppedBranch.map(state),
    droppedOther: droppedOther.map(state),
    keptAbandoned,
    droppedLiveKept: i.mode === 'in-place' ? droppedLive.filter((p) => i.result.holds.has(p.uuid)).length : 0,
    handedBack: i.handedBack.map((u) => byUuid.get(u)).filter((p): p is PromptBefore => !!p).map(state),
    targetLive,
    leftOutMessages: i.leftOutMessages,
  };
}

/** An agent's timeline rows as the statement reads them. */
export function promptsOfTimeline(rows: readonly { uuid: string; text: string; images: number; timestamp: string | null; active: boolean; number: number | null }[]): PromptBefore[] {
  return rows.map((p) => ({ uuid: p.uuid, text: p.text, images: p.images, timestamp: p.timestamp, live: p.active, number: p.number }));
}

/** What a file holds and resumes with, from its own timeline rows (file order; live rows in order). */
export function resultOfTimeline(rows: readonly { uuid: string; active: boolean; number: number | null }[]): PlannedResult {
  return { holds: new Set(rows.map((p) => p.uuid)), live: rows.filter((p) => p.active).sort((a, b) => a.number! - b.number!).map((p) => p.uuid) };
}
