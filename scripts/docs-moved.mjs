// Lists the lines of README.md at a git revision that are no longer anywhere in today's README.md or
// docs/*.md: what a move of the README's depth into docs/ lost. `node scripts/docs-moved.mjs <rev>`
// (e.g. a branch about to be merged); exit 1 when some line is missing, with each one on stdout.
// `node scripts/docs-moved.mjs <rev> <base>` checks only the lines <rev> added to the README since
// <base> (e.g. the lines a branch added, to be moved into docs/ when it is merged).
// Headings, code fences, table rules and short lines are not checked; white space is normalized.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const [rev, base] = process.argv.slice(2);
if (!rev) {
  console.error('usage: node scripts/docs-moved.mjs <git revision> [<base revision>]');
  process.exit(2);
}
const norm = (s) => s.replace(/\s+/g, ' ').trim();
const readme = (r) => execFileSync('git', ['show', `${r}:README.md`], { cwd: root, encoding: 'utf8' }).split('\n');
const old = readme(rev);
const before = new Set(base ? readme(base).map(norm) : []);
const docs = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
const now = norm(['README.md', ...docs].map((f) => readFileSync(join(root, f), 'utf8')).join(' '));
const missing = old
  .map((line, i) => ({ n: i + 1, line }))
  .filter(({ line }) => {
    const s = norm(line);
    return s.length >= 12 && !s.startsWith('#') && !s.startsWith('```') && !/^[|:\- ]+$/.test(s) && !before.has(s) && !now.includes(s);
  });
for (const { n, line } of missing) console.log(`${rev}:README.md:${n}: ${line}`);
console.error(`${missing.length} of ${old.length} lines of ${rev}:README.md are not in README.md or docs/*.md`);
process.exit(missing.length ? 1 : 0);
