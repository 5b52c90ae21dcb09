import { join, resolve } from 'node:path';
import { RewindError } from '../errors.js';
import { findProjectRoot, storeDir } from '../project.js';
import { statSessionPath } from '../io/store-ref.js';


export interface ResolvedTranscript {
  path: string;
  /** Said to the user: which rule picked it. */
  source: '--transcript' | 'REWIND_TRANSCRIPT_PATH' | 'session.json' | 'newest session for this directory';
  projectRoot: string | null;
}

export interface ResolveInput {
  transcript?: string;
  project?: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  claudeRoot?: string;
}

/** The project: --project, else REWIND_PROJECT_ROOT, else the nearest ancestor with `.agent/rewind/`. */
export async function resolveProjectRoot(input: Pick<ResolveInput, 'project' | 'cwd' | 'env'>): Promise<string | null> {
  if (input.project) return resolve(input.cwd, input.project);
  if (input.env.REWIND_PROJECT_ROOT) return resolve(input.cwd, input.env.REWIND_PROJECT_ROOT);
  return findProjectRoot(input.cwd);
}

/** The project a command works on; without one, the current directory. */
export async function projectRootOrCwd(input: Pick<ResolveInput, 'project' | 'cwd' | 'env'>): Promise<string> {
  return (await resolveProjectRoot(input)) ?? resolve(input.cwd);
}

export async function resolveTranscript(input: ResolveInput): Promise<ResolvedTranscript> {
  const projectRoot = await resolveProjectRoot(input);
  const check = async (p: string, source: ResolvedTranscript['source']): Promise<ResolvedTranscript> => {
    const abs = resolve(input.cwd, p);
    const st = await statSessionPath(abs);
    if (!st) throw new RewindError('NO_TRANSCRIPT', `transcript not found: ${abs} (from ${source})`);
    if (!st.isFile()) throw new RewindError('NO_TRANSCRIPT', `not a transcript file: ${abs} (from ${source})`);
    return { path: abs, source, projectRoot };
  };
  if (input.transcript) return check(input.transcript, '--transcript');
  if (input.env.REWIND_TRANSCRIPT_PATH) return check(input.env.REWIND_TRANSCRIPT_PATH, 'REWIND_TRANSCRIPT_PATH');
  if (projectRoot) {
    const pointer = join(storeDir(projectRoot), 'session.json');
    // Non-blocking, no link: a project can ship its own `.agent/rewind/session.json`.
    const { readOwnText } = await import('../io/own-file.js');
    const raw = await readOwnText(pointer).catch(() => null);
    if (raw !== null) {
      const { SessionPointerSchema } = await import('../../shared/session-pointer-schema.js');
      let parsed: { transcript_path: string };
      try {
        parsed = SessionPointerSchema.parse(JSON.parse(raw));
      } catch {
        throw new RewindError('NO_TRANSCRIPT', `${pointer} is not valid (needs "transcript_path")`);
      }
      // What a shipped pointer names is not the user's choice (--transcript is): only a session in
      // the agents' own folders, or `back --in-place` would rewrite any file it names.
      const { AGENT_PRIMARY, rootsFor } = await import('../agents/registry.js');
      const { requireInside } = await import('../guard.js');
      const roots = rootsFor(input.env, { [AGENT_PRIMARY]: input.claudeRoot }).map((r) => r.root);
      await requireInside(roots, resolve(input.cwd, parsed.transcript_path), `the session ${pointer} names`, 'pass --transcript PATH to pick a session yourself');
      return check(parsed.transcript_path, 'session.json');
    }
  }
  // Discovery is loaded only when needed: `back --transcript` stays a small import graph.
  const { AGENT_PRIMARY, findSession, rootsFor } = await import('../agents/registry.js');
  const where = projectRoot ?? input.cwd;
  const roots = rootsFor(input.env, { [AGENT_PRIMARY]: input.claudeRoot });
  // Agents in registry order: the first one with a session here wins.
  const newest = await findSession(null, roots, where);
  if (newest) return { path: newest.path, source: 'newest session for this directory', projectRoot };
  throw new RewindError('NO_TRANSCRIPT', `no transcript found for ${where}: pass --transcript PATH, set REWIND_TRANSCRIPT_PATH, or run inside a project with ${roots.map((r) => r.adapter.displayName).join(' or ')} sessions`);
}
