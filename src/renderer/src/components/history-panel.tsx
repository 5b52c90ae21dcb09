import { useEffect, useMemo, useRef, useState } from 'react';
import { getApi } from '../api/client.js';
import { plainSentence, undoableText } from '../../../shared/wording.js';
import { projectPath } from '../format.js';
import { actionWords, historyCards, promptLookup, type HistoryCard, type PromptLookup } from '../history-words.js';
import { useStore } from '../store/store.js';
import { useNow } from './use-now.js';
import { When } from './when.js';
import './preview-sheet.css';
import './history.css';

/** What became of an action: "undone 3 min ago", "redone 1 min ago", or nothing. */
function State({ card, now }: { card: HistoryCard; now: number }) {
  const last = card.chain[0];
  if (!last) return null;
  return (
    <span className="history-state">
      {' · '}
      {card.undone ? 'undone' : 'redone'} <When iso={last.time} now={now} />
    </span>
  );
}

/** Every fork, rewrite, restore and revert of the project, newest first, each with what became of it; undoing one out of order previews first. */
export function HistoryPanel() {
  const history = useStore((s) => s.history);
  const close = useStore((s) => s.closeHistory);
  const undoEntry = useStore((s) => s.undoEntry);
  const askUndo = useStore((s) => s.askUndo);
  const redo = useStore((s) => s.redo);
  const timeline = useStore((s) => s.timeline);
  const sessions = useStore((s) => s.sessions);
  const now = useNow();
  const look = useMemo(() => promptLookup(timeline), [timeline]);
  const cards = useMemo(() => historyCards(history?.entries ?? []), [history?.entries]);
  // The prompts of the other sessions the actions were about (a fork's original): read once, for their #n and text.
  const [others, setOthers] = useState<Record<string, PromptLookup>>({});
  const asked = useRef(new Set<string>());
  useEffect(() => {
    for (const c of cards) {
      const { transcript } = c.entry;
      if (!transcript || transcript === look.transcript || asked.current.has(transcript) || asked.current.size >= 8) continue;
      asked.current.add(transcript);
      void getApi()
        .getTimeline({ session: transcript })
        .then((r) => r.ok && setOthers((o) => ({ ...o, [transcript]: promptLookup(r.value) })));
    }
  }, [cards, look.transcript]);
  if (!history) return null;
  const titleOf = (id: string | null) => (id ? sessions.find((x) => x.id === id)?.title : undefined);
  // The engine names the path that changed: said as it is, without the terminal's flags.
  const err = history.error ? { text: `Nothing was changed. ${plainSentence(history.error.message)}` } : null;
  return (
    <div className="sheet-backdrop" onClick={close}>
      <div className="sheet history-panel" role="dialog" aria-modal="true" aria-labelledby="history-title" onClick={(e) => e.stopPropagation()}>
        <header className="sheet-header">
          <h2 id="history-title">History</h2>
          <p className="muted small">
            What Rewind did in <span className="mono">{history.project.split(/[\\/]/).filter(Boolean).pop()}</span>, newest first. Undo takes one back; Redo puts the last one undone back.
          </p>
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
          {!history.loading && cards.length === 0 && <p className="muted">Nothing was done in this project yet.</p>}
          <ol className="history-list" aria-label="Actions, newest first">
            {cards.map((card) => {
              const e = card.entry;
              const words = actionWords(e, (e.transcript && others[e.transcript]) || look);
              const session = titleOf(e.sessionId);
              const mismatch = !card.undone && !e.undoable && !!e.why && !/^already /.test(e.why);
              return (
                <li key={e.id} className="history-entry" data-kind={e.kind} data-state={card.undone ? 'undone' : 'done'} data-undoable={e.undoable ? 'true' : 'false'} aria-label={words}>
                  <div className="history-head">
                    <strong>{words}</strong>{' '}
                    <span className="muted small">
                      <When iso={e.time} now={now} />
                      <State card={card} now={now} />
                      {session && ` · in “${session}”`}
                    </span>
                  </div>
                  <p className="small muted">
                    {e.kind === 'fork'
                      ? 'A new session; the original stays as it was.'
                      : e.kind === 'in-place'
                        ? 'The session itself was rewritten (a backup is kept).'
                        : e.files.length
                          ? `${e.files.length} file${e.files.length === 1 ? '' : 's'} changed: ${e.files.slice(0, 3).join(', ')}${e.files.length > 3 ? ` and ${e.files.length - 3} more` : ''}`
                          : 'No file changed.'}
                  </p>
                  <div className="history-row">
                    <span className="small history-status">{card.undone ? (card.redoable ? 'can be redone' : 'undone') : undoableText(e)}</span>
                    {card.undone ? (
                      <button type="button" className="button small" disabled={!card.redoable?.undoable || !!history.busy} title="Put this action back" onClick={() => void redo()}>
                        {history.busy === 'redo' ? 'Working…' : 'Redo'}
                      </button>
                    ) : mismatch ? (
                      <button type="button" className="button small danger-outline" disabled={!!history.busy} title="Shows what it would replace first" onClick={() => void askUndo('undo', { id: e.id, what: words })}>
                        Undo anyway…
                      </button>
                    ) : (
                      <button
                        type="button"
                        className="button small"
                        disabled={!e.undoable || !!history.busy}
                        title={card.newest ? 'Take back this action' : 'Later actions stay: shows what it would do first'}
                        onClick={() => void (card.newest ? undoEntry(e.id) : askUndo('undo', { id: e.id, what: words }))}
                      >
                        {history.busy === e.id ? 'Working…' : card.newest ? 'Undo' : 'Undo…'}
                      </button>
                    )}
                  </div>
                  <details className="small muted history-more">
                    <summary>Paths and ids</summary>
                    <dl>
                      {e.sessionId && (
                        <>
                          <dt>Session</dt>
                          <dd className="mono">{e.sessionId}</dd>
                        </>
                      )}
                      {e.prompt && (
                        <>
                          <dt>Prompt</dt>
                          <dd className="mono">{e.prompt}</dd>
                        </>
                      )}
                      {e.files.length > 0 && (
                        <>
                          <dt>Files</dt>
                          <dd className="mono">{e.files.map((f) => projectPath(history.project, f)).join('\n')}</dd>
                        </>
                      )}
                      {e.dropped && (
                        <>
                          <dt>Prompts</dt>
                          <dd>{e.dropped}</dd>
                        </>
                      )}
                      {!e.undoable && e.why && (
                        <>
                          <dt>Why not</dt>
                          <dd>{e.why}</dd>
                        </>
                      )}
                      <dt>Entry</dt>
                      <dd className="mono">{e.id}</dd>
                      {card.chain.map((c) => (
                        <div key={c.id} className="history-chain">
                          <dt>{c.kind === 'undo' ? 'Undone' : 'Redone'}</dt>
                          <dd>
                            <When iso={c.time} now={now} /> <span className="mono">{c.id}</span>
                          </dd>
                        </div>
                      ))}
                    </dl>
                  </details>
                </li>
              );
            })}
          </ol>
        </div>
        <footer className="sheet-footer">
          <button type="button" className="button" autoFocus onClick={close}>
            Close
          </button>
        </footer>
      </div>
    </div>
  );
}
