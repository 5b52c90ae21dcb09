import ignore, { type Ignore } from 'ignore';

/** Always left out of checkpoints: git's own data and our store. */
export const ALWAYS_EXCLUDED = ['.git', '.agent/rewind'];

interface Level {
  /** Directory (relative to the root, '' for the root) whose .gitignore this is. */
  base: string;
  /** `base/`, or '' for the root. */
  prefix: string;
  ig: Ignore;
}

/**
 * Git's rules for nested .gitignore files: each file's patterns apply below its own directory,
 * deeper files can re-include with `!`. Callers push a level when entering a directory that has a
 * .gitignore and pop it when leaving.
 */
export class IgnoreStack {
  private levels: Level[] = [];

  push(base: string, gitignoreText: string): void {
    this.levels.push({ base, prefix: base ? `${base}/` : '', ig: ignore().add(gitignoreText) });
  }

  pop(base: string): void {
    if (this.levels.length && this.levels[this.levels.length - 1]!.base === base) this.levels.pop();
  }

  /** `rel` is relative to the root, with '/' separators. */
  ignores(rel: string, isDir: boolean): boolean {
    // Both always-excluded paths start with a dot: one compare for every other path.
    if (rel.charCodeAt(0) === 46 && ALWAYS_EXCLUDED.some((x) => rel === x || rel.startsWith(`${x}/`))) return true;
    let ignored = false;
    for (const { prefix, ig } of this.levels) {
      if (prefix && !rel.startsWith(prefix)) continue;
      const sub = prefix ? rel.slice(prefix.length) : rel;
      const r = ig.test(isDir ? `${sub}/` : sub);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored;
  }
}
