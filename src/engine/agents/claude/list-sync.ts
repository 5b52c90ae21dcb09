import { readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { SessionFile } from '../adapter.js';

/**
 * `listTranscriptFiles` for the index, synchronously: a warm search stats every transcript, and
 * 2,500 stats cost a few milliseconds this way against ~100 ms of promises. A missing root or
 * project folder lists nothing; the caller runs off the UI thread.
 */
export function listSessionFilesSync(root: string): SessionFile[] {
  const projects = join(root, 'projects');
  let dirs: string[];
  try {
    dirs = readdirSync(projects);
  } catch {
    return [];
  }
  const out: SessionFile[] = [];
  for (const d of dirs) {
    const dir = join(projects, d);
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.endsWith('.jsonl') || name.startsWith('agent-')) continue;
      // A plain file name under a joined folder: no path.join per file (thousands of them).
      const p = dir + sep + name;
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st?.isFile()) continue;
      out.push({ path: p, sessionId: name.slice(0, -'.jsonl'.length), size: st.size, mtimeMs: st.mtimeMs });
    }
  }
  return out;
}
