import { appendFile, mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINEAR, copyClaudeHome, inCopy, tempDir } from '../fixtures.js';
import { rewindTranscript } from '../../src/engine/agents/claude/rewind/rewind.js';
import { undoLatest } from '../../src/engine/journal/undo.js';
import { journalPath } from '../../src/engine/journal/record.js';

const past = new Date(Date.now() - 3600_000);
const fp = { size: 1, head: 'x', tail: 'x' };

async function setup() {
  const root = await copyClaudeHome();
  const transcript = inCopy(root, LINEAR);
  await utimes(transcript, past, past);
  const project = await tempDir('rewind-project-');
  const outside = await tempDir('rewind-outside-');
  return { root, transcript, project, outside };
}

async function craft(project: string, record: object) {
  await mkdir(join(project, '.agent', 'rewind'), { recursive: true });
  await appendFile(journalPath(project), `${JSON.stringify(record)}\n`);
}

describe('a crafted journal never steers undo outside the project', () => {
  it('an in-place record with a missing transcript and a backup elsewhere is refused, nothing written', async () => {
    const env = await setup();
    const payload = join(env.outside, 'payload.jsonl');
    await writeFile(payload, 'evil\n');
    const target = join(env.outside, 'victim', 'written-by-undo.jsonl');
    await craft(env.project, { kind: 'in-place', id: 'r1', time: new Date().toISOString(), transcript: target, sessionId: 's', backupPath: payload, original: fp, result: fp, boundaryOffset: 0, prompts: [] });
    await expect(undoLatest(env.project, { agentRoots: [env.root] })).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/outside the allowed folders/) });
    await expect(undoLatest(env.project, { agentRoots: [env.root], force: true })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    await expect(stat(join(env.outside, 'victim'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('an in-place record whose backup is outside transcript-backup/ is refused', async () => {
    const env = await setup();
    const payload = join(env.outside, 'payload.jsonl');
    await writeFile(payload, 'evil\n');
    const before = await readFile(env.transcript);
    await craft(env.project, { kind: 'in-place', id: 'r1', time: new Date().toISOString(), transcript: env.transcript, sessionId: 's', backupPath: payload, original: fp, result: fp, boundaryOffset: 0, prompts: [] });
    await expect(undoLatest(env.project, { agentRoots: [env.root], force: true })).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/backup/) });
    expect((await readFile(env.transcript)).equals(before)).toBe(true);
  });

  it('an in-place record whose transcript is missing is refused (not "absent as recorded")', async () => {
    const env = await setup();
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', projectRoot: env.project });
    const { unlink } = await import('node:fs/promises');
    await unlink(env.transcript);
    await expect(undoLatest(env.project, { agentRoots: [env.root] })).rejects.toMatchObject({ code: 'UNDO_MISMATCH', message: expect.stringMatching(/missing/) });
    await expect(stat(env.transcript)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(r.backupPath).toBeTruthy();
  });

  it('a fork record whose file history points elsewhere is refused and nothing is removed', async () => {
    const env = await setup();
    const victim = join(env.outside, 'important');
    await mkdir(victim);
    await writeFile(join(victim, 'keep.txt'), 'keep');
    const forkId = '11111111-2222-4333-8444-555555555555';
    await craft(env.project, {
      kind: 'fork', id: 'f1', time: new Date().toISOString(), transcript: env.transcript, sessionId: 's', forkPath: join(env.transcript, '..', `${forkId}.jsonl`),
      forkSessionId: forkId, fileHistoryDir: victim, result: fp, boundaryOffset: 0, prompts: [],
    });
    await expect(undoLatest(env.project, { agentRoots: [env.root] })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await readFile(join(victim, 'keep.txt'), 'utf8')).toBe('keep');
    // Inside the agent root but not the fork's own: refused too.
    const other = join(env.root, 'file-history', 'someone-else');
    await mkdir(other, { recursive: true });
    await craft(env.project, {
      kind: 'fork', id: 'f2', time: new Date().toISOString(), transcript: env.transcript, sessionId: 's', forkPath: join(env.transcript, '..', `${forkId}.jsonl`),
      forkSessionId: forkId, fileHistoryDir: other, result: fp, boundaryOffset: 0, prompts: [],
    });
    await expect(undoLatest(env.project, { agentRoots: [env.root] })).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/file history/) });
    expect((await stat(other)).isDirectory()).toBe(true);
  });

  it('a fork record whose fork is not beside its transcript, or whose id is a path, is refused', async () => {
    const env = await setup();
    const victim = join(env.outside, 'victim.jsonl');
    await writeFile(victim, 'x');
    await craft(env.project, { kind: 'fork', id: 'f1', time: new Date().toISOString(), transcript: env.transcript, sessionId: 's', forkPath: victim, forkSessionId: 'victim', fileHistoryDir: null, result: fp, boundaryOffset: 0, prompts: [] });
    await expect(undoLatest(env.project, { agentRoots: [env.root], force: true })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    await craft(env.project, { kind: 'fork', id: 'f2', time: new Date().toISOString(), transcript: env.transcript, sessionId: 's', forkPath: victim, forkSessionId: '../../x', fileHistoryDir: null, result: fp, boundaryOffset: 0, prompts: [] });
    await expect(undoLatest(env.project, { agentRoots: [env.root], force: true })).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/not a valid id/) });
    expect(await readFile(victim, 'utf8')).toBe('x');
  });
});

describe("the transcript's own fields never name files", () => {
  it('a sessionId with ../ does not steer the in-place backup', async () => {
    const env = await setup();
    const text = await readFile(env.transcript, 'utf8');
    const evil = join('..', '..', '..', '..', env.outside, 'X').replace(/\\/g, '/');
    await writeFile(env.transcript, text.replace(/"sessionId":"[^"]+"/g, `"sessionId":${JSON.stringify(evil)}`));
    await utimes(env.transcript, past, past);
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', projectRoot: env.project });
    expect(r.backupPath!.startsWith(join(env.project, '.agent', 'rewind', 'transcript-backup') + '/')).toBe(true);
    expect(await readdir(env.outside)).toEqual([]);
    // And undo accepts what we wrote.
    await expect(undoLatest(env.project, { agentRoots: [env.root] })).resolves.toMatchObject({ summary: expect.stringMatching(/Put back/) });
  });

  it("back without --project never creates the transcript's recorded cwd when it is gone", async () => {
    const env = await setup();
    const gone = join(env.outside, 'gone', 'project');
    const text = await readFile(env.transcript, 'utf8');
    await writeFile(env.transcript, text.replace(/"cwd":"[^"]+"/g, `"cwd":${JSON.stringify(gone)}`));
    await utimes(env.transcript, past, past);
    const fork = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'fork', projectRoot: null });
    expect(fork.forkPath).toBeTruthy();
    expect(fork.warnings.join(' ')).toMatch(/no longer exists/);
    await expect(rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', projectRoot: null })).rejects.toMatchObject({ code: 'USAGE', message: expect.stringMatching(/no longer exists/) });
    await expect(stat(join(env.outside, 'gone'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('in-place locking', () => {
  it('a second rewrite while one holds the lock is refused (exit 5); a stale lock (dead pid) is taken over', async () => {
    const env = await setup();
    const lock = `${env.transcript}.rewind-lock`;
    await writeFile(lock, JSON.stringify({ pid: process.pid, time: Date.now() }));
    const before = await readFile(env.transcript);
    await expect(rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', projectRoot: env.project })).rejects.toMatchObject({ code: 'TRANSCRIPT_LIVE', message: expect.stringMatching(/another Rewind/) });
    expect((await readFile(env.transcript)).equals(before)).toBe(true);
    // A pid that cannot be alive: the lock is stale.
    await writeFile(lock, JSON.stringify({ pid: 2 ** 22 + 12345, time: Date.now() }));
    await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', projectRoot: env.project });
    await expect(stat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
