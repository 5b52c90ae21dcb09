import type { CodePlan, RevertPlan } from '../../../shared/contract.js';
import { plural, TAKE_LABEL, windowError } from '../../../shared/wording.js';
import { firstLine } from '../format.js';
import { ThreeWayView } from './three-way-view.js';
import type { Take } from '../store/history-slice.js';
import { useStore } from '../store/store.js';
import { CodeChanges } from './code-changes.js';
import './preview-sheet.css';
import './history.css';

const TAKES: Take[] = ['current', 'before', 'markers'];

/** The three choices in the columns' words (the CLI's are TAKE_LABEL): now, before #n, or all three in the file. */
function takeLabel(t: Take, n: string): string {
  if (t === 'current') return 'Keep it as it is now';
  if (t === 'before') return `Take it as before ${n}`;
  return `${TAKE_LABEL.markers} (the three versions in the file, to edit)`;
}

/** A conflicted file: its three versions (before the prompt, as the prompt left it, now), and the three choices (nothing is picked for the user). */
function Conflict({ c, n, text }: { c: RevertPlan['conflicts'][number]; n: string; text: string }) {
  const choose = useStore((s) => s.chooseTake);
  const busy = useStore((s) => !!s.revert?.loading || !!s.revert?.applying);
  return (
    <li className="revert-conflict" aria-label={`Conflict in ${c.path}`}>
      <p>
        <strong className="mono">{c.path}</strong> <span className="muted">— {c.reason}</span>
      </p>
      {c.binary ? (
        <p className="small muted">A binary file: keep it as it is, or take it as it was before the prompt.</p>
      ) : (
        <ThreeWayView path={c.path} before={c.before} after={c.after ?? null} now={c.current} n={n} prompt={text} />
      )}
      <div role="radiogroup" aria-label={`Choice for ${c.path}`} className="revert-takes">
        {TAKES.map((t) => (
          <label key={t} className="small">
            <input type="radio" name={`take-${c.path}`} checked={c.choice === t} disabled={busy || (t === 'markers' && !c.canMark)} onChange={() => void choose(c.path, t)} /> {takeLabel(t, n)}
          </label>
        ))}
      </div>
    </li>
  );
}

/** "Revert this prompt's changes": what would change, each conflict with its choice, then one confirm. */
export function RevertSheet() {
  const revert = useStore((s) => s.revert);
  const close = useStore((s) => s.closeRevert);
  const confirm = useStore((s) => s.confirmRevert);
  const prompt = useStore((s) => s.timeline?.prompts.find((p) => p.uuid === s.revert?.promptUuid) ?? null);
  if (!revert) return null;
  // The prompt by its number and words, never by an id.
  const n = prompt?.number ? `#${prompt.number}` : prompt ? 'the abandoned prompt' : 'the prompt';
  const who = prompt ? `${n} “${firstLine(prompt.text, 40)}”` : 'the prompt';
  const plan = revert.plan;
  const err = revert.error ? windowError(revert.error.code, revert.error.message, 'Revert') : null;
  const unresolved = plan?.unresolved.length ?? 0;
  const asCode: CodePlan | null = plan ? { source: 'rewind', agent: null, checkpointId: plan.checkpointId, note: plan.afterNote, projectRoot: plan.projectRoot, changes: plan.changes, unchanged: 0, untouched: [], skipped: [], conflicts: 0 } : null;
  return (
    <div className="sheet-backdrop" onClick={close}>
      <div className="sheet" role="dialog" aria-modal="true" aria-labelledby="revert-title" onClick={(e) => e.stopPropagation()}>
        <header className="sheet-header">
          <h2 id="revert-title">Revert this prompt's changes</h2>
          <p className="muted small">
            {prompt?.number ? `#${prompt.number} ` : ''}
            {prompt?.text.slice(0, 120)} — later prompts' changes stay. Nothing changes until you confirm.
          </p>
        </header>
        <div className="sheet-body">
          {revert.loading && !plan && <p className="muted" aria-busy="true">Working out what would change…</p>}
          {err && (
            <div className="sheet-error" role="alert">
              <p className="error-text">{err.text}</p>
              {err.actions
                .filter((a) => a.action === 'force' && revert.error?.code !== 'CONFLICT')
                .map((a) => (
                  <button key={a.action} type="button" className="button small danger" onClick={() => void confirm(true)}>
                    {a.label}
                  </button>
                ))}
            </div>
          )}
          {plan && (
            <>
              <details className="small muted sheet-details">
                <summary>Where the versions come from</summary>
                {/* In words: the checkpoints' ids are the CLI's (`rewind-app revert --dry-run`). */}
                <p>
                  {plan.afterCheckpointId
                    ? `What ${n} changed is the difference between Rewind's checkpoint taken just before it and the one taken before the next prompt; "now" is the project folder as it is.`
                    : `${n[0]!.toUpperCase()}${n.slice(1)} is the last prompt with a checkpoint: what it changed is taken as everything changed since the checkpoint before it, up to now.`}
                </p>
              </details>
              {plan.conflicts.length > 0 && (
                <section aria-label="Conflicts">
                  <h3>{plural(plan.conflicts.length, 'conflict')}</h3>
                  <p className="warning" role="note">
                    Later changes overlap this prompt's in {plural(plan.conflicts.length, 'file')}. Choose for each: nothing is reverted until every one has a choice.
                  </p>
                  <ul className="revert-conflicts">
                    {plan.conflicts.map((c) => (
                      <Conflict key={c.path} c={c} n={n} text={prompt ? firstLine(prompt.text, 60) : ''} />
                    ))}
                  </ul>
                </section>
              )}
              <section aria-label="Code">
                <h3>Files that change</h3>
                {plan.changes.length === 0 ? (
                  <p className="muted">{plan.conflicts.length ? `The choices above decide: no other file of ${who} changes.` : `Nothing to revert: the files are as they were before ${who}.`}</p>
                ) : (
                  <CodeChanges plan={asCode!} />
                )}
              </section>
            </>
          )}
        </div>
        <footer className="sheet-footer">
          <button type="button" className="button" autoFocus onClick={close}>
            Cancel
          </button>
          <button
            type="button"
            className="button primary danger"
            disabled={!plan || revert.loading || revert.applying || unresolved > 0 || plan.changes.length === 0}
            title={unresolved > 0 ? `Choose for ${plural(unresolved, 'conflicted file')} first` : undefined}
            onClick={() => void confirm(false)}
          >
            {revert.applying ? 'Working…' : unresolved > 0 ? `Choose for ${plural(unresolved, 'conflicted file')} first` : `Revert ${plural(plan?.changes.length ?? 0, 'file')}`}
          </button>
        </footer>
      </div>
    </div>
  );
}
