/** Words the CLI and the window both say: the same outcome reads the same in both. */

export function plural(n: number, word: string): string {
  if (n === 1) return `${n} ${word}`;
  return `${n} ${/(s|x|ch|sh)$/.test(word) ? `${word}es` : `${word}s`}`;
}

/** "a", "a and b", "a, b and c", "a, b, c and 4 more": a list a sentence can hold. */
export function listed(items: string[], max = 3): string {
  if (items.length <= 1) return items[0] ?? '';
  if (items.length <= max) return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
  return `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

/** "1 file Claude never edited stays as it is: a.txt"; several: "... stay as they are: a, b and c". */
export function untouchedSentence(paths: string[]): string {
  const one = paths.length === 1;
  return `${plural(paths.length, 'file')} Claude never edited ${one ? 'stays as it is' : 'stay as they are'}: ${listed(paths)}`;
}

export function bytes(n: number | null): string {
  if (n === null) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1).replace(/\.0$/, '')} KB`;
  return `${(n / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MB`;
}

/** A file whose diff is not shown, in a few words: "binary, 12 KB → 14 KB", "large file: 1 line changed". */
export function fileChangeSummary(c: { action: 'create' | 'modify' | 'delete' | 'unchanged'; binary: boolean; sizeBefore: number | null; sizeAfter: number | null }, changedLines?: number): string {
  const sizes = c.action === 'create' ? bytes(c.sizeAfter) : c.action === 'delete' ? bytes(c.sizeBefore) : c.sizeBefore === null && c.sizeAfter === null ? '' : `${bytes(c.sizeBefore)} → ${bytes(c.sizeAfter)}`;
  if (c.binary) return `binary${sizes ? `, ${sizes}` : ''}`;
  if (changedLines !== undefined) return `large file: ${plural(changedLines, 'line')} changed`;
  return sizes ? `${sizes}, no diff computed` : 'no diff computed';
}

/** What a code restore did, in one line: "Restored 3 files (1 written back, 2 deleted)". */
export function restoredSummary(applied: { written: number; deleted: number }): string {
  const { written, deleted } = applied;
  if (written + deleted === 0) return 'Restored: the files already matched';
  if (deleted === 0) return `Restored ${plural(written, 'file')}`;
  if (written === 0) return `Restored: deleted ${plural(deleted, 'file')} made since`;
  return `Restored ${plural(written + deleted, 'file')} (${written} written back, ${deleted} deleted)`;
}

/** A prompt as a statement names it (the engine's StatedPrompt has this shape). */
export interface NamedPrompt {
  uuid?: string;
  text: string;
  images: number;
  number: number | null;
  live: boolean;
}

/** What a rewind leaves and takes away (the engine's RewindStatement has this shape). */
export interface StatementWords {
  mode: 'fork' | 'in-place';
  keptEnd: NamedPrompt | null;
  droppedLive: NamedPrompt[];
  droppedBranch: NamedPrompt[];
  /** Other abandoned branches' prompts an in-place rewrite removes from the file (absent: none). */
  droppedOther?: NamedPrompt[];
  /** Other abandoned branches' prompts an in-place rewrite keeps in the file. */
  keptAbandoned?: number;
  /** Of the live prompts left out, those an in-place rewrite keeps in the file as an abandoned branch. */
  droppedLiveKept?: number;
  handedBack: NamedPrompt[];
  targetLive: boolean;
}

/**
 * Every prompt the result no longer holds, once each: live, the target's branch, other abandoned
 * branches, and the prompt(s) handed back. What the confirm button counts.
 */
export function droppedPrompts(s: StatementWords): NamedPrompt[] {
  const out: NamedPrompt[] = [];
  const seen = new Set<string>();
  for (const p of [...s.droppedLive, ...s.handedBack, ...s.droppedBranch, ...(s.droppedOther ?? [])]) {
    const key = p.uuid ?? `${p.number}:${p.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}

/** Abandoned prompts by their text: every one up to 6, else the first and last 3 around a count. */
function textList(ps: NamedPrompt[]): string {
  const named = ps.length > 6 ? [...ps.slice(0, 3).map((p) => namePrompt(p, 40)), `${ps.length - 6} more`, ...ps.slice(-3).map((p) => namePrompt(p, 40))] : ps.map((p) => namePrompt(p, 40));
  return list(named);
}

export function clip(text: string, max = 60): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** "#2 'WRITE a.txt version two'", or the text alone when the number is not known. */
export function namePrompt(p: NamedPrompt, max = 60): string {
  const text = p.text.trim() ? `'${clip(p.text, max)}'` : p.images ? `[${plural(p.images, 'image')}]` : "''";
  return p.number !== null ? `#${p.number} ${text}` : text;
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** Live prompts by number ("#3, #4"), by text when unnumbered; long runs are summarized. */
function liveList(ps: NamedPrompt[]): string {
  const named = ps.length > 6 ? [...ps.slice(0, 2).map((p) => shortName(p)), `${ps.length - 4} more`, ...ps.slice(-2).map((p) => shortName(p))] : ps.map((p) => shortName(p));
  return named.join(', ');
}
const shortName = (p: NamedPrompt) => (p.number !== null ? `#${p.number}` : namePrompt(p, 40));

/**
 * The rewind statement in plain words, one sentence a line, the same in the CLI's dry run and the
 * window's preview: where the session ends, what it leaves out, what comes back to edit.
 */
export function statementLines(s: StatementWords): string[] {
  const subject = s.mode === 'fork' ? 'The new session' : 'The session';
  const out: string[] = [];
  if (s.keptEnd) {
    const where = s.keptEnd.live ? '' : ' (now on an abandoned branch; it becomes the live path)';
    out.push(`${subject} will end after ${namePrompt(s.keptEnd)}${where}.`);
  } else out.push(`${subject} will hold nothing before it.`);
  const parts: string[] = [];
  const stay = s.droppedLiveKept ?? 0;
  const where = stay === 0 ? '' : stay === s.droppedLive.length ? `; ${stay === 1 ? 'it stays' : 'they stay'} in the file as an abandoned branch` : `; ${stay} of them stay in the file as an abandoned branch`;
  if (s.droppedLive.length) parts.push(`${liveList(s.droppedLive)} (live${where})`);
  if (s.droppedBranch.length) parts.push(`${textList(s.droppedBranch)} (after it on its abandoned branch)`);
  out.push(parts.length ? `Leaves out ${list(parts)}.` : 'Leaves out no live prompt.');
  const other = s.droppedOther ?? [];
  if (other.length) out.push(`Also removes from the file ${plural(other.length, 'prompt')} of other abandoned branches: ${textList(other)} (Undo brings ${other.length === 1 ? 'it' : 'them'} back).`);
  if (s.keptAbandoned) out.push(`Keeps ${plural(s.keptAbandoned, 'prompt')} of other abandoned branches in the file.`);
  if (s.handedBack.length === 1) out.push(`Handed back to edit: ${namePrompt(s.handedBack[0]!)}${s.handedBack[0]!.live ? '' : ' (from an abandoned branch)'}.`);
  else if (s.handedBack.length > 1) out.push(`Handed back to edit: ${plural(s.handedBack.length, 'prompt')}, oldest first.`);
  return out;
}

/**
 * A Rewind checkpoint's marker, on hover: when it was taken, and whether it is the project before
 * the prompt or (taken long after it: shared/checkpoint-time) the project as it was at that time.
 */
export function checkpointTitle(c: { id: string; later?: boolean; pending?: { started: string; queued: number } }, when: string): string {
  if (c.pending) return `Rewind's first checkpoint of this project is still being read in the background (${firstCheckpointState(c.pending)}): until it is complete, the code cannot be restored to this prompt`;
  if (c.later) return `Rewind checkpoint ${c.id}, taken later: the project as it was at ${when}, not before this prompt`;
  return `Rewind checkpoint ${c.id}, taken ${when}: the whole project before this prompt (Bash-made changes included)`;
}

/** The first checkpoint's state, in words: "started 12 s ago; 2 prompts' checkpoints wait behind it". */
export function firstCheckpointState(p: { started: string; queued: number }, now = Date.now()): string {
  const secs = Math.max(0, Math.round((now - Date.parse(p.started)) / 1000));
  const ago = secs < 60 ? `${secs} s ago` : `${Math.round(secs / 60)} min ago`;
  const behind = p.queued - 1;
  return `started ${ago}${behind > 0 ? `; ${behind === 1 ? "1 later prompt's checkpoint waits" : `${behind} later prompts' checkpoints wait`} behind it` : ''}`;
}

/** A command run from a terminal and performed by the running app (`rewind-app back 1`), as the window says it. */
export function fromTerminalTitle(e: { operation: string; ok: boolean; summary: string }): string {
  return `From the terminal: rewind-app ${e.operation}${e.ok ? '' : ' failed'} — ${e.summary}`;
}

/** The agent may still be writing the transcript: said the same way by the CLI and the window. */
export function agentWritingSentence(secondsAgo: number | null): string {
  const when = secondsAgo === null ? 'moments ago' : `${Math.max(0, Math.round(secondsAgo))}s ago`;
  return `The agent wrote to this session ${when}: it may still be running.`;
}

/** A session a running agent has open, as every door says it: "open in Claude Code (idle, pid 4242)". */
export function openSessionText(agentName: string, open: { pid: number; status: 'idle' | 'busy' | 'unknown'; exact: boolean }): string {
  const status = open.status === 'unknown' ? '' : `${open.status}, `;
  return `${open.exact ? 'open' : 'probably open'} in ${agentName} (${status}pid ${open.pid})`;
}

/** A code restore's preview while an agent has a session of the project open: allowed while idle, but said. */
export function restoreOpenNote(agentName: string, open: { pid: number; status: 'idle' | 'busy' | 'unknown'; exact: boolean }): string {
  return `This project has a session ${openSessionText(agentName, open)}${open.status === 'busy' ? ': the restore is refused until it is idle' : ': its next turn sees the restored files'}.`;
}

/**
 * The one line refusing a write under an open session: who has it, and the two ways on (a fork is
 * always allowed; or quit the agent first). `--force` does not pass it.
 */
export function openRefusal(agentName: string, open: { pid: number; status: 'idle' | 'busy' | 'unknown'; exact: boolean }, kind: 'rewrite' | 'restore' | 'undo'): string {
  if (kind === 'undo') return `refused: this session is ${openSessionText(agentName, open)}: putting it back under the agent would damage it (--force does not override this). Quit ${agentName} (pid ${open.pid}) and try again.`;
  const on = kind === 'rewrite' ? 'rewriting it in place under the agent would damage it' : 'restoring the code mid-turn would change files under the agent';
  return `refused: this session is ${openSessionText(agentName, open)}: ${on} (--force does not override this). Fork it instead (always allowed), or quit ${agentName} (pid ${open.pid}) and try again.`;
}

/** The refusal while the agent that has the session open is mid-turn (an agent that applies the rewind itself does it only idle). */
export function openBusyRefusal(agentName: string, pid: number): string {
  return `refused: ${agentName} (pid ${pid}) is in the middle of a turn on this session: try again when it is idle, or fork it instead (always allowed).`;
}

/** An in-place rewind applied by the running agent that has the session open: said in the preview and after. */
export function throughAgentNote(agentName: string, pid: number, how: string): string {
  return `${agentName} (pid ${pid}) has this session open: the rewind goes through it (${how}), so its next prompt goes to the model without the removed prompts (its screen still shows them until it redraws).`;
}

/** How undo goes for a rewind the agent applied: said in the preview, before confirming. */
export function throughAgentUndoNote(agentName: string, how: string): string {
  return `Undo does not go through ${agentName}: ${how}.`;
}

export type WindowAction = 'retry' | 'force' | 'review';

/**
 * A failed confirm, in the window's words: a plain sentence and the buttons that act on it (never
 * a command-line flag). `verb` is the action's name ("Rewrite", "Fork", "Restore").
 */
export function windowError(code: string, message: string, verb: string): { text: string; actions: { action: WindowAction; label: string }[] } {
  switch (code) {
    case 'TRANSCRIPT_LIVE':
      return { text: `${agentWritingSentence(null)} Its next write would land in the replaced file.`, actions: [{ action: 'retry', label: 'Stop the agent and try again' }, { action: 'force', label: `${verb} anyway` }] };
    case 'SESSION_OPEN':
      return { text: `${plainSentence(message)}`, actions: [{ action: 'review', label: 'Review again' }] };
    case 'TRANSCRIPT_CHANGED':
      return { text: 'The session changed while this preview was open. Nothing was changed.', actions: [{ action: 'review', label: 'Review again' }] };
    case 'CONFLICT':
      return { text: 'Some files were changed by hand since the last checkpoint. Nothing was changed.', actions: [{ action: 'review', label: 'Review again' }, { action: 'force', label: `${verb} anyway` }] };
    case 'UNDO_MISMATCH':
      return { text: 'This changed since the action (the fork was resumed, or the session went on): undoing now would replace that work. Nothing was undone.', actions: [{ action: 'force', label: `${verb} anyway (what it replaces is kept)` }] };
    case 'NOT_ENOUGH_PROMPTS':
      return { text: 'This is the first prompt: nothing would be left to resume. Start a new session instead.', actions: [] };
    default:
      return { text: plainSentence(message), actions: [] };
  }
}

/** An engine message as a window sentence: flags are for the terminal (the window offers buttons). */
export function plainSentence(message: string): string {
  const t = message.replace(/\s*\((?:[^()]*)--\w[^()]*\)\s*$/, '').replace(/[:;,]?\s*(?:pass|or pass|use) --[\w-]+[^.;]*/g, '').trim();
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
}

/** Where the code a compared side ended with was read from. */
export function treeSourceText(s: { kind: 'checkpoint'; id: string } | { kind: 'disk' } | { kind: 'agent-history'; files: number } | { kind: 'unknown'; reason: string }): string {
  if (s.kind === 'checkpoint') return `Rewind checkpoint ${s.id}`;
  if (s.kind === 'disk') return 'the files on disk now';
  if (s.kind === 'agent-history') return `the agent's own file history (${plural(s.files, 'tracked file')})`;
  return `not known: ${s.reason}`;
}

/** An entry of the operations list (the engine's HistoryEntry has this shape). */
export interface HistoryWords {
  kind: 'fork' | 'in-place' | 'restore' | 'revert' | 'undo' | 'redo';
  sessionId: string | null;
  prompt: string | null;
  /** For undo and redo: the kind of the action they act on. */
  of?: HistoryWords | null;
}

const shortId = (id: string | null) => (id ? (id.length > 12 ? id.slice(0, 8) : id) : '?');

/** One line naming an operation, the same in `rewind-app history` and the History panel. */
export function historyTitle(e: HistoryWords): string {
  const at = e.prompt ? ` before prompt ${e.prompt.startsWith('#') ? e.prompt : shortId(e.prompt)}` : '';
  switch (e.kind) {
    case 'fork':
      return `Forked session ${shortId(e.sessionId)}${at}`;
    case 'in-place':
      return `Rewrote session ${shortId(e.sessionId)} in place${at}`;
    case 'restore':
      return `Restored the code${at}`;
    case 'revert':
      return `Reverted the changes of prompt ${shortId(e.prompt)}`;
    case 'undo':
      return `Undid: ${e.of ? historyTitle(e.of) : 'an action'}`;
    case 'redo':
      return `Redid: ${e.of ? historyTitle(e.of) : 'an action'}`;
  }
}

/** Whether an entry can be undone, in a few words ("can be undone", "cannot be undone: a.txt changed since"). */
export function undoableText(e: { undoable: boolean; why: string | null }): string {
  if (e.undoable) return 'can be undone';
  return `cannot be undone${e.why ? `: ${e.why.replace(/\s*\((?:pass|choose)[^)]*\)\s*$/, '')}` : ''}`;
}

/** What a revert did, in one line. */
export function revertedSummary(applied: { written: number; deleted: number } | null, promptId: string): string {
  if (!applied) return `Nothing to revert: the files are as they were before prompt ${shortId(promptId)}`;
  const n = applied.written + applied.deleted;
  return `Reverted prompt ${shortId(promptId)}'s changes: ${plural(n, 'file')}${applied.deleted ? ` (${applied.deleted} deleted)` : ''}`;
}

/** The three choices for a conflicted file, as the window labels them (the CLI's --take values). */
export const TAKE_LABEL = { current: 'Keep the current file', before: 'Take the file before the prompt', markers: 'Write conflict markers' } as const;

/** A code action as undo and redo name it: words, never a checkpoint or prompt id. */
export function codeActionName(r: { kind: 'restore' | 'revert' }): string {
  return r.kind === 'revert' ? "the revert of a prompt's changes" : 'the restore';
}
/** What a restore from Rewind's own checkpoint covers, beside its id in a preview and on the CLI. */
export const REWIND_CHECKPOINT_COVERS = "the whole project, shell-made changes and deletions included (git-ignored files and files over the store's size limit stay as they are)";

/** Why a session written by an agent release Rewind has not judged is read only, naming the command that judges it. */
export function unjudgedSentence(agent: string, version: string, newestJudged: string): string {
  return `written by ${agent} ${version}, newer than ${newestJudged}, the last version Rewind was checked against: shown, not rewritten (\`npm run conformance -- --latest\` judges it)`;
}

/** An agent's config holds hook entries an earlier Rewind wrote (fewer events, older matchers). */
export function earlierEntriesStep(agent: string, id: string, scope: string): string {
  return `${agent}'s Rewind hooks (${scope}) are from an earlier version: install them again (rewind-app hooks install --agent ${id} --scope ${scope}).`;
}
