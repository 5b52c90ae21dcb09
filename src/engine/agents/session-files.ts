import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface AgentFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Files under `dir` (to `depth` folders down) whose name passes `keep`; a missing dir is empty. */
export async function listFiles(dir: string, depth: number, keep: (name: string, path: string) => boolean): Promise<AgentFile[]> {
  const out: AgentFile[] = [];
  const walk = async (d: string, left: number): Promise<void> => {
    const entries = await readdir(d, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory() && left > 0) await walk(p, left - 1);
      else if (e.isFile() && keep(e.name, p)) {
        const st = await stat(p).catch(() => null);
        if (st) out.push({ path: p, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  await walk(dir, depth);
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/**
 * A small memo of something derived from a whole file, kept while its size and mtime stay the
 * same: the sidebar lists on every change, and most files did not change.
 */
export class FileMemo<T> {
  private readonly map = new Map<string, { size: number; mtimeMs: number; value: T }>();
  get(f: AgentFile): T | undefined {
    const m = this.map.get(f.path);
    return m && m.size === f.size && m.mtimeMs === f.mtimeMs ? m.value : undefined;
  }
  set(f: AgentFile, value: T): void {
    this.map.set(f.path, { size: f.size, mtimeMs: f.mtimeMs, value });
  }
  /** What `parse` makes of the whole file, read only when it changed since; null when it cannot be read. */
  async read(f: AgentFile, parse: (buf: Buffer) => T): Promise<T | null> {
    const known = this.get(f);
    if (known !== undefined) return known;
    const buf = await readFile(f.path).catch(() => null);
    if (!buf) return null;
    const value = parse(buf);
    this.set(f, value);
    return value;
  }
}

/** A session id, id prefix or path among `files`, named by `idOf`. */
export function matchRef(files: AgentFile[], ref: string, idOf: (f: AgentFile) => string): AgentFile | null | 'ambiguous' {
  const exact = files.find((f) => idOf(f) === ref || f.path === ref);
  if (exact) return exact;
  const hits = files.filter((f) => idOf(f).startsWith(ref));
  if (hits.length > 1) return 'ambiguous';
  return hits[0] ?? null;
}
