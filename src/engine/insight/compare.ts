import { RewindError } from '../errors.js';
import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import { pathTo, pathToEnd, promptParents } from './prompt-tree.js';

export interface CompareSide {
  /** The session the side is read from. */
  sessionId: string;
  /** The prompt the user picked. */
  picked: TimelinePrompt;
  /** The side's prompts after the common ancestor, to the end of its branch. */
  prompts: TimelinePrompt[];
  /** The last prompt of the side: its turn left the code this side ended with. */
  end: TimelinePrompt | null;
}

export interface PromptComparison {
  /** The last prompt both sides share (null: they share nothing). */
  ancestor: TimelinePrompt | null;
  a: CompareSide;
  b: CompareSide;
}

/** The session a timeline is: a Claude fork keeps its original's id inside, so its file name says. */
export function sessionIdOf(t: Timeline): string {
  const base = t.session.transcriptPath.split(/[\\/]/).pop()?.replace(/\.jsonl$/, '') ?? '';
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(base) ? base : t.session.id;
}

const samePrompt = (x: TimelinePrompt, y: TimelinePrompt) => x.uuid === y.uuid || (x.text === y.text && x.timestamp !== null && x.timestamp === y.timestamp);

/**
 * Pure: two prompts side by side from their common ancestor. Each side runs on from the picked
 * prompt to the end of its branch, unless one picked prompt lies on the other's path: then the
 * sides stop exactly at the picked prompts (comparing two points of one line).
 * The prompts may come from two sessions (a fork and its original): prompts are matched by uuid,
 * or by text and time when a fork restamped its ids.
 */
export function comparePrompts(ta: Timeline, aUuid: string, tb: Timeline, bUuid: string): PromptComparison {
  const pickA = ta.prompts.find((p) => p.uuid === aUuid);
  const pickB = tb.prompts.find((p) => p.uuid === bUuid);
  if (!pickA || !pickB) throw new RewindError('NOT_FOUND', `no prompt ${!pickA ? aUuid : bUuid} in ${!pickA ? ta.session.id : tb.session.id}`);
  const pa = promptParents(ta);
  const pb = pa && ta === tb ? pa : promptParents(tb);
  const upA = pathTo(ta, aUuid, pa);
  const upB = pathTo(tb, bUuid, pb);
  let shared = 0;
  while (shared < upA.length && shared < upB.length && samePrompt(upA[shared]!, upB[shared]!)) shared++;
  const oneLine = shared === upA.length || shared === upB.length;
  const side = (t: Timeline, up: TimelinePrompt[], pick: TimelinePrompt, parents: Map<string, string | null>): CompareSide => {
    const prompts = oneLine ? up.slice(shared) : [...up.slice(shared, -1), ...pathToEnd(t, pick.uuid, parents)];
    return { sessionId: sessionIdOf(t), picked: pick, prompts, end: prompts[prompts.length - 1] ?? (shared ? up[shared - 1]! : null) };
  };
  return { ancestor: shared ? upA[shared - 1]! : null, a: side(ta, upA, pickA, pa), b: side(tb, upB, pickB, pb) };
}

/** The live end of a session: what comparing two whole sessions starts from. */
export function liveEnd(t: Timeline): TimelinePrompt | null {
  const live = t.prompts.filter((p) => p.active);
  return live[live.length - 1] ?? t.prompts[t.prompts.length - 1] ?? null;
}
