/**
 * What changed in an agent's on-disk format between two recordings, as a pure comparison of their
 * shapes: the kinds of records (a line's `type`, refined by its payload's or its own sub-type), the
 * field paths each kind carries, and the files in the agent's folder with ids, dates and numbers
 * folded away. `npm run conformance -- --latest` prints it for every agent whose newest release is
 * not judged yet.
 */

export interface Shape {
  /** Record kind -> the field paths seen on it (`payload.cli_version`, `message.content[].type`). */
  kinds: Map<string, Set<string>>;
  /** The agent folder's files, normalized and cut two levels down (`sessions/<n>/...`, `state_<n>.sqlite`). */
  files: Set<string>;
}

export interface FormatChanges {
  newKinds: string[];
  goneKinds: string[];
  /** `kind: field` for each field path a kind gained. */
  newFields: string[];
  goneFields: string[];
  newFiles: string[];
  goneFiles: string[];
}

const MAX_DEPTH = 4;

function fieldPaths(v: unknown, prefix: string, out: Set<string>, depth: number): void {
  if (depth > MAX_DEPTH || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const e of v) fieldPaths(e, `${prefix}[]`, out, depth + 1);
    return;
  }
  for (const [k, e] of Object.entries(v as Record<string, unknown>)) {
    // Keys that are data (ids, paths) rather than field names are folded like file names.
    const key = normalizeName(k);
    const path = prefix ? `${prefix}.${key}` : key;
    out.add(path);
    fieldPaths(e, path, out, depth + 1);
  }
}

/** A record's kind: its `type`, then the sub-type its payload, message or itself names. */
export function kindOf(rec: Record<string, unknown>): string {
  const sub = (o: unknown): string | null => {
    if (!o || typeof o !== 'object' || Array.isArray(o)) return null;
    const t = (o as Record<string, unknown>).type ?? (o as Record<string, unknown>).subtype;
    return typeof t === 'string' ? t : null;
  };
  const parts = [typeof rec.type === 'string' ? rec.type : '(no type)'];
  const inner = sub(rec.payload) ?? (typeof rec.subtype === 'string' ? rec.subtype : null);
  if (inner && inner !== parts[0]) parts.push(inner);
  return parts.join('/');
}

/** Ids, hashes, dates and counters in a name become placeholders: two recordings name the same files. */
export function normalizeName(name: string): string {
  return name
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}(?:[-:]\d{2})?(?:\.\d+)?Z?/g, '<ts>')
    .replace(/[0-9a-f]{16,}/gi, '<hash>')
    .replace(/\d+/g, '<n>');
}

/** A file two levels down at most (`skills/.system/...`): what an agent adds, not every file of a bundled skill. */
function folded(file: string): string {
  const parts = normalizeName(file.replaceAll('\\', '/')).split('/');
  return parts.length > 2 ? `${parts.slice(0, 2).join('/')}/...` : parts.join('/');
}

/** The shape of one recording: its JSONL records (non-JSON lines are skipped) and its files. */
export function shapeOf(records: string[], files: string[]): Shape {
  const kinds = new Map<string, Set<string>>();
  for (const line of records) {
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      continue;
    }
    if (!rec || typeof rec !== 'object' || Array.isArray(rec)) continue;
    const kind = kindOf(rec as Record<string, unknown>);
    const fields = kinds.get(kind) ?? new Set<string>();
    fieldPaths(rec, '', fields, 0);
    kinds.set(kind, fields);
  }
  // A SQLite database's -wal, -shm and -journal come and go with whoever has it open: not the format.
  return { kinds, files: new Set(files.filter((f) => !/-(wal|shm|journal)$/.test(f)).map(folded)) };
}

const minus = <T>(a: Iterable<T>, b: Set<T>): T[] => [...a].filter((x) => !b.has(x));

export function formatChanges(before: Shape, after: Shape): FormatChanges {
  const kb = new Set(before.kinds.keys());
  const ka = new Set(after.kinds.keys());
  const newFields: string[] = [];
  const goneFields: string[] = [];
  for (const [kind, fields] of after.kinds) {
    const old = before.kinds.get(kind);
    if (old) for (const f of minus(fields, old)) newFields.push(`${kind}: ${f}`);
  }
  for (const [kind, fields] of before.kinds) {
    const now = after.kinds.get(kind);
    if (now) for (const f of minus(fields, now)) goneFields.push(`${kind}: ${f}`);
  }
  return {
    newKinds: minus(ka, kb).sort(),
    goneKinds: minus(kb, ka).sort(),
    newFields: newFields.sort(),
    goneFields: goneFields.sort(),
    newFiles: minus(after.files, before.files).sort(),
    goneFiles: minus(before.files, after.files).sort(),
  };
}

/**
 * One cell of the report table: "none", or what is new. What went is not said: a recording of the
 * newest release covers the conformance cases, not every shape a judged fixture holds.
 */
export function describeChanges(c: FormatChanges): string {
  const parts: string[] = [];
  const list = (label: string, xs: string[]) => {
    if (xs.length) parts.push(`${label}: ${xs.slice(0, 8).join(', ')}${xs.length > 8 ? ` and ${xs.length - 8} more` : ''}`);
  };
  list('new record types', c.newKinds);
  list('new fields', c.newFields);
  list('new files', c.newFiles);
  return parts.length ? parts.join('; ') : 'none';
}
