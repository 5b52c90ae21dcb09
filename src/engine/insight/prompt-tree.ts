import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';

/**
 * Each prompt's parent prompt. Readers that know the tree say so (parentPrompt); for the others the
 * previous prompt of the same lane is taken, which is right for every linear agent.
 */
export function promptParents(t: Timeline): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const lastInLane = new Map<number, string>();
  for (const p of t.prompts) {
    out.set(p.uuid, p.parentPrompt !== undefined ? p.parentPrompt : (lastInLane.get(p.lane) ?? null));
    lastInLane.set(p.lane, p.uuid);
  }
  return out;
}

/** The prompts from the first of its conversation down to `uuid`, in order. */
export function pathTo(t: Timeline, uuid: string, parents = promptParents(t)): TimelinePrompt[] {
  const byUuid = new Map(t.prompts.map((p) => [p.uuid, p]));
  const out: TimelinePrompt[] = [];
  const seen = new Set<string>();
  for (let u: string | null | undefined = uuid; u && !seen.has(u); u = parents.get(u)) {
    seen.add(u);
    const p = byUuid.get(u);
    if (!p) break;
    out.push(p);
  }
  return out.reverse();
}

/**
 * From a prompt down to the end of its branch: on the live path the live child, elsewhere the
 * newest child (the last one in file order), until a prompt has none.
 */
export function pathToEnd(t: Timeline, uuid: string, parents = promptParents(t)): TimelinePrompt[] {
  const children = new Map<string, TimelinePrompt[]>();
  for (const p of t.prompts) {
    const parent = parents.get(p.uuid);
    if (parent) children.set(parent, [...(children.get(parent) ?? []), p]);
  }
  const out: TimelinePrompt[] = [];
  const seen = new Set<string>();
  let cur = t.prompts.find((p) => p.uuid === uuid);
  while (cur && !seen.has(cur.uuid)) {
    seen.add(cur.uuid);
    out.push(cur);
    const kids: TimelinePrompt[] = children.get(cur.uuid) ?? [];
    cur = (cur.active ? kids.find((k) => k.active) : undefined) ?? kids[kids.length - 1];
  }
  return out;
}
