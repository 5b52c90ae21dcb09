import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { BRANCHED, LINEAR, copyClaudeHome, inCopy, tempDir } from '../../../../../test/fixtures.js';
import { readJournal } from '../../../journal/record.js';
import { undoLatest } from '../../../journal/undo.js';
import { parseTranscriptFile } from '../parse-transcript.js';
import { toTimeline } from '../timeline.js';
import { rewindTranscript } from './rewind.js';

const sha = async (p: string) => createHash('sha256').update(await readFile(p)).digest('hex');
const past = new Date(Date.now() - 3600_000);

async function setup(fixture: string) {
  const root = await copyClaudeHome();
  const transcript = inCopy(root, fixture);
  await utimes(transcript, past, past);
  const project = await tempDir('rewind-project-');
  return { root, transcript, project };
}

async function promptsOf(path: string) {
  const t = toTimeline(await parseTranscriptFile(path));
  return t.prompts.map((p) => `${p.active ? '' : '(dead) '}${p.text}`);
}

async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) out.push(join(e.parentPath, e.name));
  return out.sort();
}

describe('back: fork', () => {
  let env: Awaited<ReturnType<typeof setup>>;
  beforeEach(async () => {
    env = await setup(LINEAR);
  });

  it('n=1 writes a new transcript holding everything before the last prompt; the original is untouched', async () => {
    const before = await sha(env.transcript);
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'fork', projectRoot: env.project });
    expect(r.prompts.map((p) => p.text)).toEqual(['WRITE b.txt bee']);
    expect(r.forkSessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.forkPath).toBe(join(env.transcript, '..', `${r.forkSessionId}.jsonl`));
    expect(await sha(env.transcript)).toBe(before);
    expect(await promptsOf(r.forkPath!)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two', 'BASH echo bashmade > c.txt', 'EDIT notes.md alpha gamma']);
    // The cut is a byte prefix ending before the prompt's queue-operation lines: no trace of it stays.
    const orig = await readFile(env.transcript);
    const fork = await readFile(r.forkPath!);
    expect(fork.equals(orig.subarray(0, r.boundaryOffset))).toBe(true);
    expect(fork.toString()).not.toContain('WRITE b.txt bee');
    expect(orig.subarray(r.boundaryOffset, r.boundaryOffset + 60).toString()).toContain('"queue-operation"');
    expect((await stat(r.forkPath!)).mode & 0o777).toBe(0o600);
  });

  it('n=2 goes back two prompts', async () => {
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 2, mode: 'fork', projectRoot: env.project });
    expect(r.prompts.map((p) => p.text)).toEqual(['EDIT notes.md alpha gamma', 'WRITE b.txt bee']);
    expect(await promptsOf(r.forkPath!)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two', 'BASH echo bashmade > c.txt']);
  });

  it('n larger than the prompt count, or all of them, is refused and writes nothing', async () => {
    const tree = await listTree(env.root);
    await expect(rewindTranscript({ transcriptPath: env.transcript, n: 6, mode: 'fork', projectRoot: env.project })).rejects.toMatchObject({ code: 'NOT_ENOUGH_PROMPTS', message: expect.stringMatching(/only 5 prompts/) });
    await expect(rewindTranscript({ transcriptPath: env.transcript, n: 5, mode: 'fork', projectRoot: env.project })).rejects.toMatchObject({ code: 'NOT_ENOUGH_PROMPTS' });
    expect(await listTree(env.root)).toEqual(tree);
    expect(await readdir(env.project)).toEqual([]);
  });

  it('links the session file history into the fork so Claude can still rewind files', async () => {
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'fork', projectRoot: env.project, claudeRoot: env.root });
    const from = join(env.root, 'file-history', '2ea8980a-26fe-4928-aab5-4ebf6074b664');
    const to = join(env.root, 'file-history', r.forkSessionId!);
    const names = (await readdir(from)).sort();
    expect((await readdir(to)).sort()).toEqual(names);
    for (const n of names) expect((await stat(join(to, n))).ino).toBe((await stat(join(from, n))).ino);
  });

  it('--dry-run computes everything and writes nothing', async () => {
    const tree = await listTree(env.root);
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 2, mode: 'fork', dryRun: true, projectRoot: env.project });
    expect(r.prompts).toHaveLength(2);
    expect(r.forkPath).toBeNull();
    const r2 = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', dryRun: true, projectRoot: env.project });
    expect(r2.backupPath).toContain('transcript-backup');
    expect(await listTree(env.root)).toEqual(tree);
    expect(await readdir(env.project)).toEqual([]);
  });

  it('undo moves the fork aside and removes its file history links', async () => {
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'fork', projectRoot: env.project, claudeRoot: env.root });
    const u = await undoLatest(env.project, { agentRoots: [env.root] });
    expect(u.undone.kind).toBe('fork');
    await expect(stat(r.forkPath!)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(join(env.root, 'file-history', r.forkSessionId!))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(u.keptAt).toContain(join('.agent', 'rewind', 'undone'));
    await expect(undoLatest(env.project, { agentRoots: [env.root] })).rejects.toMatchObject({ code: 'NOTHING_TO_UNDO' });
  });

  it('undo refuses a fork that was resumed since, unless forced', async () => {
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'fork', projectRoot: env.project });
    await appendFile(r.forkPath!, '{"type":"mode","mode":"normal"}\n');
    await expect(undoLatest(env.project, { agentRoots: [env.root] })).rejects.toMatchObject({ code: 'UNDO_MISMATCH' });
    expect((await stat(r.forkPath!)).isFile()).toBe(true);
    await undoLatest(env.project, { force: true, agentRoots: [env.root] });
    await expect(stat(r.forkPath!)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('back: branched transcript (after a native rewind)', () => {
  it('n=2 leaves out the dead branch, which a resume would otherwise pick', async () => {
    const env = await setup(BRANCHED);
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 2, mode: 'fork', projectRoot: env.project });
    expect(r.prompts.map((p) => p.text)).toEqual(['WRITE d.txt branch two', 'WRITE e.txt after branch']);
    expect(r.droppedMessages).toBeGreaterThan(0);
    expect(await promptsOf(r.forkPath!)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two']);
    const model = await parseTranscriptFile(r.forkPath!);
    // The newest leaf is the last reply of prompt 2: that is where a resume continues.
    const leaf = model.nodes.get(model.activeLeaf!)!;
    expect(leaf.type).toBe('assistant');
    expect(model.order[model.order.length - 1]!.uuid).toBe(leaf.uuid);
    const text = await readFile(r.forkPath!, 'utf8');
    expect(text).not.toContain('bashmade');
    expect(text).not.toContain('WRITE b.txt bee');
    expect(model.issues).toEqual([]);
  });

  it('n=1 keeps the older dead branch: it is not newer than the intended leaf', async () => {
    const env = await setup(BRANCHED);
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'fork', projectRoot: env.project });
    expect(r.droppedMessages).toBe(0);
    expect(await promptsOf(r.forkPath!)).toEqual([
      'WRITE a.txt version one',
      'WRITE a.txt version two',
      '(dead) BASH echo bashmade > c.txt',
      '(dead) WRITE b.txt bee',
      'WRITE d.txt branch two',
    ]);
  });

  it('n=3 counts along the live path, skipping the dead prompts', async () => {
    const env = await setup(BRANCHED);
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 3, mode: 'fork', projectRoot: env.project });
    expect(r.prompts.map((p) => p.text)).toEqual(['WRITE a.txt version two', 'WRITE d.txt branch two', 'WRITE e.txt after branch']);
    expect(await promptsOf(r.forkPath!)).toEqual(['WRITE a.txt version one']);
  });
});

describe('back: in place', () => {
  it('backs up byte for byte, rewrites atomically, journals, and undo puts the original back', async () => {
    const env = await setup(LINEAR);
    const original = await readFile(env.transcript);
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', projectRoot: env.project });
    expect(r.backupPath).toMatch(/transcript-backup\/2ea8980a-26fe-4928-aab5-4ebf6074b664-.*\.jsonl$/);
    expect((await readFile(r.backupPath!)).equals(original)).toBe(true);
    expect((await readFile(env.transcript)).equals(original.subarray(0, r.boundaryOffset))).toBe(true);
    expect(await readFile(join(env.project, '.agent', 'rewind', '.gitignore'), 'utf8')).toBe('*\n');
    const journal = await readJournal(env.project);
    expect(journal.map((j) => j.kind)).toEqual(['in-place']);
    const dirEntries = await readdir(join(env.transcript, '..'));
    expect(dirEntries.filter((n) => n.endsWith('.tmp'))).toEqual([]);

    const u = await undoLatest(env.project, { agentRoots: [env.root] });
    expect(u.undone.kind).toBe('in-place');
    expect((await readFile(env.transcript)).equals(original)).toBe(true);
  });

  it('is refused on a transcript written seconds ago (agent running) unless --force', async () => {
    const env = await setup(LINEAR);
    await utimes(env.transcript, new Date(), new Date());
    const before = await sha(env.transcript);
    await expect(rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', projectRoot: env.project })).rejects.toMatchObject({ code: 'TRANSCRIPT_LIVE' });
    expect(await sha(env.transcript)).toBe(before);
    expect(await readdir(env.project)).toEqual([]);
    const r = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', projectRoot: env.project, force: true });
    expect(r.backupPath).not.toBeNull();
  });

  it('is refused while the file is being appended to', async () => {
    const env = await setup(LINEAR);
    const before = await readFile(env.transcript);
    const append = () => appendFile(env.transcript, '{"type":"mode","mode":"normal"}\n');
    // An agent appending right now: the mtime is fresh.
    await append();
    await expect(rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', projectRoot: env.project })).rejects.toMatchObject({ code: 'TRANSCRIPT_LIVE' });
    // Appends landing between our scan and the write are seen even when the mtime check is off.
    await expect(
      rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', projectRoot: env.project, liveWindowMs: 0, beforeRevalidate: append }),
    ).rejects.toMatchObject({ code: 'TRANSCRIPT_CHANGED' });
    // --force overrides the recent-write window only: growth is still refused (exit 5).
    await expect(
      rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'in-place', projectRoot: env.project, force: true, beforeRevalidate: append }),
    ).rejects.toMatchObject({ code: 'TRANSCRIPT_CHANGED' });
    const after = await readFile(env.transcript);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.length).toBeGreaterThan(before.length);
    await expect(readdir(join(env.project, '.agent', 'rewind', 'transcript-backup'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a fork made while the agent appends is a consistent prefix', async () => {
    const env = await setup(LINEAR);
    const before = await readFile(env.transcript);
    const timer = setInterval(() => void appendFile(env.transcript, '{"type":"mode","mode":"normal"}\n'), 1);
    let r;
    try {
      r = await rewindTranscript({ transcriptPath: env.transcript, n: 1, mode: 'fork', projectRoot: env.project });
    } finally {
      clearInterval(timer);
    }
    expect((await readFile(r.forkPath!)).equals(before.subarray(0, r.boundaryOffset))).toBe(true);
  });
});

describe('back: odd transcripts', () => {
  async function synth(lines: object[], tail = ''): Promise<string> {
    const dir = await tempDir();
    const p = join(dir, 'aaaaaaaa-0000-4000-8000-000000000001.jsonl');
    await writeFile(p, lines.map((l) => JSON.stringify(l)).join('\n') + '\n' + tail);
    await utimes(p, past, past);
    return p;
  }
  const base = { isSidechain: false, sessionId: 's1', cwd: '/tmp/x', version: '2.1.330' };
  const user = (uuid: string, parent: string | null, content: unknown) => ({ ...base, type: 'user', uuid, parentUuid: parent, message: { role: 'user', content } });
  const asst = (uuid: string, parent: string, text: string) => ({ ...base, type: 'assistant', uuid, parentUuid: parent, message: { id: `m-${uuid}`, role: 'assistant', content: [{ type: 'text', text }] } });

  it('prompts made of text blocks and images', async () => {
    const p = await synth([
      user('u1', null, 'first'),
      asst('a1', 'u1', 'ok'),
      user('u2', 'a1', [{ type: 'text', text: 'look at this' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }, { type: 'text', text: 'and this' }]),
      asst('a2', 'u2', 'seen'),
    ]);
    const r = await rewindTranscript({ transcriptPath: p, n: 1, mode: 'fork', projectRoot: null });
    expect(r.prompts).toEqual([expect.objectContaining({ uuid: 'u2', text: 'look at this\nand this', images: 1 })]);
  });

  it('an incomplete last line and garbage lines in the tail are skipped', async () => {
    const p = await synth([user('u1', null, 'first'), asst('a1', 'u1', 'ok'), user('u2', 'a1', 'second'), asst('a2', 'u2', 'ok2')], '{"type":"assistant","uuid":"a3","parentUuid":"a2","mess');
    const withGarbage = p.replace('.jsonl', '-g.jsonl');
    const text = await readFile(p, 'utf8');
    await writeFile(withGarbage, text.replace('{"isSidechain":false,"sessionId":"s1","cwd":"/tmp/x","version":"2.1.330","type":"assistant","uuid":"a2"', '%%% garbage\n{"isSidechain":false,"sessionId":"s1","cwd":"/tmp/x","version":"2.1.330","type":"assistant","uuid":"a2"'));
    for (const f of [p, withGarbage]) {
      const r = await rewindTranscript({ transcriptPath: f, n: 1, mode: 'fork', projectRoot: null });
      expect(r.prompts.map((x) => x.uuid)).toEqual(['u2']);
      expect(await readFile(r.forkPath!, 'utf8')).not.toContain('second');
      if (f === withGarbage) expect(r.warnings.join()).toMatch(/unreadable/);
    }
  });

  it('continues across a compaction boundary', async () => {
    const p = await synth([
      user('u0', null, 'first'),
      asst('a0', 'u0', 'ok'),
      user('u1', 'a0', 'before compaction'),
      asst('a1', 'u1', 'ok'),
      { ...base, type: 'system', subtype: 'compact_boundary', uuid: 'c1', parentUuid: null, logicalParentUuid: 'a1', content: 'Conversation compacted' },
      { ...user('s1', 'c1', 'summary of the conversation'), isCompactSummary: true },
      user('u2', 's1', 'after compaction'),
      asst('a2', 'u2', 'ok'),
    ]);
    const r = await rewindTranscript({ transcriptPath: p, n: 2, mode: 'fork', projectRoot: null, dryRun: true });
    expect(r.prompts.map((x) => x.text)).toEqual(['before compaction', 'after compaction']);
    expect(r.boundaryOffset).toBe((await readFile(p, 'utf8')).indexOf('{"isSidechain":false,"sessionId":"s1","cwd":"/tmp/x","version":"2.1.330","type":"user","uuid":"u1"'));
  });

  it('a non-contiguous enqueue of the reverted prompt is left out too', async () => {
    const p = await synth([
      user('u1', null, 'first'),
      { type: 'queue-operation', operation: 'enqueue', content: 'queued while busy', sessionId: 's1' },
      asst('a1', 'u1', 'ok'),
      { type: 'queue-operation', operation: 'dequeue', sessionId: 's1' },
      user('u2', 'a1', 'queued while busy'),
      asst('a2', 'u2', 'ok'),
    ]);
    const r = await rewindTranscript({ transcriptPath: p, n: 1, mode: 'fork', projectRoot: null });
    const fork = await readFile(r.forkPath!, 'utf8');
    expect(fork).not.toContain('queued while busy');
    expect(fork).toContain('"uuid":"a1"');
  });
});

describe('undo of nothing', () => {
  it('says so', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, '.agent', 'rewind'), { recursive: true });
    await expect(undoLatest(dir)).rejects.toMatchObject({ code: 'NOTHING_TO_UNDO' });
  });
});

describe('rewind at a given prompt', () => {
  it('a live prompt: the same cut as back n', async () => {
    const env = await setup(BRANCHED);
    const t = toTimeline(await parseTranscriptFile(env.transcript));
    const d = t.prompts.find((p) => p.text === 'WRITE d.txt branch two')!;
    const byUuid = await rewindTranscript({ transcriptPath: env.transcript, promptUuid: d.uuid, mode: 'fork', dryRun: true, projectRoot: null });
    const byN = await rewindTranscript({ transcriptPath: env.transcript, n: 2, mode: 'fork', dryRun: true, projectRoot: null });
    expect(byUuid.boundaryOffset).toBe(byN.boundaryOffset);
    expect(byUuid.prompts.map((p) => p.text)).toEqual(['WRITE d.txt branch two', 'WRITE e.txt after branch']);
  });

  it('a prompt on the dead branch: fork right before it, that branch becomes the live one', async () => {
    const env = await setup(BRANCHED);
    const t = toTimeline(await parseTranscriptFile(env.transcript));
    const dead = t.prompts.find((p) => p.text === 'WRITE b.txt bee')!;
    expect(dead.active).toBe(false);
    const r = await rewindTranscript({ transcriptPath: env.transcript, promptUuid: dead.uuid, mode: 'fork', projectRoot: env.project });
    expect(r.prompts.map((p) => p.text)).toEqual(['WRITE b.txt bee']);
    expect(await promptsOf(r.forkPath!)).toEqual(['WRITE a.txt version one', 'WRITE a.txt version two', 'BASH echo bashmade > c.txt']);
  });

  it('an unknown uuid or a non-prompt is a clear error', async () => {
    const env = await setup(LINEAR);
    await expect(rewindTranscript({ transcriptPath: env.transcript, promptUuid: 'nope', mode: 'fork', dryRun: true, projectRoot: null })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
