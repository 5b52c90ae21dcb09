import { describe, expect, it } from 'vitest';
import { bytes, droppedPrompts, fileChangeSummary, historyTitle, listed, namePrompt, plural, restoredSummary, revertedSummary, statementLines, undoableText, untouchedSentence, windowError } from './wording.js';

describe('wording', () => {
  it('plural', () => {
    expect([plural(1, 'file'), plural(2, 'file'), plural(0, 'prompt'), plural(3, 'patch')]).toEqual(['1 file', '2 files', '0 prompts', '3 patches']);
  });
  it('restoredSummary says what happened to the files', () => {
    expect(restoredSummary({ written: 0, deleted: 0 })).toBe('Restored: the files already matched');
    expect(restoredSummary({ written: 1, deleted: 0 })).toBe('Restored 1 file');
    expect(restoredSummary({ written: 0, deleted: 2 })).toBe('Restored: deleted 2 files made since');
    expect(restoredSummary({ written: 1, deleted: 2 })).toBe('Restored 3 files (1 written back, 2 deleted)');
  });
  it('files Claude never edited are named, with the verb agreeing', () => {
    expect(untouchedSentence(['a.txt'])).toBe('1 file Claude never edited stays as it is: a.txt');
    expect(untouchedSentence(['a', 'b'])).toBe('2 files Claude never edited stay as they are: a and b');
    expect(untouchedSentence(['a', 'b', 'c', 'd', 'e'])).toBe('5 files Claude never edited stay as they are: a, b, c and 2 more');
    expect(listed(['a', 'b', 'c'])).toBe('a, b and c');
  });
  it('files without a shown diff are summarized', () => {
    expect(bytes(12 * 1024)).toBe('12 KB');
    expect(bytes(1536)).toBe('1.5 KB');
    expect(fileChangeSummary({ action: 'modify', binary: true, sizeBefore: 12 * 1024, sizeAfter: 14 * 1024 })).toBe('binary, 12 KB → 14 KB');
    expect(fileChangeSummary({ action: 'create', binary: true, sizeBefore: null, sizeAfter: 300 })).toBe('binary, 300 B');
    expect(fileChangeSummary({ action: 'modify', binary: false, sizeBefore: 1, sizeAfter: 2 }, 1)).toBe('large file: 1 line changed');
    expect(fileChangeSummary({ action: 'modify', binary: false, sizeBefore: 2048, sizeAfter: 1024 }, 5000)).toBe('large file: 5000 lines changed');
    expect(fileChangeSummary({ action: 'delete', binary: false, sizeBefore: 2048, sizeAfter: null })).toBe('2 KB, no diff computed');
  });
});

describe('window errors', () => {
  const messages: [string, string][] = [
    ['TRANSCRIPT_LIVE', 'The agent wrote to this session 2s ago: it may still be running. Stop it first, or pass --force.'],
    ['TRANSCRIPT_CHANGED', 'the session changed since the preview was made: nothing was written, review the preview again'],
    ['CONFLICT', '2 files changed outside the agent would be overwritten: a.txt, b.txt (pass --force to restore anyway; a pre-restore checkpoint keeps them)'],
    ['UNDO_MISMATCH', 'cannot undo both parts of this action, so nothing was undone: fork x changed since it was created (resumed?): pass --force to remove it anyway (it is kept under .agent/rewind/undone/)'],
    ['NOT_FOUND', 'backup is missing: /p/.agent/rewind/transcript-backup/x.jsonl'],
    ['IO', 'files changed since the restore: a.txt (pass --force to undo anyway)'],
  ];
  it.each(messages)('%s reads as a sentence with buttons, never a command-line flag', (code, message) => {
    const w = windowError(code, message, 'Rewrite');
    expect(w.text).not.toMatch(/--\w/);
    expect(w.text).toMatch(/^[A-Z].*[.!?]$/);
    for (const a of w.actions) expect(a.label).not.toMatch(/--\w/);
  });
  it('an agent still writing offers to try again or to go ahead anyway', () => {
    expect(windowError('TRANSCRIPT_LIVE', 'x', 'Rewrite').actions.map((a) => a.label)).toEqual(['Stop the agent and try again', 'Rewrite anyway']);
  });
});

describe('rewind statement words', () => {
  const p = (number: number | null, text: string, live = number !== null) => ({ number, text, images: 0, live });
  it('nothing before it, and long runs of live prompts summarized', () => {
    const lines = statementLines({ mode: 'fork', keptEnd: null, droppedLive: [1, 2, 3, 4, 5, 6, 7, 8].map((n) => p(n, `p${n}`)), droppedBranch: [], handedBack: [p(1, 'p1')], targetLive: true });
    expect(lines).toEqual(['The new session will hold nothing before it.', 'Leaves out #1, #2, 4 more, #7, #8 (live).', "Handed back to edit: #1 'p1'."]);
  });
  it('abandoned prompts an in-place rewrite removes are named by their text; kept ones are counted; the button counts every prompt once', () => {
    const q = (uuid: string, number: number | null, text: string) => ({ uuid, number, text, images: 0, live: number !== null });
    const s = {
      mode: 'in-place' as const,
      keptEnd: q('k', 2, 'two'),
      droppedLive: [q('a', 3, 'three'), q('b', 4, 'four')],
      droppedBranch: [],
      droppedOther: [q('x', null, 'BASH echo bashmade > c.txt'), q('y', null, 'WRITE b.txt bee')],
      keptAbandoned: 3,
      handedBack: [q('a', 3, 'three'), q('b', 4, 'four')],
      targetLive: true,
    };
    expect(statementLines(s)).toEqual([
      "The session will end after #2 'two'.",
      'Leaves out #3, #4 (live).',
      "Also removes from the file 2 prompts of other abandoned branches: 'BASH echo bashmade > c.txt' and 'WRITE b.txt bee' (Undo brings them back).",
      'Keeps 3 prompts of other abandoned branches in the file.',
      'Handed back to edit: 2 prompts, oldest first.',
    ]);
    expect(droppedPrompts(s).map((x) => x.uuid)).toEqual(['a', 'b', 'x', 'y']);
    // Live prompts an in-place rewrite keeps as an abandoned branch (Gemini's $rewindTo, Qwen) say so.
    expect(statementLines({ ...s, droppedOther: [], keptAbandoned: 0, droppedLiveKept: 2 })[1]).toBe('Leaves out #3, #4 (live; they stay in the file as an abandoned branch).');
    // Many: the first and last three by text around a count (the window lists them all beneath).
    const many = Array.from({ length: 9 }, (_, i) => q(`m${i}`, null, `m${i}`));
    expect(statementLines({ ...s, droppedOther: many, keptAbandoned: 0 })[2]).toBe("Also removes from the file 9 prompts of other abandoned branches: 'm0', 'm1', 'm2', 3 more, 'm6', 'm7' and 'm8' (Undo brings them back).");
  });
  it('an image-only prompt is named by its images', () => {
    expect(namePrompt({ number: 3, text: '', images: 2, live: true })).toBe('#3 [2 images]');
  });
});

describe('history words', () => {
  it('names each kind of entry, and an undo or redo by what it acted on, the same for the CLI and the window', () => {
    const revert = { kind: 'revert' as const, sessionId: '2ea8980a-26fe-4928-aab5-4ebf6074b664', prompt: 'ebe0af8c-6bca-4f24-810e-f73c0d868e5c' };
    expect(historyTitle(revert)).toBe('Reverted the changes of prompt ebe0af8c');
    expect(historyTitle({ kind: 'fork', sessionId: '2ea8980a-26fe-4928-aab5-4ebf6074b664', prompt: '#3' })).toBe('Forked session 2ea8980a before prompt #3');
    expect(historyTitle({ kind: 'undo', sessionId: null, prompt: null, of: revert })).toBe('Undid: Reverted the changes of prompt ebe0af8c');
    expect(historyTitle({ kind: 'redo', sessionId: null, prompt: null, of: null })).toBe('Redid: an action');
    expect(undoableText({ undoable: false, why: 'files changed since the restore: shared.ts (pass --force to undo anyway)' })).toBe('cannot be undone: files changed since the restore: shared.ts');
    expect(undoableText({ undoable: true, why: null })).toBe('can be undone');
    expect(revertedSummary({ written: 1, deleted: 1 }, 'abc')).toBe("Reverted prompt abc's changes: 2 files (1 deleted)");
    expect(revertedSummary(null, 'abc')).toBe('Nothing to revert: the files are as they were before prompt abc');
  });
});

describe('open sessions in words', () => {
  it('names the agent, its status and pid; the refusal gives the two ways on and says --force does not pass', async () => {
    const { openSessionText, openRefusal, windowError } = await import('./wording.js');
    expect(openSessionText('Claude Code', { pid: 42, status: 'idle', exact: true })).toBe('open in Claude Code (idle, pid 42)');
    expect(openSessionText('Gemini CLI', { pid: 7, status: 'unknown', exact: false })).toBe('probably open in Gemini CLI (pid 7)');
    const line = openRefusal('Claude Code', { pid: 42, status: 'busy', exact: true }, 'rewrite');
    expect(line).toBe('refused: this session is open in Claude Code (busy, pid 42): rewriting it in place under the agent would damage it (--force does not override this). Fork it instead (always allowed), or quit Claude Code (pid 42) and try again.');
    // The window offers no "anyway" for it.
    expect(windowError('SESSION_OPEN', line, 'Rewrite').actions.map((a) => a.action)).toEqual(['review']);
  });
});
