// AssemblyScript (compiled by scripts/build-wasm.mjs into ../line-scan-wasm.ts): the index build's
// per-line work on a session file's bytes. JavaScript finds the lines (Buffer.indexOf: the C
// library's memchr) and calls `line` once per line; every check on the line's bytes (prompt marker,
// message id and parent) and the live path's depth table run here. The same checks as native
// Buffer.indexOf calls cost ~1.3 µs a line in call overhead alone, most of a cold build's time.
//
// Memory (one instance per thread; nothing here is managed by AssemblyScript's runtime):
//   [base, base + CONFIG)       eleven patterns (64 bytes each), the last RECENT ids written, lengths
//   [input, input + inCap)      the file's bytes, read into it by JavaScript (`inputPtr`)
//   [arena, arena + arenaCap)   the bytes of every id seen in this file
//   [table, table + tableCap*16) open addressing: (key offset in arena, key length, depth, hash)
// Regions only move or grow in `reserve` and `reserveInput`, between JavaScript's reads.

const PAT = 64;
const P_MARKER = 0;
const P_NOT = 1;
const P_PARENT = 2;
const P_OWN = 3;
const P_EXCLUDE = 4;
const P_FALLBACK = 5;
/** Slots 6 to 10: patterns `windowLines` looks for in each line of a window. */
const P_WINDOW = 6;
const WINDOW_PATTERNS = 5;
const PATTERNS = P_WINDOW + WINDOW_PATTERNS;
const RECENT = 16;
const CONFIG = 1024;
/** Bytes past every region that loads of 16 bytes may touch. */
const SLACK = 64;

let base: i32 = 0;
let input: i32 = 0;
let inCap: i32 = 0;
let arena: i32 = 0;
let arenaCap: i32 = 0;
let arenaUsed: i32 = 0;
let table: i32 = 0;
let tableCap: i32 = 0;
let count: i32 = 0;
let head: i32 = 512;

// The line `line` read and left to `commit` (its prompt status comes from JavaScript's parse).
let pendId: i32 = -1;
let pendLen: i32 = 0;
let pendBase: i32 = 0;
// The id and parent the last `line` read (kept after `commit`, for tests and tools).
let readAt: i32 = -1;
let readLen: i32 = 0;
let parAt: i32 = -1;
let parLen: i32 = 0;

// What the file's scan found: the last id written, how many, whether a parent was unknown.
let leafOff: i32 = -1;
let leafLen: i32 = 0;
let committed: i32 = 0;
let missing: i32 = 0;
let ring: i32 = 0;

@inline function pat(k: i32): i32 {
  return base + k * PAT;
}

/** Length of pattern k (0: unused), kept after the ring in the config block. */
@inline function len(k: i32): i32 {
  return load<i32>(base + PATTERNS * PAT + RECENT * 8 + (k << 2));
}

function pages(bytes: i32): i32 {
  return (bytes + 0xffff) >>> 16;
}

/** Set when memory grew (JavaScript's views of it are then detached): told in the next return. */
let grew: i32 = 0;

function ensureMemory(end: i32): void {
  const have = memory.size() << 16;
  if (end + SLACK <= have) return;
  if (memory.grow(pages(end + SLACK - have)) < 0) unreachable();
  grew = 4;
}

/** `code` with bit 2 set when memory grew since the last return. */
function told(code: i32): i32 {
  const g = grew;
  grew = 0;
  return code | g;
}

/** Sets up the regions (input of `cap` bytes) and forgets any earlier file. */
export function init(cap: i32): void {
  base = (<i32>__heap_base + 15) & ~15;
  ring = base + PATTERNS * PAT;
  input = base + CONFIG;
  inCap = cap;
  arena = input + inCap + SLACK;
  arenaCap = 64 * 1024;
  table = arena + arenaCap;
  tableCap = 1024;
  ensureMemory(table + tableCap * 16);
  reset();
}

export function patternPtr(k: i32): i32 {
  return pat(k);
}

/** Pattern `k` is the first `len` bytes at patternPtr(k) (0: unused). */
export function setPattern(k: i32, n: i32): void {
  store<i32>(base + PATTERNS * PAT + RECENT * 8 + (k << 2), n);
}

export function setHead(bytes: i32): void {
  head = bytes;
}

export function inputPtr(): i32 {
  return input;
}

export function inputCap(): i32 {
  return inCap;
}

/** Forgets the last file: a new one starts. */
export function reset(): void {
  arenaUsed = 0;
  count = 0;
  // A big file's table is not cleared for every small one after it: back to the first size.
  if (tableCap > 1024) tableCap = 1024;
  memory.fill(table, 0, tableCap * 16);
  leafOff = -1;
  leafLen = 0;
  committed = 0;
  missing = 0;
  pendId = -1;
}

/** Moves the arena and table up so that the input holds at least `cap` bytes (bit 2: memory grew). */
export function reserveInput(cap: i32): i32 {
  if (cap <= inCap) return told(0);
  const shift = cap - inCap;
  const end = table + tableCap * 16;
  ensureMemory(end + shift);
  memory.copy(arena + shift, arena, end - arena);
  arena += shift;
  table += shift;
  inCap = cap;
  return told(0);
}

/** A hash of the n bytes at p, eight at a time (ids are mostly 36-byte uuids), never 0 (an empty slot). */
function hashOf(p: i32, n: i32): u32 {
  let h: u64 = 0x9e3779b97f4a7c15 ^ <u64>n;
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    h = (h ^ load<u64>(p + i)) * 0xff51afd7ed558ccd;
    h ^= h >> 32;
  }
  for (; i < n; i++) h = (h ^ <u64>load<u8>(p + i)) * 0xc4ceb9fe1a85ec53;
  h ^= h >> 29;
  return (<u32>h) | 1;
}

function sameKey(slot: i32, p: i32, n: i32): bool {
  if (load<i32>(slot, 4) != n) return false;
  return memory.compare(arena + load<i32>(slot), p, n) == 0;
}

/** The slot holding the id at p (n bytes), or the empty slot where it would go. */
function find(p: i32, n: i32, h: u32): i32 {
  const mask = tableCap - 1;
  let i = <i32>h & mask;
  while (true) {
    const slot = table + (i << 4);
    const sh = load<u32>(slot, 12);
    if (sh == 0) return slot;
    if (sh == h && sameKey(slot, p, n)) return slot;
    i = (i + 1) & mask;
  }
}

/** The arena grows to hold `need` bytes: the table above it moves up. */
function growArena(need: i32): void {
  let cap = arenaCap;
  while (cap < need) cap <<= 1;
  const delta = cap - arenaCap;
  ensureMemory(table + tableCap * 16 + delta);
  memory.copy(table + delta, table, tableCap * 16);
  table += delta;
  arenaCap = cap;
}

/** The table doubles: rehashed into the space above it, then moved down into place. */
function growTable(): void {
  const old = table;
  const oldCap = tableCap;
  const fresh = old + oldCap * 16;
  ensureMemory(fresh + oldCap * 32);
  table = fresh;
  tableCap = oldCap * 2;
  memory.fill(table, 0, tableCap * 16);
  for (let i = 0; i < oldCap; i++) {
    const from = old + (i << 4);
    const h = load<u32>(from, 12);
    if (h == 0) continue;
    memory.copy(find(arena + load<i32>(from), load<i32>(from, 4), h), from, 16);
  }
  memory.copy(old, fresh, tableCap * 16);
  table = old;
}

/**
 * First index of pattern `k` lying wholly in [from, to), or -1. Candidates are where two of the
 * pattern's bytes both match, 16 positions at a time; each is then compared whole. The two are its
 * last byte and its first, or its second when the first is a quote: JSON is full of quotes, and
 * `"` ... `"` pairs would make a candidate of nearly every key.
 */
function search(from: i32, to: i32, k: i32): i32 {
  const n = len(k);
  const p = pat(k);
  const last = to - n; // the last start that fits
  if (n == 0 || last < from) return -1;
  const lead = n > 2 && load<u8>(p) == 34 ? 1 : 0;
  const first = i8x16.splat(load<u8>(p + lead));
  const end = i8x16.splat(load<u8>(p + n - 1));
  let i = from;
  while (i <= last) {
    const a = i8x16.eq(v128.load(i + lead), first);
    const b = i8x16.eq(v128.load(i + n - 1), end);
    let m = i8x16.bitmask(v128.and(a, b));
    while (m != 0) {
      const at = i + ctz(m);
      if (at > last) return -1;
      if (memory.compare(at, p, n) == 0) return at;
      m &= m - 1;
    }
    i += 16;
  }
  return -1;
}

/** Index of the first newline in [from, to), or -1: 16 bytes at a time. */
function newline(from: i32, to: i32): i32 {
  const nl = i8x16.splat(10);
  let i = from;
  for (; i + 16 <= to; i += 16) {
    const m = i8x16.bitmask(i8x16.eq(v128.load(i), nl));
    if (m != 0) return i + ctz(m);
  }
  for (; i < to; i++) if (load<u8>(i) == 10) return i;
  return -1;
}

/**
 * The lines of the window [s, e) (a file's first or last bytes), as a text split on newlines would
 * give them: the first dropped when it may be cut (`dropFirst`), the last too (`dropLast`), empty
 * ones left out. For each, at `out` (three i32s a line): its start and end relative to s, and a bit
 * for each window pattern (slots 6 to 10) it holds. Returns how many lines.
 */
export function windowLines(s: i32, e: i32, out: i32, dropFirst: i32, dropLast: i32): i32 {
  let start = s;
  if (dropFirst) {
    const nl = newline(s, e);
    if (nl < 0) return 0;
    start = nl + 1;
  }
  let n = 0;
  while (true) {
    const nl = newline(start, e);
    const end = nl < 0 ? e : nl;
    if (nl < 0 && dropLast) break;
    if (end > start) {
      let bits = 0;
      for (let k = 0; k < WINDOW_PATTERNS; k++) if (len(P_WINDOW + k) > 0 && search(start, end, P_WINDOW + k) >= 0) bits |= 1 << k;
      const o = out + n * 12;
      store<i32>(o, start - s);
      store<i32>(o, end - s, 4);
      store<i32>(o, bits, 8);
      n++;
    }
    if (nl < 0) break;
    start = nl + 1;
  }
  return n;
}

/** Index of the first `"` in [from, to), or -1. */
function quote(from: i32, to: i32): i32 {
  for (let i = from; i < to; i++) if (load<u8>(i) == 34) return i;
  return -1;
}

/**
 * Reads the line [s, e): bit 0 set when it holds the prompt marker and not the not-prompt pattern
 * (JavaScript parses it, then calls `commit`); bit 1 set when it is a message with an id (its depth
 * waits for `commit` when bit 0 is set, else it is written now as a non-prompt).
 */
export function line(s: i32, e: i32): i32 {
  let code = 0;
  grew = 0;
  readAt = -1;
  const cand = len(P_MARKER) > 0 && search(s, e, P_MARKER) >= 0 && !(len(P_NOT) > 0 && search(s, e, P_NOT) >= 0);
  if (cand) code = 1;
  pendId = -1;
  if (len(P_PARENT) == 0) return code;
  const headEnd = min(e, s + head);
  const pp = search(s, headEnd, P_PARENT);
  if (pp < 0) return code;
  if (len(P_EXCLUDE) > 0 && search(s, headEnd, P_EXCLUDE) >= 0) return code;
  const pu = search(s, e, P_OWN);
  if (pu < 0) return code;
  const idStart = pu + len(P_OWN);
  const idEnd = quote(idStart, e);
  if (idEnd < 0) return code;
  // The parent: quoted after the key, else (null) the fallback key's id (a compaction's boundary).
  let parStart = -1;
  let parEnd = -1;
  const afterKey = pp + len(P_PARENT);
  if (afterKey < e && load<u8>(afterKey) == 34) {
    parStart = afterKey + 1;
    parEnd = quote(parStart, e);
    if (parEnd < 0) parStart = -1;
  }
  if (parStart < 0 && len(P_FALLBACK) > 0) {
    const pl = search(s, e, P_FALLBACK);
    if (pl >= 0) {
      parStart = pl + len(P_FALLBACK);
      parEnd = quote(parStart, e);
      if (parEnd < 0) parStart = -1;
    }
  }
  let depth = 0;
  parAt = parStart;
  parLen = parEnd - parStart;
  if (parStart >= 0) {
    const n = parEnd - parStart;
    const slot = find(parStart, n, hashOf(parStart, n));
    if (load<u32>(slot, 12) != 0) depth = load<i32>(slot, 8);
    else missing = 1;
  }
  pendId = idStart;
  pendLen = idEnd - idStart;
  readAt = idStart;
  readLen = pendLen;
  pendBase = depth;
  code |= 2;
  if (!cand) write(0);
  return told(code);
}

/** Writes the pending message's depth: its parent's, plus one when it is a prompt (bit 2: memory grew). */
export function commit(isPrompt: i32): i32 {
  write(isPrompt);
  return told(0);
}

function write(isPrompt: i32): void {
  if (pendId < 0) return;
  const n = pendLen;
  const h = hashOf(pendId, n);
  let slot = find(pendId, n, h);
  if (load<u32>(slot, 12) == 0) {
    // Either growth moves the table: the slot is looked up again.
    const grows = arenaUsed + n > arenaCap || (count + 1) * 2 > tableCap;
    if (arenaUsed + n > arenaCap) growArena(arenaUsed + n);
    if ((count + 1) * 2 > tableCap) growTable();
    if (grows) slot = find(pendId, n, h);
    memory.copy(arena + arenaUsed, pendId, n);
    store<i32>(slot, arenaUsed);
    store<i32>(slot, n, 4);
    store<u32>(slot, h, 12);
    arenaUsed += n;
    count++;
  }
  store<i32>(slot, pendBase + (isPrompt != 0 ? 1 : 0), 8);
  leafOff = load<i32>(slot);
  leafLen = n;
  // The ring of the last RECENT ids written (offset, length), oldest overwritten.
  const r = ring + ((committed % RECENT) << 3);
  store<i32>(r, leafOff);
  store<i32>(r, n, 4);
  committed++;
  pendId = -1;
}

/** Remembers an id from an earlier scan (its bytes at the input's start) with its depth. */
export function seed(n: i32, depth: i32): i32 {
  pendId = input;
  pendLen = n;
  pendBase = depth;
  write(0);
  // Seeds are the previous scan's, not this one's: they are not counted as written.
  committed--;
  return told(0);
}

/** Depth of the id whose bytes are at p (n bytes), or -1 when unknown. */
export function depthAt(p: i32, n: i32): i32 {
  const slot = find(p, n, hashOf(p, n));
  return load<u32>(slot, 12) == 0 ? -1 : load<i32>(slot, 8);
}

/** The id and parent the last `line` read (id -1: not a message; parent -1: none). */
export function readId(): i32 {
  return readAt;
}
export function readLength(): i32 {
  return readLen;
}
export function parentAt(): i32 {
  return parAt;
}
export function parentLength(): i32 {
  return parLen;
}

export function arenaPtr(): i32 {
  return arena;
}
export function leafOffset(): i32 {
  return leafOff;
}
export function leafLength(): i32 {
  return leafLen;
}
export function writtenCount(): i32 {
  return committed;
}
export function missingParent(): i32 {
  return missing;
}
/** The k-th id written (its arena offset and length), while it is among the last RECENT. */
export function recentOffset(k: i32): i32 {
  return load<i32>(ring + ((k % RECENT) << 3));
}
export function recentLength(k: i32): i32 {
  return load<i32>(ring + ((k % RECENT) << 3), 4);
}
/**
 * The last (up to RECENT) ids written, oldest first, copied to the input's start one per line, and
 * their depths as i32s at `depthsAt` (past them, at the input's end): one call and one string for
 * JavaScript. Returns the bytes of ids and newlines, or -1 when they do not fit; call once the file
 * is read (the input's bytes are overwritten).
 */
export function recentIds(depthsAt: i32): i32 {
  const from = committed > RECENT ? committed - RECENT : 0;
  let at = input;
  let k = 0;
  for (let w = from; w < committed; w++, k++) {
    const r = ring + ((w % RECENT) << 3);
    const off = load<i32>(r);
    const n = load<i32>(r, 4);
    // Ids too long to fit before the depths: JavaScript reads them one by one (recentOffset).
    if (at + n + 1 > depthsAt) return -1;
    memory.copy(at, arena + off, n);
    store<i32>(depthsAt + (k << 2), depthAt(arena + off, n));
    at += n;
    store<u8>(at++, 10);
  }
  return at - input;
}
