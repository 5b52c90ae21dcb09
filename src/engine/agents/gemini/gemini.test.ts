import { cp, mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { undoLatest } from '../../journal/undo.js';
import { adapterOfFile } from '../registry.js';
import { findGeminiSession, listGeminiSessions, readGeminiTimeline } from './discover.js';
import { geminiTimeline } from './parse.js';
import { geminiNothingToResume, rewindGemini } from './rewind.js';

const GEM = join(FIXTURES, 'gemini-real');
const SESSION = 'session-2026-11-23T11-33-f2a3037a.jsonl';
const ID = 'f2a3037a-dcde-407f-a7e7-e90c2f604c95';
const PROMPTS = ['WRITE a.txt version one', 'WRITE a.txt version two', 'BASH echo bashmade > c.txt', 'EDIT notes.md alpha gamma', 'just chatting'];
const past = new Date(Date.now() - 3600_000);
const texts = async (path: string) => (await readGeminiTimeline(path)).prompts.map((p) => `${p.active ? '' : '(dead) '}${p.text}`);

async function geminiHome() {
  const root = join(await tempDir('gemini-home-'), '.gemini');
  const dir = join(root, 'tmp', 'linear', 'chats');
  await mkdir(dir, { recursive: true });
  await cp(join(GEM, 'projects.json'), join(root, 'projects.json'));
  const path = join(dir, SESSION);
  await cp(join(GEM, SESSION), path);
  await utimes(path, past, past);
  return { root, dir, path, project: await tempDir('gemini-project-') };
}

describe('Gemini CLI sessions: read', () => {
  it('replays the event log: five prompts (the session context is not one), tools, tokens, model, the folder from projects.json', async () => {
    const env = await geminiHome();
    const t = await readGeminiTimeline(env.path);
    expect(t.prompts.map((p) => p.text)).toEqual(PROMPTS);
    expect(t.session).toMatchObject({ id: ID, agent: 'gemini', cwd: '/home/dev/projects/linear', model: 'gemini-3.1-pro-preview' });
    expect(t.prompts.map((p) => p.turn.toolCalls.map((c) => c.name))).toEqual([['write_file'], ['write_file'], ['run_shell_command'], ['replace'], []]);
    expect(t.prompts[0]!.turn.inputTokens).toBeGreaterThan(0);
    expect((await adapterOfFile(env.path)).id).toBe('gemini');
  });

  it('a torn line is an issue; a $rewindTo naming no message empties the conversation, as the CLI loads it', async () => {
    const torn = geminiTimeline(Buffer.concat([await readFile(join(GEM, SESSION)), Buffer.from('{torn\n')]), '/x');
    expect(torn.prompts.map((p) => [p.text, p.active])).toEqual(PROMPTS.map((p) => [p, true]));
    expect(torn.issues).toHaveLength(1);
    // Gemini CLI 0.61 loadConversationRecord: `if (found) ... else messagesMap.clear()`.
    const t = geminiTimeline(Buffer.concat([await readFile(join(GEM, SESSION)), Buffer.from('{"$rewindTo":"nope"}\n')]), '/x');
    expect(t.prompts.map((p) => [p.text, p.active])).toEqual(PROMPTS.map((p) => [p, false]));
  });

  it('several files with one id: the newest lastUpdated wins, listed once', async () => {
    const env = await geminiHome();
    const older = (await readFile(env.path, 'utf8')).split('\n').slice(0, 12).join('\n') + '\n';
    await writeFile(join(env.dir, 'session-2026-11-23T11-30-f2a3037a.jsonl'), older);
    const list = await listGeminiSessions({ root: env.root });
    expect(list.map((s) => [s.id, s.promptCount, s.transcriptPath])).toEqual([[ID, 5, env.path]]);
    expect(await findGeminiSession('f2a3', env.root)).toBe(env.path);
  });
});


describe('Gemini CLI sessions: rewind', () => {
  it('in place appends {"$rewindTo": <prompt id>} after a backup; the replay drops that prompt on; undo puts the file back', async () => {
    const env = await geminiHome();
    const before = await readFile(env.path);
    const t = await readGeminiTimeline(env.path);
    const r = await rewindGemini({ transcriptPath: env.path, n: 2, mode: 'in-place', projectRoot: env.project });
    const after = await readFile(env.path);
    expect(after.subarray(0, before.length)).toEqual(before);
    expect(after.subarray(before.length).toString()).toBe(`{"$rewindTo":"${t.prompts[3]!.uuid}"}\n`);
    expect(await readFile(r.backupPath!)).toEqual(before);
    expect(await texts(env.path)).toEqual([...PROMPTS.slice(0, 3), ...PROMPTS.slice(3).map((p) => `(dead) ${p}`)]);
    const tl = await readGeminiTimeline(env.path);
    expect(tl.prompts[3]!.lane).toBe(1);
    expect(tl.branches).toHaveLength(1);
    await undoLatest(env.project, { agentRoots: [env.root] });
    expect(await readFile(env.path)).toEqual(before);
  });

  it('fork: a new file under a new id holding the conversation before the prompt', async () => {
    const env = await geminiHome();
    const before = await readFile(env.path);
    const r = await rewindGemini({ transcriptPath: env.path, n: 3, mode: 'fork', projectRoot: env.project });
    expect(await readFile(env.path)).toEqual(before);
    expect(r.forkPath).toMatch(new RegExp(`session-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-${r.forkSessionId!.slice(0, 8)}\\.jsonl$`));
    const t = await readGeminiTimeline(r.forkPath!);
    expect(t.session.id).toBe(r.forkSessionId);
    expect(t.prompts.map((p) => p.text)).toEqual(PROMPTS.slice(0, 2));
    expect((await listGeminiSessions({ root: env.root })).map((s) => s.id).sort()).toEqual([ID, r.forkSessionId].sort());
    // The CLI's cleanup deletes files past the retention age by `lastUpdated`: the fork's is its own birth.
    const last = (await readFile(r.forkPath!, 'utf8')).trimEnd().split('\n').pop()!;
    expect(Date.now() - Date.parse((JSON.parse(last) as { $set: { lastUpdated: string } }).$set.lastUpdated)).toBeLessThan(60_000);
    expect((await readFile(r.forkPath!, 'utf8')).includes(ID)).toBe(false);
    // Undo takes a fork named the CLI's way (by the first 8 characters of its id) as ours, and removes it.
    await undoLatest(env.project, { agentRoots: [env.root] });
    expect((await listGeminiSessions({ root: env.root })).map((s) => s.id)).toEqual([ID]);
  });

  it('states what it keeps, leaves out and hands back, numbered along the live path', async () => {
    const env = await geminiHome();
    const r = await rewindGemini({ transcriptPath: env.path, n: 2, mode: 'fork', projectRoot: env.project, dryRun: true });
    expect(r.statement).toMatchObject({ mode: 'fork', keptEnd: { text: PROMPTS[2], number: 3 }, targetLive: true, droppedBranch: [] });
    expect(r.statement!.droppedLive.map((p) => [p.number, p.text])).toEqual([[4, PROMPTS[3]], [5, PROMPTS[4]]]);
    expect(r.statement!.handedBack.map((p) => p.text)).toEqual(PROMPTS.slice(3));
    expect(await readFile(env.path)).toEqual(await readFile(join(GEM, SESSION)));
    const inPlace = await rewindGemini({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: env.project, dryRun: true });
    expect(inPlace.statement?.mode).toBe('in-place');
  });

  it('in place warns when a context-only file under the same id (left by a resume in a later minute) dooms the session at the next CLI start', async () => {
    const env = await geminiHome();
    const lines = (await readFile(env.path, 'utf8')).split('\n');
    await writeFile(join(env.dir, 'session-2026-11-23T12-00-f2a3037a.jsonl'), `${lines[0]}\n${lines[1]}\n`);
    expect(geminiNothingToResume(Buffer.from(`${lines[0]}\n${lines[1]}\n`))).toBe(true);
    expect(geminiNothingToResume(await readFile(env.path))).toBe(false);
    const r = await rewindGemini({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: env.project, dryRun: true });
    expect(r.warnings.join('\n')).toMatch(/Gemini CLI will delete this session at its next start.*session-2026-11-23T12-00-f2a3037a\.jsonl/);
    const fork = await rewindGemini({ transcriptPath: env.path, n: 1, mode: 'fork', projectRoot: env.project, dryRun: true });
    expect(fork.warnings).toEqual([]);
  });

  it('in place refuses a file that changed after it was read, and leaves it as it was', async () => {
    const env = await geminiHome();
    const grown = Buffer.concat([await readFile(env.path), Buffer.from('{"$set":{"lastUpdated":"2026-11-23T12:00:00.000Z"}}\n')]);
    await expect(
      rewindGemini({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: env.project, beforeRevalidate: () => writeFile(env.path, grown) }),
    ).rejects.toMatchObject({ code: 'TRANSCRIPT_LIVE' });
    expect(await readFile(env.path)).toEqual(grown);
  });

  it('without a project given, the backup and journal go to the folder projects.json names for the session when the user works in it', async () => {
    const env = await geminiHome();
    await writeFile(join(env.root, 'projects.json'), JSON.stringify({ projects: { [env.project]: 'linear' } }));
    const before = await readFile(env.path);
    const r = await rewindGemini({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: null, here: env.project });
    expect(r.projectRoot).toBe(env.project);
    expect(r.backupPath!.startsWith(env.project)).toBe(true);
    await undoLatest(env.project, { agentRoots: [env.root] });
    expect(await readFile(env.path)).toEqual(before);
  });

  it('refuses a prompt already rewound away, and the first prompt', async () => {
    const env = await geminiHome();
    await rewindGemini({ transcriptPath: env.path, n: 1, mode: 'in-place', projectRoot: env.project });
    await utimes(env.path, past, past);
    const dead = (await readGeminiTimeline(env.path)).prompts.find((p) => !p.active)!;
    await expect(rewindGemini({ transcriptPath: env.path, promptUuid: dead.uuid, mode: 'fork', projectRoot: env.project })).rejects.toMatchObject({ code: 'UNSUPPORTED' });
    await expect(rewindGemini({ transcriptPath: env.path, n: 4, mode: 'fork', projectRoot: env.project })).rejects.toMatchObject({ code: 'NOT_ENOUGH_PROMPTS' });
  });
});
