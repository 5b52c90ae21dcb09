import { appendFile, mkdir, open, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { writeBufferAtomic } from '../io/atomic-write.js';
import { FINGERPRINT_WINDOW, hashRange } from '../io/fingerprint.js';
import { ensureStore, storeDir } from '../project.js';
import { withLock } from '../store/lock.js';
import type { TranscriptCursor } from '../store/manifest.js';

/** Tools whose input names the one file they change. */
const FILE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
/** Tools that change nothing on disk. */
const READ_ONLY = new Set(['Read', 'Grep', 'Glob', 'LS', 'WebFetch', 'WebSearch', 'TodoWrite', 'ToolSearch', 'ExitPlanMode', 'BashOutput']);

export interface HookPayload {
  hook_event_name?: string;
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  prompt_id?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
}

/** Since the last checkpoint: the paths the agent said it touched; `complete` is false once a
 * tool ran whose effects we cannot name (Bash, a subagent...). */
interface Touched {
  complete: boolean;
  paths: string[];
  /** Touched paths that did not exist when the agent first touched them. */
  created?: string[];
}

const touchedFile = (root: string) => join(storeDir(root), 'touched.json');

async function readTouched(root: string): Promise<Touched> {
  try {
    const v = JSON.parse(await readFile(touchedFile(root), 'utf8')) as Touched;
    if (typeof v.complete === 'boolean' && Array.isArray(v.paths)) return v;
  } catch {
    // none yet
  }
  return { complete: false, paths: [] };
}

function relInProject(root: string, cwd: string, p: unknown): string | null {
  if (typeof p !== 'string' || !p) return null;
  const abs = isAbsolute(p) ? p : resolve(cwd, p);
  const rel = relative(root, abs).split(sep).join('/');
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : null;
}

async function transcriptCursor(p: HookPayload): Promise<TranscriptCursor | null> {
  if (!p.transcript_path) return null;
  const st = await stat(p.transcript_path).catch(() => null);
  const size = st?.size ?? 0;
  let prefix = '';
  if (st) {
    // The same window as a fingerprint's tail: tells a rewritten transcript apart.
    const fh = await open(p.transcript_path, 'r');
    try {
      prefix = await hashRange(fh, Math.max(0, size - FINGERPRINT_WINDOW), Math.min(size, FINGERPRINT_WINDOW));
    } finally {
      await fh.close();
    }
  }
  return { transcript_path: p.transcript_path, session_id: p.session_id ?? null, agent: 'claude', prompt_uuid: null, prompt_id: p.prompt_id ?? null, byte_offset_end: size, prefix_sha256: prefix };
}

/**
 * Handles one hook call from Claude Code. Records the session pointer, checkpoints the tree before
 * each prompt, and keeps track of what the agent's tools touch. Throws only to its caller, which
 * logs and exits 0: a hook must never break the agent.
 */
export async function handleHook(p: HookPayload, env: NodeJS.ProcessEnv): Promise<string> {
  const root = env.CLAUDE_PROJECT_DIR || p.cwd;
  if (!root) return 'no project dir';
  const cwd = p.cwd ?? root;
  await ensureStore(root);
  const event = p.hook_event_name ?? '';
  if (event === 'UserPromptSubmit' || event === 'SessionStart') {
    if (p.transcript_path) {
      const pointer = { transcript_path: p.transcript_path, session_id: p.session_id, agent: 'claude', cwd, updated_at: new Date().toISOString() };
      await writeBufferAtomic(join(storeDir(root), 'session.json'), `${JSON.stringify(pointer, null, 2)}\n`);
    }
    if (event === 'SessionStart') return 'session recorded';
    // Loaded here only: the tool-call hooks, which run far more often, never need the store's code.
    const { takeCheckpoint } = await import('../store/checkpoint.js');
    return withLock(join(storeDir(root), 'touched.lock'), async () => {
      const touched = await readTouched(root);
      const r = await takeCheckpoint({
        projectRoot: root,
        trigger: 'prompt',
        transcript: await transcriptCursor(p),
        touched: touched.complete ? touched.paths : null,
        created: touched.created ?? [],
      });
      await writeBufferAtomic(touchedFile(root), JSON.stringify({ complete: true, paths: [] } satisfies Touched));
      return `checkpoint ${r.manifest.id} (${r.manifest.scan}, ${r.hashed} hashed, ${Math.round(r.ms)} ms)`;
    });
  }
  const tool = p.tool_name ?? '';
  if (event === 'PreToolUse') {
    if (READ_ONLY.has(tool)) return 'read-only tool';
    return withLock(join(storeDir(root), 'touched.lock'), async () => {
      const t = await readTouched(root);
      const rel = FILE_TOOLS.has(tool) ? relInProject(root, cwd, p.tool_input?.file_path ?? p.tool_input?.notebook_path) : null;
      if (rel) {
        if (!t.paths.includes(rel)) {
          t.paths.push(rel);
          const existed = await stat(join(root, rel)).catch(() => null);
          if (!existed) t.created = [...(t.created ?? []), rel];
        }
      } else if (!FILE_TOOLS.has(tool)) {
        t.complete = false;
      }
      await writeBufferAtomic(touchedFile(root), JSON.stringify(t));
      return rel ? `touched ${rel}` : `${tool}: touched set unknown`;
    });
  }
  if (event === 'PostToolUse' && FILE_TOOLS.has(tool)) {
    const rel = relInProject(root, cwd, p.tool_input?.file_path ?? p.tool_input?.notebook_path);
    if (!rel) return 'outside the project';
    const [{ hashFile }, { recordAgentWrite }] = await Promise.all([import('../store/objects.js'), import('../store/agent-writes.js')]);
    const ref = await hashFile(join(root, rel)).catch(() => null);
    await recordAgentWrite(root, { time: new Date().toISOString(), path: rel, ref, tool });
    return `recorded ${tool} ${rel}`;
  }
  return 'nothing to do';
}

/** Where a failing hook writes why (it must stay silent on stdout and exit 0). */
export async function logHookError(root: string | undefined, message: string): Promise<void> {
  const line = `${new Date().toISOString()} ${message.replace(/\s+/g, ' ')}\n`;
  try {
    if (!root) throw new Error('no root');
    await mkdir(storeDir(root), { recursive: true, mode: 0o700 });
    await appendFile(join(storeDir(root), 'hook.log'), line, { mode: 0o600 });
  } catch {
    try {
      const { defaultCacheDir } = await import('../agents/claude/discover.js');
      const dir = defaultCacheDir();
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await appendFile(join(dir, 'hook.log'), line, { mode: 0o600 });
    } catch {
      // Nowhere to write: stay silent rather than break the agent.
    }
  }
}

