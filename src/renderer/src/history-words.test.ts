import { describe, expect, it } from 'vitest';
import type { HistoryEntryDoc } from '../../shared/contract.js';
import { actionWords, historyCards, promptLookup } from './history-words.js';

const entry = (over: Partial<HistoryEntryDoc>): HistoryEntryDoc => ({ id: 'x', kind: 'restore', time: '2026-11-27T10:00:00Z', group: null, agent: null, sessionId: 's1', transcript: '/t.jsonl', prompt: null, files: [], dropped: null, refers: null, undone: false, undoable: true, why: null, ...over });
const look = promptLookup({ session: { transcriptPath: '/t.jsonl' }, prompts: [{ uuid: 'u5', number: 5, text: 'EDIT notes.md alpha gamma and more words than fit' }, { uuid: 'ux', number: null, text: 'BASH echo' }] });

describe('history in words', () => {
  it('names the prompt by #n and its text, never by id', () => {
    expect(actionWords(entry({ prompt: 'u5' }), look)).toBe('Restored the code to before #5 “EDIT notes.md alpha gamma and more word…”');
    expect(actionWords(entry({ kind: 'fork', prompt: '#5' }), look)).toMatch(/^Forked the chat before #5 “EDIT notes.md/);
    expect(actionWords(entry({ kind: 'fork', prompt: '#5', transcript: '/other.jsonl' }), look)).toBe('Forked the chat before #5');
    expect(actionWords(entry({ kind: 'revert', prompt: 'ux' }), look)).toBe('Reverted the changes of an abandoned prompt “BASH echo”');
    expect(actionWords(entry({ prompt: 'c7e4467c-0000' }), look)).toBe('Restored the code to before a prompt of another session');
  });

  it('folds undo and redo into the action they acted on', () => {
    // Newest first: a restore undone, redone, undone again; an older fork.
    const entries = [
      entry({ id: 'u2', kind: 'undo', refers: 'r' }),
      entry({ id: 'd1', kind: 'redo', refers: 'r' }),
      entry({ id: 'u1', kind: 'undo', refers: 'r', undone: true }),
      entry({ id: 'r', kind: 'restore', undone: true, undoable: false }),
      entry({ id: 'f', kind: 'fork' }),
    ];
    const cards = historyCards(entries);
    expect(cards.map((c) => c.entry.id)).toEqual(['r', 'f']);
    expect(cards[0]).toMatchObject({ undone: true, newest: false });
    expect(cards[0]!.chain.map((e) => e.id)).toEqual(['u2', 'd1', 'u1']);
    expect(cards[0]!.redoable?.id).toBe('u2');
    // The fork is now the newest thing not undone, but the journal's last record is the undo: its undo is out of order.
    expect(cards[1]).toMatchObject({ undone: false, newest: false, redoable: null });
    expect(historyCards([entry({ id: 'd', kind: 'redo', refers: 'r' }), entry({ id: 'u', kind: 'undo', refers: 'r', undone: true }), entry({ id: 'r' }), entry({ id: 'f', kind: 'fork' })]).map((c) => c.newest)).toEqual([true, false]);
  });
});
