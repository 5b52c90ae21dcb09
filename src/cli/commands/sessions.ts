import { resolve } from 'node:path';
import { AGENT_PRIMARY, adapterFor, rootsFor } from '../../engine/agents/registry.js';
import type { SessionSummary } from '../../shared/session-schema.js';
import type { CliIO } from '../io.js';
import { jsonText, outBytes, relTime, tildify, truncate } from '../io.js';
import { withJournals } from '../../engine/journal/session-annotations.js';
import { snapshotJson, snapshotListBytes } from '../../engine/search-index/list-snapshot.js';
import { quickSessions } from './sessions-quick.js';
import { openSessionText } from '../../shared/wording.js';

export interface SessionsArgs {
  project?: string;
  json: boolean;
  claudeDir?: string;
}

export async function sessionsCommand(args: SessionsArgs, io: CliIO): Promise<number> {
  const roots = rootsFor(io.env, { [AGENT_PRIMARY]: args.claudeDir });
  const project = args.project ? resolve(io.cwd, args.project) : undefined;
  const root = roots[0]!.root;
  // The list the index wrote last time, when nothing changed since (the usual warm case): the
  // index itself is not opened.
  const quick = await quickSessions(io, roots, project);
  // Which sessions a running agent has open (its markers, checked for liveness): few, asked once for the whole list.
  const { openFound, withOpen } = await import('../../engine/agents/open-session.js');
  const open = await openFound(roots);
  if (quick.sessions && quick.sessions.length > 0) {
    if (args.json && !io.tty && open.found.length === 0) outBytes(io, snapshotListBytes(root, quick.sessions));
    else print(args, io, roots, withOpen(quick.sessions.map((s) => JSON.parse(snapshotJson(s)) as SessionSummary), open));
    return 0;
  }
  // Every session with its counts, from the metadata index (only what changed since is read).
  const { freshIndex } = await import('./search.js');
  const ix = await freshIndex(io, args.claudeDir, quick.listed);
  const sessions = await withJournals(await ix.recovering(() => ix.summaries({ project })));
  // For the next run: the list as it is now, beside the index.
  await ix.saveListSnapshot();
  for (const n of ix.notices.splice(0)) io.err(`rewind-app: ${n}`);
  // A missing root is only an error when no agent has sessions to show.
  if (sessions.length === 0) {
    // Says why when the first agent's folder is missing (and no other agent has sessions).
    await roots[0]!.adapter.summarize(roots[0]!.root, { project });
  }
  print(args, io, roots, withOpen(sessions, open));
  return 0;
}

function print(args: SessionsArgs, io: CliIO, roots: ReturnType<typeof rootsFor>, sessions: SessionSummary[]): void {
  if (args.json) {
    io.out(jsonText(io, { root: roots[0]!.root, sessions }));
    return;
  }
  if (sessions.length === 0) {
    io.err(`No agent sessions under ${roots.map((r) => r.root).join(' or ')}${args.project ? ` for ${args.project}` : ''}.`);
    return;
  }
  for (const s of sessions) {
    const live = s.live ? '●' : ' ';
    // The live path's prompts when the session was parsed (as the window says), else every prompt in the file.
    const count = s.counts ? String(s.counts.livePrompts) : s.promptCount === null ? '?' : String(s.promptCount);
    const fork = s.forkOf ? `  (fork of ${s.forkOf.slice(0, 8)})` : '';
    // The first agent is the default: only the others are tagged.
    const agent = s.agent === roots[0]!.adapter.id ? '' : `  [${adapterFor(s.agent).badge}]`;
    const open = s.open ? `  [${openSessionText(adapterFor(s.agent).displayName, s.open)}]` : '';
    io.out(`${live} ${s.id}  ${relTime(s.lastActivity).padStart(8)}  ${count.padStart(4)} prompts  ${tildify(s.cwd, io.env)}  ${truncate(s.title, 60)}${agent}${fork}${open}`);
  }
}
