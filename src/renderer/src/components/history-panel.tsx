import { historyTitle, plainSentence, undoableText } from '../../../shared/wording.js';
import { useStore } from '../store/store.js';
import { useNow } from './use-now.js';
import { When } from './when.js';
import './preview-sheet.css';
import './history.css';

/** Every fork, rewrite, restore, revert, undo and redo of the project, newest first; any can be undone when nothing it touched changed. */
export function HistoryPanel() {
  const history = useStore((s) => s.history);
  const close = useStore((s) => s.closeHistory);
  const undoEntry = useStore((s) => s.undoEntry);
  const redo = useStore((s) => s.redo);
  const now = useNow();
  if (!history) return null;
  const byId = new Map(history.entries.map((e) => [e.id, e]));
  // The engine names the path that changed: said as it is, without the terminal's flags.
  const err = history.error ? { text: `Nothing was changed. ${plainSentence(history.error.message)}` } : null;
  // Redo takes back the newest undo a redo has not cancelled: on only when that one can go back.
  const canRedo = history.entries.find((e) => e.kind === 'undo' && !e.undone)?.undoable ?? false;
  return (
    <div className="sheet-backdrop" onClick={close}>
      <div className="sheet history-panel" role="dialog" aria-modal="true" aria-labelledby="history-title" onClick={(e) => e.stopPropagation()}>
        <header className="sheet-header">
          <h2 id="history-title">History</h2>
          <p className="muted small mono">{history.project}</p>
        </header>
        <div className="sheet-body">
          {history.done && (
            <p role="status" className="small">
              {history.done}
            </p>
          )}
          {err && (
            <p className="error-text" role="alert">
              {err.text}
            </p>
          )}
          {history.loading && <p className="muted">Reading the journal…</p>}
          {!history.loading && history.entries.length === 0 && <p className="muted">Nothing was done in this project yet.</p>}
          <ol className="history-list" aria-label="Operations, newest first">
            {history.entries.map((e) => {
              const of = e.refers ? (byId.get(e.refers) ?? null) : null;
              const label = e.kind === 'undo' ? 'Redo' : 'Undo';
              return (
                <li key={e.id} className="history-entry" data-kind={e.kind} data-undoable={e.undoable ? 'true' : 'false'} aria-label={historyTitle({ ...e, of })}>
                  <div className="history-head">
                    <strong>{historyTitle({ ...e, of })}</strong>{' '}
                    <span className="muted small">
                      <When iso={e.time} now={now} />
                      {e.agent && ` · ${e.agent}`}
                      {e.sessionId && ` · session ${e.sessionId.slice(0, 8)}`}
                    </span>
                  </div>
                  {e.files.length > 0 && <p className="small mono history-files">{e.files.slice(0, 6).join(', ')}{e.files.length > 6 ? ` and ${e.files.length - 6} more` : ''}</p>}
                  {e.dropped && <p className="small muted">{e.dropped}</p>}
                  <p className="small history-status">{undoableText(e)}</p>
                  <button type="button" className="button small" disabled={!e.undoable || !!history.busy} onClick={() => void undoEntry(e.id)}>
                    {history.busy === e.id ? 'Working…' : label}
                  </button>
                </li>
              );
            })}
          </ol>
        </div>
        <footer className="sheet-footer">
          <button type="button" className="button" disabled={!canRedo || !!history.busy} title="Put back the newest undone action" onClick={() => void redo()}>
            Redo
          </button>
          <button type="button" className="button" autoFocus onClick={close}>
            Close
          </button>
        </footer>
      </div>
    </div>
  );
}
