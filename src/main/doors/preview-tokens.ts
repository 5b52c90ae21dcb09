import { createHash, randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { RewindError } from '../../engine/errors.js';
import { walkTree } from '../../engine/store/walk-tree.js';

/**
 * What a write depends on, as its preview saw it: the session file (size and mtime), the project's
 * tree (every file's path, size and mtime, as a checkpoint walks it) and, for undo, which entry the
 * journal would take back. A write whose state differs from its preview's is refused.
 */
export interface WriteState {
  session?: { path: string; size: number; mtimeMs: number } | null;
  tree?: { root: string; hash: string; files: number } | null;
  undo?: string | null;
}

export async function sessionState(path: string): Promise<WriteState['session']> {
  const st = await stat(path).catch(() => null);
  return st ? { path, size: st.size, mtimeMs: st.mtimeMs } : null;
}

/** One hash of the project tree's listing: any file added, removed, resized or touched changes it. */
export async function treeState(root: string): Promise<WriteState['tree']> {
  const st = await stat(root).catch(() => null);
  if (!st?.isDirectory()) return null;
  const h = createHash('sha256');
  const entries = await walkTree(root);
  for (const e of entries) h.update(`${e.kind}\0${e.path}\0${e.size}\0${e.mtimeMs}\0${e.target ?? ''}\n`);
  return { root, hash: h.digest('hex'), files: entries.length };
}

/** What changed between a preview and now, in a user's words; null when nothing did. */
export function whatChanged(then: WriteState, now: WriteState): string | null {
  if (then.session !== undefined) {
    const a = then.session;
    const b = now.session;
    if (!b) return `the session ${a?.path ?? ''} is gone`;
    if (a && (a.size !== b.size || a.mtimeMs !== b.mtimeMs)) return `the session changed since the preview (${a.size} -> ${b.size} bytes): it is being written to, or was rewritten`;
  }
  if (then.tree !== undefined && then.tree?.hash !== now.tree?.hash) return `files in ${then.tree?.root ?? now.tree?.root ?? 'the project'} changed since the preview (${then.tree?.files ?? 0} -> ${now.tree?.files ?? 0} files listed)`;
  if (then.undo !== undefined && then.undo !== now.undo) return `the last change to undo is no longer the one previewed (now: ${now.undo ?? 'nothing'})`;
  return null;
}

interface Issued {
  tool: string;
  /** The request the preview was for (a write must name the same one). */
  key: string;
  state: WriteState;
  at: number;
}

/**
 * The tokens previews hand out: one per preview, good for one write of the same request within
 * `ttlMs`. A token is spent by its first use, even a refused one (preview again).
 */
export class PreviewTokens {
  private readonly issued = new Map<string, Issued>();
  constructor(
    private readonly ttlMs = 30 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  issue(tool: string, key: string, state: WriteState): string {
    for (const [t, i] of this.issued) if (this.now() - i.at > this.ttlMs) this.issued.delete(t);
    const token = randomBytes(12).toString('hex');
    this.issued.set(token, { tool, key, state, at: this.now() });
    return token;
  }

  /** The preview's state for this write; refuses an unknown, spent, expired or mismatched token. */
  take(token: string, tool: string, key: string): WriteState {
    const i = this.issued.get(token);
    this.issued.delete(token);
    if (!i) throw new RewindError('USAGE', `unknown or already used token: call ${tool} first and pass the token it returns`);
    if (this.now() - i.at > this.ttlMs) throw new RewindError('USAGE', `the preview is older than ${Math.round(this.ttlMs / 60_000)} minutes: call ${tool} again`);
    if (i.tool !== tool) throw new RewindError('USAGE', `that token is from ${i.tool}, not ${tool}`);
    if (i.key !== key) throw new RewindError('USAGE', `that token was issued for a different request (${i.key}): pass the same arguments as the preview, or preview again`);
    return i.state;
  }
}
