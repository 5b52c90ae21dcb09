import { appendFile, stat, utimes } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { LINEAR, copyClaudeHome, inCopy, tempDir } from '../../../test/fixtures.js';
import { rewindTranscript } from '../agents/claude/rewind/rewind.js';
import { readJournal } from './record.js';
import { undoLatest } from './undo.js';

async function twoPartAction() {
  const root = await copyClaudeHome();
  const transcript = inCopy(root, LINEAR);
  const past = new Date(Date.now() - 3600_000);
  await utimes(transcript, past, past);
  const project = await tempDir('rewind-group-');
  const before = await rewindTranscript({ transcriptPath: transcript, n: 1, mode: 'fork', projectRoot: project });
  const a = await rewindTranscript({ transcriptPath: transcript, n: 1, mode: 'fork', projectRoot: project, journalGroup: 'g1' });
  const b = await rewindTranscript({ transcriptPath: transcript, n: 2, mode: 'fork', projectRoot: project, journalGroup: 'g1' });
  return { root, project, before: before.forkPath!, a: a.forkPath!, b: b.forkPath! };
}

const exists = async (p: string) => !!(await stat(p).catch(() => null));

describe('undo of one action made of several records', () => {
  it('reverts every record of the newest group in one undo, and only that group', async () => {
    const x = await twoPartAction();
    const u = await undoLatest(x.project, { agentRoots: [x.root] });
    expect(u.parts).toHaveLength(2);
    expect([await exists(x.a), await exists(x.b), await exists(x.before)]).toEqual([false, false, true]);
    expect((await readJournal(x.project)).filter((r) => r.kind === 'undo')).toHaveLength(2);
    // The next undo is the earlier, separate action.
    await undoLatest(x.project, { agentRoots: [x.root] });
    expect(await exists(x.before)).toBe(false);
  });

  it('undoes neither part when one cannot be undone, and says why', async () => {
    const x = await twoPartAction();
    await appendFile(x.a, '{"type":"mode","mode":"normal"}\n');
    await expect(undoLatest(x.project, { agentRoots: [x.root] })).rejects.toMatchObject({ code: 'UNDO_MISMATCH', message: expect.stringMatching(/nothing was undone/) });
    expect([await exists(x.a), await exists(x.b)]).toEqual([true, true]);
    expect((await readJournal(x.project)).filter((r) => r.kind === 'undo')).toHaveLength(0);
    const forced = await undoLatest(x.project, { force: true, agentRoots: [x.root] });
    expect(forced.parts).toHaveLength(2);
    expect([await exists(x.a), await exists(x.b)]).toEqual([false, false]);
  });
});
