import { spawn, type ChildProcess } from 'node:child_process';
import { appendFile, cp, mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../test/fixtures.js';
import { procStartOf } from '../io/process-alive.js';
import type { AgentAdapter, OpenMarker } from './adapter.js';
import { attributeOpen, type OpenCandidate } from './open-attribution.js';
import { agentOpenIn, markOpen, openStateOf } from './open-session.js';
import { ADAPTERS } from './registry.js';

const linux = process.platform === 'linux';
const kids: ChildProcess[] = [];
afterAll(() => {
  for (const k of kids) if (k.exitCode === null && k.signalCode === null) k.kill('SIGKILL');
});

const T0 = Date.parse('2026-11-28T09:00:00.000Z');
const at = (min: number) => T0 + min * 60_000;
const proc = (pid: number, startMin: number | null, cwd = '/p'): OpenMarker => ({ sessionId: null, cwd, pid, status: 'unknown', since: startMin === null ? null : new Date(at(startMin)).toISOString() });
const file = (path: string, min: number, size = 100): OpenCandidate => ({ path, mtimeMs: at(min), size });
const picked = (m: Map<OpenMarker, string>) => new Map([...m].map(([k, v]) => [k.pid, v]));

describe('which session a process without a marker has open (attributeOpen)', () => {
  it('the file it last wrote since it started; not the newest file when that is a fork Rewind wrote and nobody touched since', () => {
    const p = proc(7, 0);
    const files = [file('/s/old', -60), file('/s/talked', 5), file('/s/fork', 6, 80)];
    expect(picked(attributeOpen([p], files))).toEqual(new Map([[7, '/s/fork']]));
    // The journal says the fork is Rewind's write, at its size: the agent's own file is the one it talks in.
    expect(picked(attributeOpen([p], files, new Map([['/s/fork', 80]])))).toEqual(new Map([[7, '/s/talked']]));
    // The agent switched to the fork (its /resume) and wrote to it: now that one.
    expect(picked(attributeOpen([p], [file('/s/old', -60), file('/s/talked', 5), file('/s/fork', 7, 120)], new Map([['/s/fork', 80]])))).toEqual(new Map([[7, '/s/fork']]));
    // An in-place rewrite Rewind made of an old session is not the agent's write either.
    expect(picked(attributeOpen([p], [file('/s/old', 9, 50), file('/s/talked', 5)], new Map([['/s/old', 50]])))).toEqual(new Map([[7, '/s/talked']]));
  });

  it('a process that wrote nothing since it started has none open; one whose start is unknown has the newest its agent wrote', () => {
    expect(attributeOpen([proc(7, 30)], [file('/s/a', -60), file('/s/b', 10)]).size).toBe(0);
    expect(picked(attributeOpen([proc(7, null)], [file('/s/a', -60), file('/s/b', 10), file('/s/fork', 11)], new Map([['/s/fork', 100]])))).toEqual(new Map([[7, '/s/b']]));
    // Its start is read to the boot clock's second: a write a moment "before" it still counts.
    expect(picked(attributeOpen([proc(7, 0)], [file('/s/a', -1 / 60)]))).toEqual(new Map([[7, '/s/a']]));
  });

  it('a session an exact marker names (a --resume in argv) is not given to another process', () => {
    const files = [file('/s/resumed', 8), file('/s/mine', 6)];
    expect(picked(attributeOpen([proc(7, 0)], files, new Map(), new Set(['/s/resumed'])))).toEqual(new Map([[7, '/s/mine']]));
  });

  it('two processes in one folder: each its own file when each wrote one since it started', () => {
    const a = proc(1, 0);
    const b = proc(2, 3);
    expect(picked(attributeOpen([a, b], [file('/s/a', 2), file('/s/b', 4), file('/s/old', -5)]))).toEqual(new Map([[1, '/s/a'], [2, '/s/b']]));
    // Only one of them wrote: both are told that file (the other has nothing of its own open).
    expect(picked(attributeOpen([a, b], [file('/s/b', 4)]))).toEqual(new Map([[1, '/s/b'], [2, '/s/b']]));
  });
});

const GEM = join(FIXTURES, 'gemini-real');
const SESSION = 'session-2026-11-23T11-33-f2a3037a.jsonl';
const ID = 'f2a3037a-dcde-407f-a7e7-e90c2f604c95';
const OTHER = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const hourAgo = new Date(Date.now() - 3600_000);

/** A Gemini home whose `linear` folder is `project`, with two sessions last written an hour ago. */
async function geminiFolder() {
  const root = join(await tempDir('attr-gemini-'), '.gemini');
  const project = await tempDir('attr-project-');
  const chats = join(root, 'tmp', 'linear', 'chats');
  await mkdir(chats, { recursive: true });
  await writeFile(join(root, 'projects.json'), JSON.stringify({ projects: { [project]: 'linear' } }));
  const talked = join(chats, SESSION);
  await cp(join(GEM, SESSION), talked);
  const older = join(chats, `session-2026-11-23T10-00-${OTHER.slice(0, 8)}.jsonl`);
  await writeFile(older, (await readFile(talked, 'utf8')).replaceAll(ID, OTHER));
  for (const p of [talked, older]) await utimes(p, hourAgo, hourAgo);
  return { root, project, talked, older };
}

/** A stand-in Gemini CLI (`node --max-old-space-size=… gemini.js`, as the real writer runs) working in `cwd`. */
async function fakeGemini(cwd: string): Promise<ChildProcess> {
  const script = join(await tempDir('attr-bin-'), 'gemini.js');
  await writeFile(script, 'setInterval(() => {}, 1000);\n');
  const k = spawn(process.execPath, ['--max-old-space-size=256', script], { cwd, stdio: 'ignore' });
  kids.push(k);
  await new Promise((r) => k.once('spawn', r));
  for (let i = 0; i < 50 && procStartOf(k.pid!) === null; i++) await new Promise((r) => setTimeout(r, 20));
  return k;
}

const appendRecord = (path: string) => appendFile(path, `${JSON.stringify({ $set: { lastUpdated: new Date().toISOString() } })}\n`);

describe.runIf(linux)('a real Gemini folder with a running gemini.js: the session it writes is open, never the fork Rewind made', () => {
  it('open: the session written since the process started; after a fork the original stays the open one (list and single check); the fork once the agent writes to it', async () => {
    const { root, project, talked, older } = await geminiFolder();
    const gemini = ADAPTERS.gemini;
    const roots = [{ adapter: gemini, root }];
    const k = await fakeGemini(project);
    const state = (p: string) => openStateOf(gemini, p, root);
    const listed = async () => {
      const marked = await markOpen(await gemini.summarize(root, { project }), roots);
      return Object.fromEntries(marked.map((s) => [s.transcriptPath, s.open?.pid ?? null]));
    };
    // Started, nothing written yet: neither session is the one it has open.
    expect(await state(talked)).toBeNull();
    expect(await state(older)).toBeNull();
    await appendRecord(talked);
    expect(await state(talked)).toMatchObject({ agent: 'gemini', pid: k.pid, exact: false });
    expect(await state(older)).toBeNull();
    // A fork of it (through the registry's guard, as every door): the original is still the open one.
    const fork = await gemini.rewind!({ transcriptPath: talked, n: 1, mode: 'fork', projectRoot: project, agentRoot: root });
    expect(fork.open).toMatchObject({ pid: k.pid });
    expect(fork.handBack).toContain(`pid ${k.pid}`);
    expect(await state(fork.forkPath!)).toBeNull();
    expect(await state(talked)).toMatchObject({ pid: k.pid });
    expect(await listed()).toEqual({ [talked]: k.pid, [older]: null, [fork.forkPath!]: null });
    // An in-place rewrite of it is refused; of the older session (not open) it goes ahead, and is not the agent's write.
    await expect(gemini.rewind!({ transcriptPath: talked, n: 1, mode: 'in-place', force: true, projectRoot: project, agentRoot: root })).rejects.toMatchObject({ code: 'SESSION_OPEN' });
    await gemini.rewind!({ transcriptPath: older, n: 1, mode: 'in-place', projectRoot: project, agentRoot: root });
    expect(await listed()).toEqual({ [talked]: k.pid, [older]: null, [fork.forkPath!]: null });
    // The agent moves to the fork and writes there: the fork is the open one now.
    await new Promise((r) => setTimeout(r, 20));
    await appendRecord(fork.forkPath!);
    expect(await listed()).toEqual({ [talked]: null, [older]: null, [fork.forkPath!]: k.pid });
    k.kill('SIGKILL');
    await new Promise((r) => k.once('exit', r));
    expect(await listed()).toEqual({ [talked]: null, [older]: null, [fork.forkPath!]: null });
  });
});

const CLAUDE_ID = '0b1c7d3e-8a6e-4b9e-9d47-3f0a1c2b4e55';

describe.runIf(linux)('one look per call: a list asks each agent once; every call asks afresh', () => {
  it("a list of many sessions and a restore's check ask the agent's markers once; a preview then an apply each ask, so a session opened between is refused", async () => {
    const root = await tempDir('attr-claude-');
    const dir = join(root, 'projects', '-p');
    await mkdir(dir, { recursive: true });
    await mkdir(join(root, 'sessions'), { recursive: true });
    const lines = [
      { type: 'user', uuid: 'u1', parentUuid: null, sessionId: CLAUDE_ID, message: { role: 'user', content: 'one' }, cwd: '/p', timestamp: '2026-11-27T00:00:00.000Z' },
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: CLAUDE_ID, message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, cwd: '/p', timestamp: '2026-11-27T00:00:01.000Z' },
      { type: 'user', uuid: 'u2', parentUuid: 'a1', sessionId: CLAUDE_ID, message: { role: 'user', content: 'two' }, cwd: '/p', timestamp: '2026-11-27T00:00:02.000Z' },
      { type: 'assistant', uuid: 'a2', parentUuid: 'u2', sessionId: CLAUDE_ID, message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }, cwd: '/p', timestamp: '2026-11-27T00:00:03.000Z' },
    ];
    const path = join(dir, `${CLAUDE_ID}.jsonl`);
    await writeFile(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await utimes(path, hourAgo, hourAgo);
    let asked = 0;
    const claude: AgentAdapter = { ...ADAPTERS.claude, openSessions: (r, look) => (asked++, ADAPTERS.claude.openSessions!(r, look)) };
    const k = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    kids.push(k);
    await new Promise((r) => k.once('spawn', r));
    const marker = join(root, 'sessions', `${k.pid}.json`);
    await writeFile(marker, JSON.stringify({ pid: k.pid, sessionId: CLAUDE_ID, cwd: '/p', startedAt: 1, procStart: procStartOf(k.pid!), status: 'idle' }));
    const one = (await claude.summarize(root))[0]!;
    const many = Array.from({ length: 50 }, (_, i) => ({ ...one, id: i === 0 ? CLAUDE_ID : `other-${i}`, transcriptPath: `${path}.${i}` }));
    const marked = await markOpen(many, [{ adapter: claude, root }]);
    expect(asked).toBe(1);
    expect(marked.filter((s) => s.open).map((s) => s.id)).toEqual([CLAUDE_ID]);
    asked = 0;
    expect((await agentOpenIn('/p', [{ adapter: claude, root }], path))?.open.pid).toBe(k.pid);
    expect(asked).toBe(1);
    // Never kept past the call: a preview with nothing open, then the TUI opens it, then the apply.
    await writeFile(marker, '{}');
    const guarded = ADAPTERS.claude;
    const project = await tempDir('attr-claude-proj-');
    const req = { transcriptPath: path, n: 1, projectRoot: project, agentRoot: root, mode: 'in-place' as const };
    await guarded.rewind!({ ...req, dryRun: true });
    await writeFile(marker, JSON.stringify({ pid: k.pid, sessionId: CLAUDE_ID, cwd: '/p', startedAt: 1, procStart: procStartOf(k.pid!), status: 'idle' }));
    const before = await readFile(path);
    await expect(guarded.rewind!(req)).rejects.toMatchObject({ code: 'SESSION_OPEN' });
    expect(await readFile(path)).toEqual(before);
    k.kill('SIGKILL');
  });
});
