import { parsePatch } from 'diff';

/** One line of a hunk, with its numbers on each side (null where the line is not on that side). */
export interface DiffLine {
  kind: 'add' | 'del' | 'ctx' | 'note';
  text: string;
  oldNo: number | null;
  newNo: number | null;
}

export interface Hunk {
  header: string;
  lines: DiffLine[];
}

export interface ParsedPatch {
  hunks: Hunk[];
  added: number;
  removed: number;
}

/** The hunks of a one-file unified diff, numbered; the file header lines are dropped. */
export function parseFilePatch(patch: string): ParsedPatch {
  const file = parsePatch(patch)[0];
  let added = 0;
  let removed = 0;
  const hunks = (file?.hunks ?? []).map((h) => {
    let o = h.oldStart;
    let n = h.newStart;
    const lines: DiffLine[] = [];
    for (const raw of h.lines) {
      const sign = raw[0];
      const text = raw.slice(1);
      if (sign === '+') {
        added++;
        lines.push({ kind: 'add', text, oldNo: null, newNo: n++ });
      } else if (sign === '-') {
        removed++;
        lines.push({ kind: 'del', text, oldNo: o++, newNo: null });
      } else if (sign === '\\') lines.push({ kind: 'note', text: raw, oldNo: null, newNo: null });
      else lines.push({ kind: 'ctx', text, oldNo: o++, newNo: n++ });
    }
    // jsdiff reads an empty side's start one past the line before it (`-0,0` as oldStart 1): written back as the patch had it.
    const oldStart = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart;
    const newStart = h.newLines === 0 ? h.newStart - 1 : h.newStart;
    return { header: `@@ -${oldStart},${h.oldLines} +${newStart},${h.newLines} @@`, lines };
  });
  return { hunks, added, removed };
}

/** A row of the side-by-side view: what is on the left (current) and on the right (restored). */
export interface SplitRow {
  left: DiffLine | null;
  right: DiffLine | null;
}

/** Pairs each run of removed lines with the added lines that follow it, so changed lines face each other. */
export function splitRows(lines: DiffLine[]): SplitRow[] {
  const rows: SplitRow[] = [];
  let i = 0;
  while (i < lines.length) {
    const l = lines[i]!;
    if (l.kind === 'ctx' || l.kind === 'note') {
      rows.push({ left: l, right: l });
      i++;
      continue;
    }
    const dels: DiffLine[] = [];
    const adds: DiffLine[] = [];
    while (i < lines.length && lines[i]!.kind === 'del') dels.push(lines[i++]!);
    while (i < lines.length && lines[i]!.kind === 'add') adds.push(lines[i++]!);
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) rows.push({ left: dels[k] ?? null, right: adds[k] ?? null });
  }
  return rows;
}

/** The hunks cut after `max` lines, and how many lines that leaves out: a drawn diff stays bounded. */
export function capHunks(hunks: Hunk[], max: number): { hunks: Hunk[]; hidden: number } {
  const out: Hunk[] = [];
  let left = max;
  let hidden = 0;
  for (const h of hunks) {
    if (left <= 0) hidden += h.lines.length;
    else if (h.lines.length <= left) out.push(h);
    else {
      out.push({ header: h.header, lines: h.lines.slice(0, left) });
      hidden += h.lines.length - left;
    }
    left -= h.lines.length;
  }
  return { hunks: out, hidden };
}
