import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { defaultCacheDir } from '../../engine/io/cache-dir.js';
import { AGENT_IDS, AGENT_PRIMARY, rootsFor } from '../../engine/agents/registry.js';
import type { SessionFile } from '../../engine/agents/adapter.js';
import { RewindError } from '../../engine/errors.js';
import { indexDir, listSources, SearchIndex, type RefreshProgress } from '../../engine/search-index/search-index.js';
import { plural } from '../../shared/wording.js';
import { EXIT } from '../exit-codes.js';
import type { CliIO } from '../io.js';
import { jsonText, relTime, tildify, truncate } from '../io.js';

/** Matches shown with a snippet per session. */
const SNIPPETS = 3;

export interface SearchArgs {
  query: string;
  json: boolean;
  project?: string;
  agent?: string;
  limit?: string;
  claudeDir?: string;
}

/** The index build's worker entry next to this file as built (scripts/build-cli.mjs); from source, none. */
function builtWorker(): URL | undefined {
  for (const rel of ['./search-index-worker.mjs', '../search-index-worker.mjs']) {
    const u = new URL(rel, import.meta.url);
    if (u.protocol === 'file:' && existsSync(u)) return u;
  }
  return undefined;
}

/** The index for these roots, brought up to date (progress on stderr while a first build reads a lot). */
export async function freshIndex(io: CliIO, claudeDir: string | undefined, listedAlready?: SessionFile[][]): Promise<SearchIndex> {
  const sources = rootsFor(io.env, { [AGENT_PRIMARY]: claudeDir });
  // The index's segments are read off this thread while the session files are listed here (a first
  // build lists them itself, once its worker threads are starting).
  const [ix, listed] = await SearchIndex.openWhile(indexDir(defaultCacheDir(io.env)), (cold) => (listedAlready ? Promise.resolve(listedAlready) : cold ? undefined : listSources(sources)));
  for (const n of ix.notices.splice(0)) io.err(`rewind-app: ${n}`);
  const started = Date.now();
  let shown = -1;
  const progress = (p: RefreshProgress) => {
    if (p.bytesTotal < 256 * 1024 * 1024 || Date.now() - started < 500) return;
    const pct = Math.floor((p.bytesDone / p.bytesTotal) * 10) * 10;
    if (pct === shown) return;
    shown = pct;
    io.err(`Indexing ${plural(p.filesTotal, 'session')} (${(p.bytesTotal / 2 ** 20).toFixed(0)} MiB): ${pct}%`);
  };
  const workerScript = builtWorker();
  const parallel = workerScript ? { workerScript, threads: Math.min(4, availableParallelism()), alsoHere: true } : undefined;
  const rep = await ix.refresh(sources, { onProgress: progress, parallel, listed });
  for (const n of ix.notices.splice(0)) io.err(`rewind-app: ${n}`);
  for (const s of rep.skipped) io.err(`rewind-app: skipped ${s.path}: ${s.reason}`);
  return ix;
}

export async function searchCommand(args: SearchArgs, io: CliIO): Promise<number> {
  if (!args.query.trim()) throw new RewindError('USAGE', 'search needs a query: rewind-app search <words or "a phrase">');
  const limit = args.limit === undefined ? undefined : Number(args.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new RewindError('USAGE', `--limit must be a whole number above 0, not "${args.limit}"`);
  if (args.agent && !(AGENT_IDS as string[]).includes(args.agent)) throw new RewindError('USAGE', `--agent must be one of ${AGENT_IDS.join(', ')}`);
  const ix = await freshIndex(io, args.claudeDir);
  // The text lists the newest few matches of each listed session, with snippets, and no total;
  // --json lists and counts every one.
  const described = args.json ? {} : { promptsPerSession: SNIPPETS, countPastLimit: false };
  const r = await ix.recovering(() => ix.search(args.query, { project: args.project ? resolve(io.cwd, args.project) : undefined, agent: args.agent, limit, snippets: SNIPPETS, ...described }));
  for (const n of ix.notices.splice(0)) io.err(`rewind-app: ${n}`);
  if (args.json) io.out(jsonText(io, r));
  else {
    // One write for the list (a write per line cost more than the lines).
    const lines: string[] = [];
    for (const s of r.sessions) {
      lines.push(`${s.sessionId.slice(0, 8)}  ${relTime(s.lastActivity).padStart(8)}  ${plural(s.count, 'prompt').padStart(11)}  ${tildify(s.cwd, io.env)}  ${truncate(s.title ?? '', 50)}`);
      for (const p of s.prompts) {
        if (!p.snippet) break;
        // Matches in [brackets]: the terminal may not show colour.
        let line = '';
        let at = 0;
        for (const [a, b] of p.highlights) {
          line += `${p.snippet.slice(at, a)}[${p.snippet.slice(a, b)}]`;
          at = b;
        }
        lines.push(`    ${line}${p.snippet.slice(at)}`);
      }
    }
    if (r.moreSessions) lines.push(`… and ${plural(r.moreSessions, 'more session')} (--limit)`);
    if (lines.length > 0) io.out(lines.join('\n'));
    if (r.totalHits === 0) io.err(`No prompt matches ${JSON.stringify(args.query)} in ${plural(r.indexedFiles, 'session')}.`);
  }
  for (const n of r.notSearched) io.err(`rewind-app: not searched: ${n.path}: ${n.reason}`);
  return r.totalHits > 0 ? EXIT.ok : EXIT.noMatch;
}
