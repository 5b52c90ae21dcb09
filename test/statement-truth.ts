import { readFile, rm } from 'node:fs/promises';
import type { AgentAdapter, RewindMode, RewindOutcome } from '../src/engine/agents/adapter.js';
import type { TimelinePrompt } from '../src/shared/session-schema.js';
import { pathTo, promptParents } from '../src/engine/insight/prompt-tree.js';

/**
 * The truth check of a rewind statement, independent of the plan: rewind for real, read the file
 * it wrote back with the adapter's own timeline, and compare what is gone with what was named.
 * Prompts are matched by text and time (Codex names a prompt by its byte offset, which a rewrite moves).
 */

const keyOf = (p: { text: string; timestamp: string | null }) => `${p.timestamp ?? ''}\u0000${p.text}`;

export interface TruthCase {
  adapter: AgentAdapter;
  /** A writable copy of the session (an in-place case rewrites it). */
  path: string;
  target: TimelinePrompt;
  mode: RewindMode;
  projectRoot: string;
  agentRoot?: string | null;
}

export interface TruthResult {
  /** The prompts the result no longer holds, by text: what the preview must name. */
  gone: string[];
  /** What the preview named (the button's count is their number). */
  named: string[];
  /** Every gone prompt named, nothing else, and the button counts them. */
  namesEvery: boolean;
  /** The live prompts named are exactly the live prompts the result no longer resumes with. */
  liveExact: boolean;
  /** The kept end is the last prompt the result resumes with. */
  keptEndRight: boolean;
  /** The dry run said what the write then did. */
  sameAsWritten: boolean;
  /** The rewind refused (the first prompt, a dead Gemini prompt): not a preview the window offers. */
  refused: string | null;
}

/** What the preview named: the statement's lists, or (an agent without one) the prompts it listed. */
export function namedBy(r: RewindOutcome): { uuid: string }[] {
  const s = r.statement;
  if (!s) return r.prompts;
  const seen = new Map<string, { uuid: string }>();
  for (const p of [...s.droppedLive, ...s.handedBack, ...s.droppedBranch, ...(s.droppedOther ?? [])]) seen.set(p.uuid, p);
  return [...seen.values()];
}

export async function checkTruth(c: TruthCase): Promise<TruthResult> {
  const before = await c.adapter.timeline(c.path);
  const originalBytes = await readFile(c.path);
  const live = before.prompts.filter((p) => p.active);
  const base = { transcriptPath: c.path, promptUuid: c.target.uuid, mode: c.mode, projectRoot: c.projectRoot, agentRoot: c.agentRoot ?? null, force: true, livePromptCount: live.length };
  let dry: RewindOutcome;
  try {
    dry = await c.adapter.rewind!({ ...base, dryRun: true });
  } catch (e) {
    return { gone: [], named: [], namesEvery: true, liveExact: true, keptEndRight: true, sameAsWritten: true, refused: (e as { code?: string }).code ?? String(e) };
  }
  const done = await c.adapter.rewind!(base);
  const resultPath = c.mode === 'fork' ? done.forkPath! : c.path;
  const after = await c.adapter.timeline(resultPath);
  if (c.mode === 'fork') {
    if (!(await readFile(c.path)).equals(originalBytes)) throw new Error('a fork changed the original');
    await rm(resultPath, { force: true });
  }
  const byUuid = new Map(before.prompts.map((p) => [p.uuid, p]));
  const liveAfter = after.prompts.filter((p) => p.active).sort((a, b) => a.number! - b.number!);
  const liveAfterKeys = new Set(liveAfter.map(keyOf));
  const holdsAfter = new Set(after.prompts.map(keyOf));
  // Gone: live prompts the result no longer resumes with, the target, and (in place) every prompt
  // the file no longer holds; a fork also leaves out the rest of the target's abandoned branch.
  const gone = new Set<string>();
  for (const p of live) if (!liveAfterKeys.has(keyOf(p))) gone.add(keyOf(p));
  gone.add(keyOf(c.target));
  if (c.mode === 'in-place') {
    for (const p of before.prompts) if (!holdsAfter.has(keyOf(p))) gone.add(keyOf(p));
  } else if (!c.target.active) {
    const parents = promptParents(before);
    for (const p of before.prompts) if (!p.active && p.uuid !== c.target.uuid && pathTo(before, p.uuid, parents).some((q) => q.uuid === c.target.uuid) && !liveAfterKeys.has(keyOf(p))) gone.add(keyOf(p));
  }
  const namedKeys = new Set(namedBy(dry).map((p) => byUuid.get(p.uuid)).filter((p): p is TimelinePrompt => !!p).map(keyOf));
  const namedCount = namedBy(dry).length;
  const namesEvery = namedCount === gone.size && [...gone].every((k) => namedKeys.has(k));
  const s = dry.statement;
  const droppedLive = s ? s.droppedLive.map((p) => byUuid.get(p.uuid)).filter((p): p is TimelinePrompt => !!p).map(keyOf) : [];
  const expectedLive = live.filter((p) => !liveAfterKeys.has(keyOf(p))).map(keyOf);
  const liveExact = !!s && JSON.stringify(droppedLive) === JSON.stringify(expectedLive);
  const endKey = s?.keptEnd ? keyOf(s.keptEnd) : null;
  const keptEndRight = !!s && endKey === (liveAfter.length ? keyOf(liveAfter[liveAfter.length - 1]!) : null);
  const strip = (x: RewindOutcome) => JSON.stringify(x.statement ?? null);
  const text = (k: string) => k.split('\u0000')[1]!;
  return { gone: [...gone].map(text), named: [...namedKeys].map(text), namesEvery, liveExact, keptEndRight, sameAsWritten: strip(dry) === strip(done), refused: null };
}
