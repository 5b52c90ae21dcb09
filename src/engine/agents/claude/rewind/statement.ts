import type { RewindPlan } from './plan.js';
import type { TailLine, TailScan } from './tail-scan.js';
import type { RewindStatement, StatedPrompt } from '../../adapter.js';

export type { RewindStatement, StatedPrompt };

const parentOf = (l: TailLine) => l.parentUuid ?? l.logicalParentUuid;

/** Ancestors of `uuid` within the scanned tail (itself included), newest first. */
function chain(byUuid: Map<string, TailLine>, uuid: string | null): TailLine[] {
  const out: TailLine[] = [];
  const seen = new Set<string>();
  for (let u = uuid; u && !seen.has(u); ) {
    seen.add(u);
    const l = byUuid.get(u);
    if (!l) break;
    out.push(l);
    u = parentOf(l);
  }
  return out;
}

/**
 * Pure. `liveCount` is the number of prompts on the live path (from a full parse) when known: with
 * it every live prompt gets its #n; without it (a huge transcript in the CLI's fast path) the
 * statement names prompts by their text.
 */
export function rewindStatement(scan: TailScan, plan: RewindPlan, mode: 'fork' | 'in-place', liveCount: number | null = null): RewindStatement {
  const byUuid = new Map<string, TailLine>();
  for (const l of scan.lines) if (l.isMessage && !l.isSidechain && l.uuid) byUuid.set(l.uuid, l);
  const live = chain(byUuid, scan.leafUuid);
  const liveSet = new Set(live.map((l) => l.uuid!));
  // Newest first: the k-th live prompt from the end is #(liveCount - k).
  const livePrompts = live.filter((l) => l.prompt);
  const numberOf = new Map<string, number>();
  if (liveCount !== null) livePrompts.forEach((l, k) => numberOf.set(l.uuid!, liveCount - k));
  const state = (l: TailLine): StatedPrompt => ({
    uuid: l.uuid!,
    text: l.prompt!.text,
    images: l.prompt!.images,
    timestamp: l.prompt!.timestamp,
    number: numberOf.get(l.uuid!) ?? null,
    live: liveSet.has(l.uuid!),
  });

  const kept = chain(byUuid, scan.keepLeaf?.uuid ?? null);
  const keptSet = new Set(kept.map((l) => l.uuid!));
  const keptEndLine = kept.find((l) => l.prompt) ?? null;
  const droppedLive = livePrompts.filter((l) => !keptSet.has(l.uuid!)).reverse().map(state);

  const target = scan.prompts[0]!;
  const targetLive = liveSet.has(target.uuid);
  const droppedBranch: StatedPrompt[] = [];
  if (!targetLive) {
    for (const l of scan.lines) {
      if (!l.prompt || !l.uuid || l.isSidechain || l.uuid === target.uuid || liveSet.has(l.uuid) || keptSet.has(l.uuid)) continue;
      if (chain(byUuid, l.uuid).some((a) => a.uuid === target.uuid)) droppedBranch.push(state(l));
    }
  }
  // In place, the file loses every line past the cut and the plan's dropped lines: the prompts of
  // other abandoned branches among them are named too (a fork leaves the original whole).
  const droppedOther: StatedPrompt[] = [];
  if (mode === 'in-place') {
    const named = new Set([...droppedLive, ...droppedBranch].map((p) => p.uuid));
    const dropped = (l: TailLine) => l.offset >= plan.boundaryOffset || plan.drop.some((d) => l.offset >= d.offset && l.offset < d.offset + d.length);
    for (const l of scan.lines) {
      if (!l.prompt || !l.uuid || l.isSidechain || named.has(l.uuid) || liveSet.has(l.uuid) || l.uuid === target.uuid || scan.prompts.some((p) => p.uuid === l.uuid)) continue;
      if (dropped(l)) droppedOther.push(state(l));
    }
  }
  const handedBack = scan.prompts.map((p) => {
    const l = byUuid.get(p.uuid);
    return l?.prompt ? state(l) : { uuid: p.uuid, text: p.text, images: p.images, timestamp: p.timestamp, number: numberOf.get(p.uuid) ?? null, live: liveSet.has(p.uuid) };
  });
  return {
    mode,
    keptEnd: keptEndLine ? state(keptEndLine) : null,
    droppedLive,
    droppedBranch,
    droppedOther,
    // Claude resumes from the newest leaf, whatever its branch: nothing after the cut is kept.
    keptAbandoned: 0,
    handedBack,
    targetLive,
    leftOutMessages: plan.droppedMessages,
  };
}
