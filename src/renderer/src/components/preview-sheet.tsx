import { useEffect, useRef, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { useBackdropClose } from './backdrop.js';
import type { CodePlan } from '../../../shared/contract.js';
import { droppedPrompts, firstCheckpointState, statementLines, windowError } from '../../../shared/wording.js';
import { getApi } from '../api/client.js';
import { bytes, firstLine, plural } from '../format.js';
import { ACTION_LABEL, actionEligibility, type Action } from '../store/action-slice.js';
import { useStore } from '../store/store.js';
import { CodeChanges } from './code-changes.js';
import { isDestructive } from '../destructive.js';
import './preview-sheet.css';

const VERB: Record<Action, string> = { fork: 'Fork', rewrite: 'Rewrite', restore: 'Restore', 'fork-restore': 'Fork and restore' };

function CodePart({ plan, note }: { plan: CodePlan | null; note: string | null }) {
  if (!plan) return <p className="muted">{note ?? 'No code change.'}</p>;
  return (
    <div className="code-part">
      <p className="small muted">{plan.note}</p>
      {plan.openNote && <p className="small open-note">{plan.openNote}</p>}
      {plan.conflicts > 0 && (
        <p className="warning" role="alert">
          {plural(plan.conflicts, 'file')} changed outside the agent since the last checkpoint. Restoring overwrites {plan.conflicts === 1 ? 'it' : 'them'} (a checkpoint of the current state is taken first, so Undo brings {plan.conflicts === 1 ? 'it' : 'them'} back).
        </p>
      )}
      {plan.changes.length === 0 && <p className="muted">The files already match: nothing to restore.</p>}
      <CodeChanges plan={plan} />
    </div>
  );
}

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), textarea:not([disabled]), select:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/** Tab and Shift-Tab cycle inside the sheet: a modal keeps the focus. */
function trapTab(e: ReactKeyboardEvent<HTMLDivElement>) {
  if (e.key !== 'Tab') return;
  const items = [...e.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
  if (items.length === 0) return;
  const first = items[0]!;
  const last = items[items.length - 1]!;
  const at = document.activeElement;
  if (e.shiftKey && (at === first || !e.currentTarget.contains(at))) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && (at === last || !e.currentTarget.contains(at))) {
    e.preventDefault();
    first.focus();
  }
}

/** Focus back on the timeline row the sheet was opened for (or whatever opened it). */
function returnFocus(promptUuid: string, opener: HTMLElement | null) {
  const row = document.getElementById(`prompt-${promptUuid}`);
  if (row) {
    if (!row.hasAttribute('tabindex')) row.setAttribute('tabindex', '-1');
    row.focus();
    if (document.activeElement === row) return;
  }
  if (opener?.isConnected) opener.focus();
}

/**
 * The project's first checkpoint is still read in the background (a prompt marked ◈): a restore to a
 * prompt it would stand for is refused by the service until it is complete. Said in words, and the
 * preview is made again by itself when the checkpoint lands.
 */
function useFirstCheckpoint(action: Action | null, promptUuid: string | null) {
  const code = action === 'restore' || action === 'fork-restore';
  const pending = useStore((s) => (code ? (s.timeline?.prompts.find((p) => p.checkpoint?.pending)?.checkpoint?.pending ?? null) : null));
  const mine = useStore((s) => s.timeline?.prompts.find((p) => p.uuid === promptUuid) ?? null);
  const covered = !!mine?.checkpoint && !mine.checkpoint.pending;
  const waiting = !!pending && !covered;
  const reviewAgain = useStore((s) => s.reviewAgain);
  const was = useRef(waiting);
  useEffect(() => {
    if (was.current && !waiting) void reviewAgain();
    was.current = waiting;
  }, [waiting, reviewAgain]);
  if (!waiting || !pending) return null;
  const who = mine?.number ? `#${mine.number}` : 'this prompt';
  return `Rewind's first checkpoint of this project is still being read in the background (${firstCheckpointState(pending)}). Until it is complete, what the files held before ${who} is not known in full, so the code cannot be restored to ${who} yet: nothing is changed now. This preview is made again by itself once it is done (its ◈ becomes a ◆).`;
}

/** Watches the preview's transcript: when it changes, the preview may no longer be what happens. */
function useStaleWatch(session: string | null, open: boolean) {
  const markStale = useStore((s) => s.markPreviewStale);
  useEffect(() => {
    if (!session || !open) return;
    const linesAtOpen = useStore.getState().timeline?.stats.lines ?? null;
    return getApi().onEvent((e) => {
      if (e.type !== 'timelineChanged' || e.session !== session) return;
      // A checkpoint marker landing re-sends prompts with the same stats: not a change of the transcript.
      if (e.kind === 'append' && linesAtOpen !== null && e.stats.lines === linesAtOpen) return;
      markStale(session);
    });
  }, [session, open, markStale]);
}

/** Exactly what will change, before anything does: what the conversation keeps and loses, then the code. */
export function PreviewSheet() {
  const preview = useStore((s) => s.preview);
  const close = useStore((s) => s.closePreview);
  const backdrop = useBackdropClose(close);
  const confirm = useStore((s) => s.confirm);
  const reviewAgain = useStore((s) => s.reviewAgain);
  const writing = useStore((s) => (s.preview ? actionEligibility(s, s.preview.action, s.preview.promptUuid).reason : null));
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const openFor = useRef<string | null>(null);
  const isOpen = !!preview;
  useStaleWatch(preview?.session ?? null, isOpen);
  const firstCheckpoint = useFirstCheckpoint(preview?.action ?? null, preview?.promptUuid ?? null);
  useEffect(() => {
    if (isOpen) {
      // Opening: remember where focus was, and start on Cancel (Enter must not confirm by accident).
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      openFor.current = useStore.getState().preview?.promptUuid ?? null;
      cancel.current?.focus();
    } else if (openFor.current) {
      const uuid = openFor.current;
      openFor.current = null;
      // After a confirm the result bar takes over; after Cancel/Esc focus goes back to the row.
      if (!useStore.getState().result || document.activeElement === document.body) returnFocus(uuid, opener.current);
    }
  }, [isOpen]);
  if (!preview) return null;
  const r = preview.rewind;
  const code = r ? r.code : preview.restore;
  const conflicts = code?.conflicts ?? 0;
  // The engine's "agent wrote Ns ago" and the up-front warning say the same thing: show it once.
  const warnings = (r?.chat.warnings ?? []).filter((w) => !(writing && w.startsWith('The agent wrote')));
  const title = ACTION_LABEL[preview.action];
  const verb = VERB[preview.action];
  let button = title;
  const st = r?.chat.statement ?? null;
  // An agent whose rewind cannot state the result yet: the prompts it leaves out, listed.
  const lines = r ? (st ? statementLines(st) : [`${preview.action === 'rewrite' ? 'Dropped from this session' : 'Left out of the new session'}: ${plural(r.chat.prompts.length, 'prompt')}.`]) : [];
  // The sentence shortens long runs of abandoned prompts: then every one is listed under it.
  const abandonedGone = st && (st.droppedBranch.length > 6 || st.droppedOther.length > 6) ? [...st.droppedBranch, ...st.droppedOther] : [];
  const handed = st ? st.handedBack : (r?.chat.prompts ?? []).map((p) => ({ ...p, number: null as number | null }));
  if (r) {
    // Every prompt the result no longer holds, the target and other abandoned branches included.
    const lost = st ? droppedPrompts(st).length : r.chat.prompts.length;
    button = preview.action === 'rewrite' ? `Rewrite: leave out ${plural(lost, 'prompt')}` : 'Fork before this prompt';
    if (r.code) button += ` and restore ${plural(r.code.changes.length, 'file')}`;
  } else if (preview.restore) button = `Restore ${plural(preview.restore.changes.length, 'file')}`;
  const force = conflicts > 0;
  if (force) button += ' anyway';
  // The service's refusal while the first checkpoint is read says the same as the note above it, in CLI words.
  const err = preview.error && !(firstCheckpoint && preview.error.code === 'NO_CHECKPOINT') ? windowError(preview.error.code, preview.error.message, verb) : null;
  const destructive = isDestructive({ action: preview.action, code, force });
  const runAction = (a: 'retry' | 'force' | 'review') => {
    if (a === 'review') void reviewAgain();
    else void confirm(a === 'force' || force);
  };
  return (
    <div className="sheet-backdrop" {...backdrop}>
      <div className="sheet" role="dialog" aria-modal="true" aria-labelledby="sheet-title" aria-describedby="sheet-statement" onClick={(e) => e.stopPropagation()} onKeyDown={trapTab}>
        <header className="sheet-header">
          <h2 id="sheet-title">{title}</h2>
          <p className="muted small">Nothing changes until you confirm.</p>
        </header>
        <div className="sheet-body">
          {preview.loading && (
            <p className="muted" aria-busy="true">
              Working out what would change…
            </p>
          )}
          {preview.stale && (
            <div className="stale-note" role="alert">
              <span>This session changed after the preview was made (the agent wrote to it), so what happens may differ.</span>
              <button type="button" className="button small" onClick={() => void reviewAgain()}>
                Review again
              </button>
            </div>
          )}
          {firstCheckpoint && (
            <p className="warning first-checkpoint" role="note" aria-label="First checkpoint in progress">
              {firstCheckpoint}
            </p>
          )}
          {err && (
            <div className="sheet-error" role="alert">
              <p className="error-text">{err.text}</p>
              {err.actions.length > 0 && (
                <div className="sheet-error-actions">
                  {err.actions.map((a) => (
                    <button key={a.action} type="button" className={`button small${a.action === 'force' ? ' danger' : ''}`} onClick={() => runAction(a.action)}>
                      {a.label}
                    </button>
                  ))}
                </div>
              )}
            </div>
          )}
          {writing && !preview.loading && (
            <p className="warning" role="note">
              {writing}
            </p>
          )}
          {warnings.map((w) => (
            <p key={w} className="warning" role="note">
              {w}
            </p>
          ))}
          {r && (
            <section aria-label="Chat" className="statement-part">
              <h3>Chat</h3>
              <div id="sheet-statement" className="statement">
                {lines.map((line) => (
                  <p key={line}>{line}</p>
                ))}
              </div>
              {abandonedGone.length > 0 && (
                <ol className="dropped" aria-label="Abandoned prompts it removes">
                  {abandonedGone.map((p) => (
                    <li key={p.uuid}>{firstLine(p.text, 120)}</li>
                  ))}
                </ol>
              )}
              {(handed.length > 1 || !st) && (
                <ol className="dropped" aria-label="Handed back to edit">
                  {handed.slice(0, 8).map((p) => (
                    <li key={p.uuid}>
                      {p.number !== null && <span className="muted">#{p.number} </span>}
                      {firstLine(p.text, 120)}
                    </li>
                  ))}
                  {handed.length > 8 && <li className="muted">… and {handed.length - 8} more</li>}
                </ol>
              )}
            </section>
          )}
          {(preview.action === 'restore' || preview.action === 'fork-restore') && !preview.loading && !(firstCheckpoint && !code) && (
            <section aria-label="Code">
              <h3>Code</h3>
              <CodePart plan={code} note={r?.codeNote ?? null} />
            </section>
          )}
          {(r || code) && (
            <details className="sheet-details">
              <summary>Details</summary>
              <dl>
                {r && (
                  <>
                    <dt>Transcript</dt>
                    <dd className="mono">{r.chat.transcript}</dd>
                    <dt>Cut</dt>
                    <dd>
                      at byte {r.chat.boundaryOffset.toLocaleString()}{r.chat.sizeAtPlan !== null && ` of ${r.chat.sizeAtPlan.toLocaleString()}`}; the result is {bytes(r.chat.resultSize)}
                    </dd>
                    {r.chat.droppedMessages > 0 && (
                      <>
                        <dt>Also left out</dt>
                        <dd>{plural(r.chat.droppedMessages, 'message')} of an older abandoned branch, so the session resumes where stated</dd>
                      </>
                    )}
                    {r.chat.backupPath && (
                      <>
                        <dt>Backup</dt>
                        <dd className="mono">{r.chat.backupPath}</dd>
                      </>
                    )}
                  </>
                )}
                {code && (
                  <>
                    <dt>Code from</dt>
                    <dd>{code.note}</dd>
                    <dt>Project</dt>
                    <dd className="mono">{code.projectRoot}</dd>
                  </>
                )}
              </dl>
            </details>
          )}
        </div>
        <footer className="sheet-footer">
          <button type="button" className="button" ref={cancel} onClick={close}>
            Cancel
          </button>
          <button
            type="button"
            className={`button primary${destructive ? ' danger' : ''}`}
            data-destructive={destructive ? 'true' : 'false'}
            disabled={preview.loading || preview.applying || preview.stale || (!r && !preview.restore) || !!firstCheckpoint}
            title={preview.stale ? 'Review again first: the session changed' : firstCheckpoint ? 'Waits for the first checkpoint' : undefined}
            onClick={() => void confirm(force)}
          >
            {preview.applying ? 'Working…' : button}
          </button>
        </footer>
      </div>
    </div>
  );
}
