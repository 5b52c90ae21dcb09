import { lstat, mkdir, realpath, rename, stat, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import { writeCacheFileAtomic } from '../io/atomic-write.js';
import { ensureStore, STORE_DIR, storeDir } from '../project.js';
import { withLock } from '../store/lock.js';
import type { AgentHooks, HookEvent, HookPayload } from './agent-hooks.js';

export type { HookPayload };

/** The store's half of the hook (one file of its own in the built CLI): loaded only by the events that need it. */
const storeHalf = () => import('./hook-store.js');

/**
 * `rewind-app hook --agent <id>`: one handler for every agent's hooks. The agent's `hooks` says
 * what a payload means; this records the session pointer, checkpoints the tree before each prompt
 * (tied to the id the timeline shows for it) and keeps track of what the tools touch. Every
 * checkpoint is the whole tree (the user's own edits between prompts included): an lstat walk
 * against the stat cache; the touched paths are read whatever their stat says. A project's first
 * checkpoint runs in a detached child so the agent never waits for it.
 *
 * Agents that name no prompt id when the turn starts (Qwen, Gemini, Droid) get the checkpoint
 * then, and it is tied to the prompt at the next event, once the prompt is in the session file.
 * Where no turn-start event fires at all, the first tool event of a new prompt stands in for it.
 */

/** One agent's turn in this project, between hook runs. */
interface TurnState {
  session_id: string | null;
  transcript_path: string | null;
  /** A turn whose prompt is not written yet: the checkpoint taken at its start, and the file's size then. */
  pending: { checkpoint: string; offset: number } | null;
  /** The file's size when the last prompt was tied: a prompt after it is a new turn. */
  tiedOffset: number | null;
  lastPrompt: string | null;
}

/**
 * Since the last checkpoint: the paths the tools said they touch, one line per tool call appended
 * (`{"paths":[...]}`). An append needs no lock and no read: a tool hook records its paths and
 * returns. A checkpoint (under the hooks' lock: one at a time) takes the file by renaming it (a tool
 * after that appends to a new one) and reads it once. An accelerator only: every checkpoint walks
 * the whole tree, so a lost line costs a file read by its stat instead, never a change missed.
 */
const touchedLog = (root: string) => join(storeDir(root), 'touched.jsonl');
/** The read-modify-write file of earlier versions: still read once, then removed. */
const touchedFile = (root: string) => join(storeDir(root), 'touched.json');
/** Also what tells the window's watcher that this agent's hooks checkpoint the project. */
export const hookStateFile = (root: string, agent: string) => join(storeDir(root), `hook-${agent}.json`);

async function readJson<T>(file: string, valid: (v: T) => boolean, fallback: T): Promise<T> {
  try {
    // Non-blocking, no link: a FIFO shipped as the hook's state is no state (and is replaced).
    const { readOwnText } = await import('../io/own-file.js');
    const v = JSON.parse((await readOwnText(file)) ?? '') as T;
    if (v && valid(v)) return v;
  } catch {
    // none yet, or torn: start afresh
  }
  return fallback;
}

/** The paths recorded since the last checkpoint; `done` removes what was taken (once the checkpoint is written). */
async function takeTouched(root: string): Promise<{ paths: string[]; done: () => Promise<void> }> {
  const { readOwnText } = await import('../io/own-file.js');
  // One name: a leftover of a killed checkpoint is replaced by this rename (its paths are walked anyway).
  const taking = `${touchedLog(root)}.taking`;
  const had = await rename(touchedLog(root), taking).then(
    () => true,
    () => false,
  );
  const paths = new Set<string>();
  const legacy = await readJson<{ paths?: unknown }>(touchedFile(root), (v) => Array.isArray(v.paths), {});
  for (const x of (legacy.paths as unknown[] | undefined) ?? []) if (typeof x === 'string') paths.add(x);
  // A link or FIFO renamed into place is read as nothing (never followed, never blocked on).
  const raw = had ? ((await readOwnText(taking).catch(() => null)) ?? '') : '';
  for (const line of raw.split('\n')) {
    try {
      const v = JSON.parse(line) as { paths?: unknown };
      if (Array.isArray(v.paths)) for (const x of v.paths) if (typeof x === 'string') paths.add(x);
    } catch {
      // an empty or torn line
    }
  }
  return {
    paths: [...paths],
    done: async () => {
      if (had) await unlink(taking).catch(() => undefined);
      if (legacy.paths) await unlink(touchedFile(root)).catch(() => undefined);
    },
  };
}

function relInProject(root: string, cwd: string, p: string): string | null {
  const abs = isAbsolute(p) ? p : resolve(cwd, p);
  const rel = relative(root, abs).split(sep).join('/');
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : null;
}

/** A regular file's size (0: none, or not a regular file). */
const sizeOf = async (path: string | undefined) => {
  const st = path ? await stat(path).catch(() => null) : null;
  return st?.isFile() ? st.size : 0;
};

export interface HookContext {
  agent: string;
  hooks: AgentHooks;
  /** Where each checkpoint's time went, for `REWIND_HOOK_DEBUG` (the bench reads it). */
  onPhases?: (phases: Record<string, number>) => void;
  /** How to start this CLI again (node's arguments) for a background checkpoint; none: taken inline. */
  cliArgs?: string[] | null;
}

/**
 * Handles one hook call. Throws only to its caller, which logs and exits 0: a hook must never
 * break the agent.
 */
export async function handleHook(ctx: HookContext, p: HookPayload, env: NodeJS.ProcessEnv): Promise<string> {
  p = ctx.hooks.payload?.(p, env) ?? p;
  // An agent names its folder as an absolute path: anything else (a relative `../..`, not a string)
  // would be taken against wherever this process runs, and a store made there.
  const root = env.REWIND_PROJECT_ROOT || ctx.hooks.projectDir?.(env) || (typeof p.cwd === 'string' && isAbsolute(p.cwd) ? p.cwd : undefined);
  if (!root) return 'no project dir';
  // Hooks installed for the user run wherever the agent does: a home folder (or a folder holding
  // it) or a drive's root is no project to checkpoint (a walk of it would stall the agent, and copy
  // ~/.ssh into the store). Compared as real paths: an agent names its cwd as getcwd() gives it, a
  // real path, while $HOME can lead through a link (or the reverse).
  const abs = resolve(root);
  if (await notAProject(abs, resolve(env.HOME || homedir()))) return `not a project folder: ${abs}`;
  const cwd = typeof p.cwd === 'string' && isAbsolute(p.cwd) ? p.cwd : root;
  const ev = ctx.hooks.read(p);
  if (ev.kind === 'other') return 'nothing to do';
  if (ev.kind === 'tool' && ev.readOnly && !ctx.hooks.promptAfter) return 'read-only tool';
  // A prompt's checkpoint still being taken in the background: no tool that may write runs, and no
  // turn-end checkpoint is taken, before it is complete (bounded; see waitForPromptCheckpoint).
  let waited = '';
  if (((ev.kind === 'tool' && ev.phase === 'pre' && !ev.readOnly) || ev.kind === 'stop') && (await stat(join(storeDir(root), 'background.json')).catch(() => null))) {
    const began = Date.now();
    const done = await (await storeHalf()).waitForPromptCheckpoint(root);
    waited = `${done ? 'waited' : 'stopped waiting'} ${Date.now() - began} ms for the prompt's checkpoint; `;
  }
  // A tool call of an agent that names its prompts (no turn to tie): nothing to read or keep between
  // hook runs, so no lock: record what the tool touches and return. While a first checkpoint is
  // read in the background, the pre-hook keeps what the files held, under the lock (below).
  if (ev.kind === 'tool' && !ctx.hooks.promptAfter && (await storeReady(root)) && !(await stat(join(storeDir(root), 'background.json')).catch(() => null))) {
    return waited + (await noteTool(root, cwd, ev));
  }
  await ensureStore(root);
  if (ev.kind === 'session' || ev.kind === 'prompt') await writePointer(root, ctx.agent, p, cwd);
  return waited + (await withLock(join(storeDir(root), 'touched.lock'), () => step(ctx, root, cwd, p, ev)));
}

/** A drive's root, the home folder or a folder above it, as written or as its real path. */
async function notAProject(abs: string, home: string): Promise<boolean> {
  const [realAbs, realHome] = await Promise.all([realpath(abs).catch(() => abs), realpath(home).catch(() => home)]);
  const above = (dir: string, inner: string) => inner === dir || inner.startsWith(dir.endsWith(sep) ? dir : dir + sep);
  return abs === parse(abs).root || realAbs === parse(realAbs).root || above(abs, home) || above(realAbs, realHome);
}

/** The same, for an agent by id (`rewind-app hook --agent <id>`; none: plain `rewind-app hook`). */
export async function handleAgentHook(agent: string | undefined, p: HookPayload, env: NodeJS.ProcessEnv, cliArgs?: string[] | null): Promise<string> {
  const { hooksOfAgent, BARE_HOOK_AGENT } = await import('../agents/hooks-index.js');
  const id = agent || BARE_HOOK_AGENT;
  const hooks = await hooksOfAgent(id);
  if (!hooks) throw new Error(`unknown agent "${id}" (or one without hooks)`);
  const said: string[] = [];
  const r = await handleHook({ agent: id, hooks, cliArgs, ...(env.REWIND_HOOK_DEBUG ? { onPhases: (ph) => said.push(JSON.stringify(ph)) } : {}) }, p, env);
  return said.length ? `${r} (ms: ${said.join(', ')})` : r;
}

/**
 * The store is there as Rewind made it, in two lstats (`.agent`, `.agent/rewind`: real folders, no
 * link): the tool hooks' check. Anything else (missing, a link) goes through ensureStore, which
 * makes it or refuses it in one line. Its own folders are checked by whoever writes into them.
 */
async function storeReady(root: string): Promise<boolean> {
  const a = await lstat(join(root, '.agent')).catch(() => null);
  const b = a?.isDirectory() ? await lstat(storeDir(root)).catch(() => null) : null;
  if (!b?.isDirectory()) await ensureStore(root);
  return true;
}

async function writePointer(root: string, agent: string, p: HookPayload, cwd: string): Promise<void> {
  if (!p.transcript_path) return;
  const pointer = { transcript_path: p.transcript_path, session_id: p.session_id, agent, cwd, updated_at: new Date().toISOString() };
  // Rewritten at every prompt and rebuilt by the next one: no fsync on the agent's time.
  await writeCacheFileAtomic(join(storeDir(root), 'session.json'), Buffer.from(`${JSON.stringify(pointer, null, 2)}\n`));
}

async function step(ctx: HookContext, root: string, cwd: string, p: HookPayload, ev: HookEvent): Promise<string> {
  const stateFile = hookStateFile(root, ctx.agent);
  const fresh: TurnState = { session_id: p.session_id ?? null, transcript_path: p.transcript_path ?? null, pending: null, tiedOffset: null, lastPrompt: null };
  let state = await readJson<TurnState>(stateFile, (v) => 'pending' in v, fresh);
  if (p.session_id && state.session_id !== p.session_id) state = fresh;
  // Most tool events change nothing here: no write for them (a tool hook should cost next to nothing).
  const asRead = JSON.stringify(state);
  // A resume can name a new file for the same session at its start (Gemini): follow the later one.
  if (p.transcript_path && ev.kind !== 'session') state.transcript_path = p.transcript_path;
  const said: string[] = [];
  const save = async () => {
    const now = JSON.stringify(state);
    if (now !== asRead || ev.kind !== 'tool') await writeCacheFileAtomic(stateFile, Buffer.from(now));
  };

  /** The checkpoint of a turn whose prompt is not in the file yet, to tie once it is. */
  const openTurn = async () => {
    const offset = await sizeOf(p.transcript_path);
    // The same turn announced twice (a repeated event, SessionStart then a prompt event): one checkpoint.
    if (state.pending && state.pending.offset === offset) return;
    const id = await checkpoint(ctx, root, p, {}, 'prompt', true);
    state.pending = { checkpoint: id, offset };
    said.push(`checkpoint ${id} (prompt not written yet)`);
  };
  /** Ties the open turn's checkpoint to its prompt, now in the file; a turn whose prompt never came is dropped. */
  const tiePending = async () => {
    if (!state.pending || !ctx.hooks.promptAfter || !state.transcript_path) return;
    const id = await ctx.hooks.promptAfter(state.transcript_path, state.pending.offset).catch(() => null);
    if (!id) {
      if (ev.kind === 'prompt' || ev.kind === 'session') state.pending = null;
      return;
    }
    const { tieToPrompt, tieQueued } = await storeHalf();
    // One still queued in the background is tied where it waits.
    if (!(await tieToPrompt(root, state.pending.checkpoint, id))) await tieQueued(root, state.pending.checkpoint, id);
    said.push(`tied ${state.pending.checkpoint} to ${id}`);
    state.pending = null;
    state.lastPrompt = id;
    state.tiedOffset = await sizeOf(state.transcript_path);
  };
  /** No turn-start event came for a new prompt: its first tool event checkpoints before the tool runs. */
  const standIn = async () => {
    if (state.pending || !ctx.hooks.promptAfter || !state.transcript_path || state.tiedOffset === null) return;
    const id = await ctx.hooks.promptAfter(state.transcript_path, state.tiedOffset).catch(() => null);
    if (!id || id === state.lastPrompt) return;
    const cp = await checkpoint(ctx, root, p, { promptUuid: id });
    said.push(`checkpoint ${cp} before ${id} (at its first tool)`);
    state.lastPrompt = id;
    state.tiedOffset = await sizeOf(state.transcript_path);
  };

  switch (ev.kind) {
    case 'session':
      await tiePending();
      if (ev.turn) await openTurn();
      else if (state.tiedOffset === null) state.tiedOffset = await sizeOf(p.transcript_path);
      break;
    case 'prompt':
      await tiePending();
      if (ev.promptId || ev.promptUuid) {
        const id = await checkpoint(ctx, root, p, { promptId: ev.promptId, promptUuid: ev.promptUuid }, 'prompt', true);
        said.push(`checkpoint ${id}`);
        state.pending = null;
        state.lastPrompt = ev.promptUuid ?? ev.promptId;
        state.tiedOffset = await sizeOf(p.transcript_path);
      } else await openTurn();
      break;
    case 'repeat':
      await tiePending();
      break;
    case 'stop':
      await tiePending();
      said.push(`turn-end checkpoint ${await checkpoint(ctx, root, p, {}, 'turn-end')}`);
      break;
    case 'tool':
      await tiePending();
      await standIn();
      if (!ev.readOnly) said.push(await noteTool(root, cwd, ev));
      break;
  }
  await save();
  return said.join('; ') || 'nothing to do';
}

/**
 * A checkpoint of the whole tree now; the paths the tools named since the last one are read
 * whatever their stat says. The project's first one, one while another is still being taken, and
 * (`atPrompt`) a prompt event's own are queued for a detached child: the hook returns at once with
 * its id, and the tools' pre-hooks wait for it. One a tool hook takes (a stand-in for a prompt event
 * that never came) is taken here: that tool runs right after.
 */
async function checkpoint(ctx: HookContext, root: string, p: HookPayload, ids: { promptUuid?: string | null; promptId?: string | null }, trigger: 'prompt' | 'turn-end' = 'prompt', atPrompt = false): Promise<string> {
  const touched = await takeTouched(root);
  const { transcriptCursor, queueIfBackground, takeCheckpoint } = await storeHalf();
  const transcript = await transcriptCursor(p, ctx.agent, ids);
  if (ctx.cliArgs) {
    const queued = await queueIfBackground(root, { time: Date.now(), trigger, transcript, touched: touched.paths }, ctx.cliArgs, atPrompt);
    if (queued) {
      await touched.done();
      return queued;
    }
  }
  const r = await takeCheckpoint({ projectRoot: root, trigger, transcript, touched: touched.paths });
  await touched.done();
  ctx.onPhases?.(r.phases);
  return r.manifest.id;
}

async function noteTool(root: string, cwd: string, ev: Extract<HookEvent, { kind: 'tool' }>): Promise<string> {
  const rels = ev.files?.map((f) => relInProject(root, cwd, f)) ?? null;
  if (ev.phase === 'pre') {
    // An accelerator only (see touchedLog): a line that cannot be written is no harm.
    const named = rels?.filter((r): r is string => !!r) ?? [];
    if (named.length) {
      const { appendOwnFile } = await import('../io/own-file.js');
      await appendOwnFile(touchedLog(root), `${JSON.stringify({ paths: named })}\n`).catch(() => undefined);
    }
    // A first checkpoint still being read in the background keeps what these files hold before the tool.
    if (await stat(join(storeDir(root), 'background.json')).catch(() => null)) {
      const { keepPreImages } = await storeHalf();
      await keepPreImages(root, rels === null ? null : rels.filter((r): r is string => !!r));
    }
    return rels ? `touched ${rels.filter(Boolean).join(', ') || 'nothing in the project'}` : `${ev.tool}: touched set unknown`;
  }
  if (!rels) return `${ev.tool} done`;
  const { hashFile, recordAgentWrite, linkOnTheWay } = await import('./hook-write.js');
  for (const rel of rels) {
    if (!rel) continue;
    // Never through a link (a linked folder on the way included), never a FIFO, socket or device: only a regular file is read.
    if (await linkOnTheWay(root, rel)) continue;
    const st = await lstat(join(root, rel)).catch(() => null);
    if (st && !st.isFile()) continue;
    const ref = st ? await hashFile(join(root, rel)).catch(() => null) : null;
    await recordAgentWrite(root, { time: new Date().toISOString(), path: rel, ref, tool: ev.tool });
  }
  return `recorded ${ev.tool} ${rels.filter(Boolean).join(', ')}`;
}

/** Where a failing hook writes why (it must stay silent on stdout and exit 0). */
export async function logHookError(root: string | undefined, message: string): Promise<void> {
  const line = `${new Date().toISOString()} ${message.replace(/\s+/g, ' ')}\n`;
  try {
    if (!root) throw new Error('no root');
    // No link in `.agent/rewind` nor at hook.log: a project's link never gets the line.
    const { appendOwnFile, ensureOwnDir } = await import('../io/own-file.js');
    await ensureOwnDir(root, STORE_DIR);
    await appendOwnFile(join(storeDir(root), 'hook.log'), line);
  } catch {
    try {
      const { defaultCacheDir } = await import('../io/cache-dir.js');
      const dir = defaultCacheDir();
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const { appendOwnFile } = await import('../io/own-file.js');
      await appendOwnFile(join(dir, 'hook.log'), line);
    } catch {
      // Nowhere to write: stay silent rather than break the agent.
    }
  }
}
