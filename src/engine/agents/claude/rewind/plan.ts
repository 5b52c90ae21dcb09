import type { RevertedPrompt, TailScan } from './tail-scan.js';

export interface ByteRange {
  offset: number;
  length: number;
}

export interface RewindPlan {
  /** Bytes [0, boundaryOffset) are what is kept, minus `drop`. */
  boundaryOffset: number;
  /** Lines inside the kept prefix to leave out: a dead branch that a resume would otherwise pick. */
  drop: ByteRange[];
  droppedMessages: number;
  /** Size of the rewound transcript. */
  resultSize: number;
  prompts: RevertedPrompt[];
  keepLeafUuid: string | null;
  /** Lines in the scanned tail that did not parse (reported, skipped). */
  garbageLines: number;
}

/**
 * Pure: where to cut, and what to leave out. The boundary is the Nth-last prompt's line, moved back
 * over the queue-operation lines written just before it. Between the intended leaf (the prompt's
 * parent) and the boundary, every transcript message is off the live path and newer than the
 * intended leaf, so the CLI would resume there: those messages go, with the metadata lines that
 * belong to them.
 */
export function planRewind(scan: TailScan): RewindPlan {
  const first = scan.prompts[0]!;
  const lines = scan.lines;
  let idx = lines.findIndex((l) => l.offset === first.offset);
  let boundaryOffset = first.offset;
  while (idx > 0 && lines[idx - 1]!.type === 'queue-operation') {
    idx--;
    boundaryOffset = lines[idx]!.offset;
  }
  const keepFrom = scan.keepLeaf ? scan.keepLeaf.offset : null;
  const region = keepFrom === null ? [] : lines.filter((l) => l.offset > keepFrom && l.offset < boundaryOffset);

  const dropped = new Set<string>();
  const revertedTexts = new Set(scan.prompts.map((p) => p.text));
  for (const l of region) if (l.isMessage && !l.isSidechain && l.uuid) dropped.add(l.uuid);

  const dropOffsets = new Set<number>(queuedLeftovers(lines, scan.contextFrom, boundaryOffset, revertedTexts));
  const drop: ByteRange[] = [];
  let ownerDropped = false; // owner of plain metadata: the message line before it in the region
  for (let i = 0; i < region.length; i++) {
    const l = region[i]!;
    let leave = false;
    if (l.isMessage) {
      leave = !l.isSidechain && dropped.has(l.uuid!);
      ownerDropped = leave;
    } else if (l.refersTo) {
      leave = dropped.has(l.refersTo);
    } else if (l.type === 'queue-operation') {
      // An enqueue/dequeue belongs to the next prompt; if none follows in the region, to the reverted one.
      const next = region.slice(i + 1).find((r) => r.isMessage && !r.isSidechain);
      leave = next ? dropped.has(next.uuid!) : true;
    } else {
      leave = ownerDropped;
    }
    if (leave) dropOffsets.add(l.offset);
  }
  for (const l of lines) {
    if (!dropOffsets.has(l.offset)) continue;
    const prev = drop[drop.length - 1];
    if (prev && prev.offset + prev.length === l.offset) prev.length += l.length;
    else drop.push({ offset: l.offset, length: l.length });
  }
  const droppedBytes = drop.reduce((s, r) => s + r.length, 0);
  return {
    boundaryOffset,
    drop,
    droppedMessages: dropped.size,
    resultSize: boundaryOffset - droppedBytes,
    prompts: scan.prompts,
    keepLeafUuid: scan.keepLeaf?.uuid ?? null,
    garbageLines: scan.lines.filter((l) => l.garbage !== null).length,
  };
}

/**
 * Enqueue lines still pending at the boundary whose prompt is being reverted: without them no
 * trace of the prompt stays, even when it was queued while the agent was busy with an earlier turn.
 */
function queuedLeftovers(lines: TailScan['lines'], from: number, boundary: number, reverted: Set<string>): number[] {
  const pending: { offset: number; content: string | null }[] = [];
  for (const l of lines) {
    if (l.offset < from || l.offset >= boundary || l.type !== 'queue-operation') continue;
    if (l.queueOp === 'enqueue') pending.push({ offset: l.offset, content: l.queueContent });
    else if (l.queueOp === 'dequeue') pending.shift();
  }
  return pending.filter((p) => p.content !== null && reverted.has(p.content)).map((p) => p.offset);
}

/** The byte ranges of the source that make up the result, in order. */
export function keptRanges(plan: Pick<RewindPlan, 'boundaryOffset' | 'drop'>): ByteRange[] {
  const out: ByteRange[] = [];
  let pos = 0;
  for (const d of plan.drop) {
    if (d.offset > pos) out.push({ offset: pos, length: d.offset - pos });
    pos = d.offset + d.length;
  }
  if (plan.boundaryOffset > pos) out.push({ offset: pos, length: plan.boundaryOffset - pos });
  return out;
}
