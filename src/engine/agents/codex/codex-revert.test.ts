import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { cp, mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { ADAPTERS } from '../registry.js';
import { listCodexSessions } from './discover.js';
import { parseRollout } from './rollout.js';
import { rewindRollout } from './rewind.js';
import { revertThroughDaemon } from './through-daemon.js';
import { projectionKeys } from './thread-history.js';
import { rolloutName } from './thread.js';
import type { OpenSession } from '../../../shared/session-schema.js';

/** A thread Codex 0.171.0's own daemon reverted (test/fixtures/README.md, codex-0.171-revert/). */
const ID = '01a22156-bd02-7023-9785-89f6f2aac002';
const DAY = ['sessions', '2026', '11', '28'];
const FIRST = `rollout-2026-11-28T08-47-42-${ID}.jsonl`;
const GENERATION = `rollout-2026-11-28T08-47-45-${ID}_01a22156-ca5f-7563-9818-d41efb6620b4.jsonl`;
const texts = async (path: string) => (await parseRollout(path)).prompts.map((p) => p.text);

async function copyHome(): Promise<{ home: string; first: string; generation: string; project: string }> {
  const home = await tempDir('rewind-codex-revert-');
  await cp(join(FIXTURES, 'codex-0.171-revert'), home, { recursive: true });
  const past = new Date(Date.now() - 60_000);
  const first = join(home, ...DAY, FIRST);
  const generation = join(home, ...DAY, GENERATION);
  for (const f of [first, generation]) await utimes(f, past, past);
  const project = join(home, 'project');
  await mkdir(project);
  return { home, first, generation, project };
}

describe("a thread Codex's daemon reverted (generation files)", () => {
  it('is listed once, at its newest generation, with the prompts it kept and the ones added after', async () => {
    const { home, first, generation } = await copyHome();
    const listed = await listCodexSessions({ home });
    expect(listed.map((s) => [s.id, s.transcriptPath, s.promptCount])).toEqual([[ID, generation, 4]]);
    expect(await texts(generation)).toEqual(['just chatting one', 'just chatting two', 'just chatting four', 'just chatting five']);
    // The first file is left as it was: the revert is only in the generation's history_base.
    expect(await texts(first)).toEqual(['just chatting one', 'just chatting two', 'just chatting three']);
  });

  it('a fork of the generation carries the prefix from the first file, cut before the turn', async () => {
    const { generation, project } = await copyHome();
    const out = await rewindRollout({ transcriptPath: generation, n: 2, mode: 'fork', projectRoot: project });
    expect(await texts(out.forkPath!)).toEqual(['just chatting one', 'just chatting two']);
    const lines = (await readFile(out.forkPath!, 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });
    // Self-contained: one session_meta, no reference left to another file.
    expect(lines.filter((l) => l.type === 'session_meta')).toHaveLength(1);
    expect(lines[0]!.payload.history_base).toBeUndefined();
    expect(lines[0]!.payload.id).toBe(out.forkSessionId);
  });

  it("Codex's turn projection of a generation is filed under the thread's id and the generation's: both are dropped", () => {
    const { threadId, generation } = rolloutName(GENERATION);
    expect(projectionKeys(threadId!, generation)).toEqual([ID, '01a22156-ca5f-7563-9818-d41efb6620b4']);
    expect(projectionKeys(ID, rolloutName(FIRST).generation)).toEqual([ID]);
  });

  it('in place (no Codex holding it): the generation becomes one self-contained file with the kept prompts, the first file untouched', async () => {
    const { first, generation, project } = await copyHome();
    const before = await readFile(first);
    await rewindRollout({ transcriptPath: generation, n: 1, mode: 'in-place', projectRoot: project });
    expect(await texts(generation)).toEqual(['just chatting one', 'just chatting two', 'just chatting four']);
    expect(await readFile(first)).toEqual(before);
  });
});

const hasFlock = process.platform === 'linux' && spawnSync('flock', ['--version']).status === 0;

describe('an in-place rewind of a thread a Codex process holds', () => {
  let holder: ChildProcess | null = null;
  let server: Server | null = null;
  const release = async () => {
    if (!holder) return;
    const gone = holder.exitCode !== null || holder.signalCode !== null ? Promise.resolve() : new Promise((r) => holder!.once('exit', r));
    try {
      process.kill(-holder.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
    await gone;
    holder = null;
  };
  afterEach(async () => {
    await release();
    await new Promise((r) => (server ? server.close(r) : r(null)));
    server = null;
  });

  /** Holds `<home>/thread-writer-locks/<id>.lock` as Codex's daemon does (an exclusive flock), from another process. */
  async function holdLock(home: string): Promise<number> {
    const dir = join(home, 'thread-writer-locks');
    await mkdir(dir, { recursive: true });
    const lock = join(dir, `${ID}.lock`);
    await writeFile(lock, '');
    // -o: the lock stays with flock itself (not its sleep); its own process group, so both end together.
    holder = spawn('flock', ['-x', '-o', lock, 'sleep', '60'], { stdio: 'ignore', detached: true });
    const held = async () => (await readFile('/proc/locks', 'utf8')).split('\n').some((l) => /FLOCK/.test(l) && l.split(/\s+/).includes(String(holder!.pid)));
    for (let i = 0; i < 100 && !(await held()); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await held()).toBe(true);
    return holder.pid!;
  }

  it.runIf(hasFlock)('with no daemon answering on its control socket: refused as today, the file byte for byte', async () => {
    const { home, generation, project } = await copyHome();
    await holdLock(home);
    const before = await readFile(generation);
    const r = ADAPTERS.codex.rewind!({ transcriptPath: generation, n: 1, mode: 'in-place', projectRoot: project });
    await expect(r).rejects.toMatchObject({ code: 'SESSION_OPEN' });
    expect(await readFile(generation)).toEqual(before);
  });

  it.runIf(hasFlock)('undo of an in-place rewrite waits while Codex holds the thread (refused, nothing written), and goes ahead once it let go', async () => {
    const { home, generation, project } = await copyHome();
    const rewritten = await rewindRollout({ transcriptPath: generation, n: 1, mode: 'in-place', projectRoot: project });
    expect(rewritten.journalId).toBeTruthy();
    const after = await readFile(generation);
    await holdLock(home);
    const { undoLatest } = await import('../../journal/undo.js');
    await expect(undoLatest(project, { agentRoots: [home] })).rejects.toMatchObject({ code: 'SESSION_OPEN', message: expect.stringContaining(`(pid ${holder!.pid})`) });
    await expect(undoLatest(project, { agentRoots: [home], dryRun: true })).rejects.toMatchObject({ code: 'SESSION_OPEN' });
    expect(await readFile(generation)).toEqual(after);
    await release();
    await undoLatest(project, { agentRoots: [home] });
    expect(await texts(generation)).toEqual(['just chatting one', 'just chatting two', 'just chatting four', 'just chatting five']);
  });

  /** A daemon on the control socket answering the four methods Rewind uses (the protocol as `codex app-server generate-ts` gives it). */
  async function fakeDaemon(home: string, answer: { status: string; turns: string[][]; ids?: (string | null)[] }): Promise<string[]> {
    const calls: string[] = [];
    const dir = join(home, 'app-server-control');
    await mkdir(dir, { recursive: true });
    server = createServer();
    const wss = new WebSocketServer({ server });
    wss.on('connection', (ws) => {
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString()) as { id?: number; method: string };
        calls.push(m.method);
        if (m.id === undefined) return;
        const result =
          m.method === 'initialize'
            ? { userAgent: 'fake' }
            : m.method === 'thread/read'
              ? { thread: { id: ID, status: { type: answer.status } } }
              : m.method === 'thread/turns/list'
                ? { data: answer.turns.map((p, i) => ({ id: answer.ids?.[i] ?? `turn-${i}`, status: 'completed', items: p.map((text) => ({ type: 'userMessage', id: `u${i}`, content: [{ type: 'text', text, text_elements: [] }] })) })), nextCursor: null }
                : null;
        ws.send(JSON.stringify(result ? { id: m.id, result } : { id: m.id, error: { code: -32601, message: `no ${m.method} here` } }));
      });
    });
    await new Promise<void>((r) => server!.listen(join(dir, 'app-server-control.sock'), r));
    return calls;
  }

  const open: OpenSession = { agent: 'codex', pid: 4242, status: 'unknown', since: null, exact: true };

  it.runIf(process.platform !== 'win32')('a daemon mid-turn on the thread: refused (busy), nothing reverted', async () => {
    const { home, generation, project } = await copyHome();
    const calls = await fakeDaemon(home, { status: 'active', turns: [['just chatting one'], ['just chatting two'], ['just chatting four'], ['just chatting five']] });
    await expect(revertThroughDaemon({ transcriptPath: generation, n: 1, mode: 'in-place', projectRoot: project }, open)).rejects.toMatchObject({ code: 'SESSION_OPEN', message: expect.stringContaining('pid 4242') });
    expect(calls).not.toContain('thread/revert');
  });

  it.runIf(process.platform !== 'win32')("a daemon whose turns are not the rollout's: refused as changed, nothing reverted", async () => {
    const { home, generation, project } = await copyHome();
    // Codex's turns by the rollout's ids, but the last one missing (a turn the file has and Codex no longer does).
    const ids = (await parseRollout(generation)).prompts.map((p) => p.promptId);
    const calls = await fakeDaemon(home, { status: 'idle', turns: [['just chatting one'], ['just chatting two'], ['just chatting four']], ids });
    await expect(revertThroughDaemon({ transcriptPath: generation, n: 1, mode: 'in-place', projectRoot: project }, open)).rejects.toMatchObject({ code: 'TRANSCRIPT_CHANGED' });
    expect(calls).not.toContain('thread/revert');
  });

  it.runIf(process.platform !== 'win32')('the preview of one through an idle daemon says it goes through Codex and how undo goes; nothing is asked of Codex but reads', async () => {
    const { home, generation, project } = await copyHome();
    // The turns as the rollout names them (each turn's `turn_context`).
    const ids = (await parseRollout(generation)).prompts.map((p) => p.promptId);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    const calls = await fakeDaemon(home, { status: 'idle', turns: [['just chatting one'], ['just chatting two'], ['just chatting four'], ['just chatting five']], ids });
    const before = await readFile(generation);
    const r = await revertThroughDaemon({ transcriptPath: generation, n: 1, mode: 'in-place', projectRoot: project, dryRun: true }, open);
    expect(r?.prompts.map((p) => p.text)).toEqual(['just chatting five']);
    expect(r?.warnings).toEqual([expect.stringContaining('Codex CLI (pid 4242) has this session open: the rewind goes through it (thread/revert'), expect.stringContaining('Undo does not go through Codex CLI')]);
    expect(r?.statement?.keptEnd?.text).toBe('just chatting four');
    expect(r?.statement?.droppedLive.map((p) => p.text)).toEqual(['just chatting five']);
    expect(calls).toEqual(['initialize', 'initialized', 'thread/read', 'thread/turns/list']);
    expect(await readFile(generation)).toEqual(before);
  });
});
