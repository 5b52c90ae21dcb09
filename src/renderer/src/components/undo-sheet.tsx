import { useEffect, useRef, type KeyboardEvent } from 'react';
import { windowError } from '../../../shared/wording.js';
import { useStore } from '../store/store.js';
import { useBackdropClose } from './backdrop.js';
import './preview-sheet.css';

/** The dry run's sentence without the ids it carries for the terminal ("Would remove fork 3f2a…"). */
function inWords(summary: string): string {
  if (/^Would remove fork \S+$/.test(summary)) return 'This will remove the fork (the original session stays as it was)';
  if (/^Would put back fork \S+$/.test(summary)) return 'This will put the fork back';
  if (/^Would rewrite .+ again$/.test(summary)) return 'This will rewrite the session again (a backup of it is kept)';
  return summary.replace(/^Would /, 'This will ');
}

/**
 * Undo or Redo, asked first: what it would do (the service's dry run), then Cancel or the action.
 * Cancel has the focus (a stray Space or click takes nothing back); Enter is the dialog's default
 * button, as in a system dialog: the action, once the dry run said what it does. An undo that would
 * replace later work ("Undo anyway…") is never Enter's: it takes a click or Space on it.
 */
export function UndoSheet() {
  const ask = useStore((s) => s.undoAsk);
  const close = useStore((s) => s.closeUndoAsk);
  const confirm = useStore((s) => s.confirmUndo);
  const backdrop = useBackdropClose(close);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const open = !!ask;
  useEffect(() => {
    if (open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      cancel.current?.focus();
    } else if (opener.current) {
      // Cancelled: back where it was asked from (a done Undo moves the focus to the row itself).
      if (document.activeElement === document.body && opener.current.isConnected) opener.current.focus();
      opener.current = null;
    }
  }, [open]);
  // A modal keeps the focus: a row that takes it when its list arrives (after an Undo) gives it back.
  const dialog = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const keep = (e: FocusEvent) => {
      if (dialog.current && e.target instanceof Node && !dialog.current.contains(e.target)) cancel.current?.focus();
    };
    document.addEventListener('focusin', keep);
    return () => document.removeEventListener('focusin', keep);
  }, [open]);
  if (!ask) return null;
  const verb = ask.kind === 'redo' ? 'Redo' : 'Undo';
  const err = ask.error ? windowError(ask.error.code, ask.error.message, verb) : null;
  const forceable = err?.actions.find((a) => a.action === 'force');
  const ready = !ask.loading && !ask.applying && !err;
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    if (ready) void confirm();
  };
  return (
    <div className="sheet-backdrop centered" {...backdrop}>
      <div ref={dialog} className="undo-dialog" role="dialog" aria-modal="true" aria-labelledby="undo-title" aria-describedby="undo-what" onClick={(e) => e.stopPropagation()} onKeyDown={onKeyDown}>
        <h2 id="undo-title">{verb}</h2>
        <div id="undo-what">
          {ask.what && <p>{ask.what}</p>}
          {ask.loading && (
            <p className="muted" aria-busy="true">
              Working out what it would do…
            </p>
          )}
          {ask.summary && <p>{inWords(ask.summary)}.</p>}
          {err && <p className="error-text">{err.text}</p>}
          {!ask.loading && !err && (
            <p className="small muted">
              Nothing changes until you confirm: Enter {ask.kind === 'redo' ? 'redoes' : 'undoes'} it, Esc cancels.
            </p>
          )}
        </div>
        <div className="undo-dialog-footer">
          <button ref={cancel} type="button" className="button" onClick={close}>
            Cancel
          </button>
          {forceable ? (
            <button type="button" className="button danger" disabled={ask.applying} onClick={() => void confirm(true)}>
              {forceable.label}
            </button>
          ) : (
            <button type="button" className="button primary" disabled={!ready} onClick={() => void confirm()}>
              {ask.applying ? 'Working…' : verb}
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
