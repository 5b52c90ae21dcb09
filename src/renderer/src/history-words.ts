import type { HistoryEntryDoc } from '../../shared/contract.js';
import { firstLine } from './format.js';

/** What the History panel knows of prompts: the open session's, by id and by number. */
export interface PromptLookup {
  /** The session file they were read from (a fork may carry its original's session id). */
  transcript: string | null;
  byUuid: Map<string, { number: number | null; text: string }>;
  byNumber: Map<number, string>;
}

export function promptLookup(t: { session: { transcriptPath: string }; prompts: { uuid: string; number: number | null; text: string }[] } | null): PromptLookup {
  const byUuid = new Map<string, { number: number | null; text: string }>();
  const byNumber = new Map<number, string>();
  for (const p of t?.prompts ?? []) {
    byUuid.set(p.uuid, { number: p.number, text: p.text });
    if (p.number !== null) byNumber.set(p.number, p.text);
  }
  return { transcript: t?.session.transcriptPath ?? null, byUuid, byNumber };
}

/** A prompt in words: `#5 “EDIT notes.md…”`, `#5`, `an abandoned prompt “…”`, or `a prompt` (never its id). */
export function promptWords(ref: string | null, transcript: string | null, look: PromptLookup): string {
  if (!ref) return 'a prompt';
  const n = /^#(\d+)$/.exec(ref);
  if (n) {
    const text = transcript === look.transcript ? look.byNumber.get(Number(n[1])) : undefined;
    return text !== undefined ? `#${n[1]} “${firstLine(text, 40)}”` : `#${n[1]}`;
  }
  const p = look.byUuid.get(ref);
  if (!p) return 'a prompt of another session';
  return `${p.number ? `#${p.number}` : 'an abandoned prompt'} “${firstLine(p.text, 40)}”`;
}

/** An action in words, with its prompt: "Restored the code to before #5 “EDIT notes.md…”". */
export function actionWords(e: Pick<HistoryEntryDoc, 'kind' | 'prompt' | 'transcript'>, look: PromptLookup): string {
  const p = promptWords(e.prompt, e.transcript, look);
  switch (e.kind) {
    case 'fork':
      return `Forked the chat before ${p}`;
    case 'in-place':
      return `Rewrote the chat to before ${p}`;
    case 'restore':
      return `Restored the code to before ${p}`;
    case 'revert':
      return `Reverted the changes of ${p}`;
    case 'undo':
      return 'Undid an action';
    case 'redo':
      return 'Redid an action';
  }
}

/** One action and what became of it: its undos and redos folded into its current state. */
export interface HistoryCard {
  entry: HistoryEntryDoc;
  /** Its undo and redo entries, newest first. */
  chain: HistoryEntryDoc[];
  /** Undone now (and not redone). */
  undone: boolean;
  /** The undo entry a Redo would cancel, when this action is the one Redo puts back next. */
  redoable: HistoryEntryDoc | null;
  /** Undoing it is the project's newest action (Undo needs no preview then). */
  newest: boolean;
}

/**
 * The journal's entries (newest first) as one card per action: an undo or redo is shown on the
 * action it took back or put back, never as a card of its own.
 */
export function historyCards(entries: HistoryEntryDoc[]): HistoryCard[] {
  const chains = new Map<string, HistoryEntryDoc[]>();
  for (const e of entries) if ((e.kind === 'undo' || e.kind === 'redo') && e.refers) chains.set(e.refers, [...(chains.get(e.refers) ?? []), e]);
  // Redo puts back the newest undo a redo has not cancelled.
  const nextRedo = entries.find((e) => e.kind === 'undo' && !e.undone) ?? null;
  const actions = entries.filter((e) => e.kind !== 'undo' && e.kind !== 'redo');
  const newestLive = actions.find((e) => !e.undone) ?? null;
  const top = entries[0];
  return actions.map((entry) => {
    const chain = chains.get(entry.id) ?? [];
    return {
      entry,
      chain,
      undone: entry.undone,
      redoable: nextRedo && nextRedo.refers === entry.id ? nextRedo : null,
      // Nothing later in the journal than this action (or than its own redo): undoing it takes back the last thing done.
      newest: !entry.undone && newestLive?.id === entry.id && !!top && (top.id === entry.id || top.refers === entry.id),
    };
  });
}
