import { useEffect, useRef } from 'react';
import type { CodePlan } from '../../../shared/contract.js';
import { firstLine, plural } from '../format.js';
import { ACTION_LABEL } from '../store/action-slice.js';
import { useStore } from '../store/store.js';
import { CodeChanges } from './code-changes.js';
import { isDestructive } from '../destructive.js';

function CodePart({ plan, note }: { plan: CodePlan | null; note: string | null }) {
  if (!plan) return <p className="muted">{note ?? 'No code change.'}</p>;
  return (
    <div className="code-part">
      <p className="small muted">{plan.note}</p>
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

/** Exactly what will change, before anything does: the chat part and the code part. */
export function PreviewSheet() {
  const preview = useStore((s) => s.preview);
  const close = useStore((s) => s.closePreview);
  const confirm = useStore((s) => s.confirm);
  const primary = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (preview && !preview.loading) primary.current?.focus();
  }, [preview?.loading, preview]);
  if (!preview) return null;
  const r = preview.rewind;
  const code = r ? r.code : preview.restore;
  const conflicts = code?.conflicts ?? 0;
  const warnings = r?.chat.warnings ?? [];
  const force = conflicts > 0 || warnings.length > 0;
  const title = ACTION_LABEL[preview.action];
  let button = title;
  if (r) {
    const n = r.chat.prompts.length;
    button = preview.action === 'rewrite' ? `Rewrite: drop ${plural(n, 'prompt')}` : `Fork before this prompt`;
    if (r.code) button += ` and restore ${plural(r.code.changes.length, 'file')}`;
  } else if (preview.restore) button = `Restore ${plural(preview.restore.changes.length, 'file')}`;
  if (force) button += ' anyway';
  return (
    <div className="sheet-backdrop" onClick={close}>
      <div className="sheet" role="dialog" aria-modal="true" aria-labelledby="sheet-title" onClick={(e) => e.stopPropagation()}>
        <header className="sheet-header">
          <h2 id="sheet-title">{title}</h2>
          <p className="muted small">Nothing changes until you confirm.</p>
        </header>
        <div className="sheet-body">
          {preview.loading && <p className="muted" aria-busy="true">Working out what would change…</p>}
          {preview.error && (
            <p className="error-text" role="alert">
              {preview.error}
            </p>
          )}
          {warnings.map((w) => (
            <p key={w} className="warning" role="alert">
              Careful: {w}. If it is, stop it first; its next write would land in the replaced file.
            </p>
          ))}
          {r && (
            <section aria-label="Chat">
              <h3>Chat</h3>
              <p>
                {preview.action === 'rewrite' ? 'Dropped from this session' : 'Left out of the new session'}: {plural(r.chat.prompts.length, 'prompt')}
                {r.chat.droppedMessages > 0 && `, and ${plural(r.chat.droppedMessages, 'message')} of an abandoned branch (so the session resumes where you expect)`}.
              </p>
              <ol className="dropped">
                {r.chat.prompts.slice(0, 8).map((p) => (
                  <li key={p.uuid}>{firstLine(p.text, 120)}</li>
                ))}
                {r.chat.prompts.length > 8 && <li className="muted">… and {r.chat.prompts.length - 8} more</li>}
              </ol>
              <p className="small muted">
                Cut at byte {r.chat.boundaryOffset.toLocaleString()} of <span className="mono">{r.chat.transcript.split('/').pop()}</span>
                {r.chat.backupPath && (
                  <>
                    {' '}
                    · backup first to <span className="mono">{r.chat.backupPath}</span>
                  </>
                )}
              </p>
            </section>
          )}
          {(preview.action === 'restore' || preview.action === 'fork-restore') && !preview.loading && (
            <section aria-label="Code">
              <h3>Code</h3>
              <CodePart plan={code} note={r?.codeNote ?? null} />
            </section>
          )}
        </div>
        <footer className="sheet-footer">
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button
            type="button"
            ref={primary}
            className={`button primary${isDestructive({ action: preview.action, code, force }) ? ' danger' : ''}`}
            disabled={preview.loading || preview.applying || (!r && !preview.restore)}
            onClick={() => void confirm(force)}
          >
            {preview.applying ? 'Working…' : button}
          </button>
        </footer>
      </div>
    </div>
  );
}
