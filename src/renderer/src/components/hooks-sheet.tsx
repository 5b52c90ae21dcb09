import { createTwoFilesPatch } from 'diff';
import { useEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { ResponseOf } from '../../../shared/contract.js';
import { plural } from '../../../shared/wording.js';
import { getApi } from '../api/client.js';
import { projectPath } from '../format.js';
import { useStore } from '../store/store.js';
import { useBackdropClose } from './backdrop.js';
import { DiffView } from './diff-view.js';
import { missingHooks } from './hooks-banner.js';
import { CopyButton } from './result-bar.js';
import './preview-sheet.css';

type Change = ResponseOf<'installHooks'>;
type Planned = { change: Change | null; error: string | null };
type Done = { agent: string; displayName: string; change: Change | null; error: string | null; removed: Change | null };


/** The config change as a unified diff of its text (empty: nothing changes). */
function patchOf(file: string, c: Change): string {
  const before = c.before ?? '';
  const after = c.after ?? '';
  return before === after ? '' : createTwoFilesPatch(file, file, before, after, '', '', { context: 3 });
}

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';
function trapTab(e: ReactKeyboardEvent<HTMLDivElement>) {
  if (e.key !== 'Tab') return;
  const items = [...e.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)];
  if (!items.length) return;
  const [first, last] = [items[0]!, items[items.length - 1]!];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

/**
 * "Set up checkpoints": pick the agents, see each settings file's change as a diff (a dry run of the
 * same install), confirm; then every file written, with how to take it out again (Remove here, or
 * `rewind-app hooks uninstall --agent <id>` from a terminal).
 */
export function HooksSheet() {
  const open = useStore((s) => s.hooksSheetOpen);
  const hooks = useStore((s) => s.hooks);
  const setOpen = useStore((s) => s.setHooksSheetOpen);
  const loadHooks = useStore((s) => s.loadHooks);
  const missing = hooks ? missingHooks(hooks) : [];
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [planned, setPlanned] = useState<Record<string, Planned>>({});
  const [done, setDone] = useState<Done[] | null>(null);
  const [busy, setBusy] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  const project = hooks?.projectRoot ?? '';
  const close = () => {
    setOpen(false);
    if (done) void loadHooks();
  };
  const backdrop = useBackdropClose(close);

  // Opening: every agent without hooks picked, each one's change planned (a dry run), focus on Cancel.
  useEffect(() => {
    if (!open) {
      if (opener.current?.isConnected) opener.current.focus();
      opener.current = null;
      return;
    }
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const ids = missing.map((a) => a.agent);
    setPicked(new Set(ids));
    setDone(null);
    setPlanned({});
    cancel.current?.focus();
    let live = true;
    for (const id of ids) {
      void getApi()
        .installHooks(id ? { project, agent: id, dryRun: true } : { project, scope: 'local', dryRun: true })
        .then((r) => live && setPlanned((p) => ({ ...p, [id]: r.ok ? { change: r.value, error: null } : { change: null, error: r.error.message } })));
    }
    return () => {
      live = false;
    };
  }, [open]);
  useEffect(() => {
    if (done) closeButton.current?.focus();
  }, [done]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        close();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  });
  if (!open || !hooks) return null;

  const chosen = missing.filter((a) => picked.has(a.agent));
  const install = async () => {
    setBusy(true);
    const out: Done[] = [];
    for (const a of chosen) {
      const r = await getApi().installHooks(a.agent ? { project, agent: a.agent } : { project, scope: 'local' });
      out.push({ agent: a.agent, displayName: a.displayName || 'this agent', change: r.ok ? r.value : null, error: r.ok ? null : r.error.message, removed: null });
    }
    setBusy(false);
    setDone(out);
    void loadHooks();
  };
  const remove = async (i: number) => {
    const d = done![i]!;
    setBusy(true);
    const r = await getApi().uninstallHooks({ project, agent: d.agent });
    setBusy(false);
    setDone((all) => all!.map((x, j) => (j === i ? { ...x, removed: r.ok ? r.value : null, error: r.ok ? null : r.error.message } : x)));
    void loadHooks();
  };
  const written = done?.filter((d) => d.change && !d.removed) ?? [];

  return (
    <div className="sheet-backdrop" {...backdrop}>
      <div className="sheet hooks-sheet" role="dialog" aria-modal="true" aria-labelledby="hooks-title" onClick={(e) => e.stopPropagation()} onKeyDown={trapTab}>
        <header className="sheet-header">
          <h2 id="hooks-title">{done ? 'Checkpoints set up' : 'Set up checkpoints'}</h2>
          <p className="muted small">
            {done
              ? 'Rewind now checkpoints the whole project before every prompt of these agents, shell-made changes included.'
              : "Rewind's hooks checkpoint the whole project before every prompt, so shell-made changes can be restored too. Nothing is written until you confirm."}
          </p>
        </header>
        <div className="sheet-body">
          {!done && (
            <>
              <fieldset className="hooks-agents">
                <legend className="small muted">Agents with sessions in {project}</legend>
                {missing.map((a) => (
                  <label key={a.agent || 'default'} className="hooks-agent">
                    <input
                      type="checkbox"
                      checked={picked.has(a.agent)}
                      onChange={(e) =>
                        setPicked((p) => {
                          const n = new Set(p);
                          if (e.target.checked) n.add(a.agent);
                          else n.delete(a.agent);
                          return n;
                        })
                      }
                    />{' '}
                    {a.displayName || 'This session’s agent'}
                  </label>
                ))}
              </fieldset>
              {chosen.map((a) => {
                const p = planned[a.agent];
                const file = projectPath(project, p?.change?.file ?? a.file);
                const patch = p?.change ? patchOf(file, p.change) : '';
                return (
                  <section key={a.agent || 'default'} className="hooks-plan" aria-label={`Change for ${a.displayName || 'this agent'}`}>
                    <h3>
                      {a.displayName || 'This agent'}: <span className="mono">{file}</span>
                      {p?.change && <span className="muted"> {p.change.before == null ? '(new file)' : '(your entries are kept)'}</span>}
                    </h3>
                    {!p && <p className="muted" aria-busy="true">Working out the change…</p>}
                    {p?.error && <p className="error-text">{p.error}</p>}
                    {p?.change && (patch ? <DiffView path={file} patch={patch} /> : <p className="muted">{p.change.lines.join('; ')}</p>)}
                    {p?.change?.nextStep && <p className="small">Then: {p.change.nextStep}</p>}
                  </section>
                );
              })}
            </>
          )}
          {done && (
            <ul className="hooks-done" aria-label="Files written">
              {done.map((d, i) => (
                <li key={d.agent || 'default'}>
                  {d.error && <p className="error-text">{d.displayName}: {d.error}</p>}
                  {d.change && !d.removed && (
                    <>
                      <p>
                        {d.change.changed ? 'Wrote' : 'Already set in'} <span className="mono">{projectPath(project, d.change.file)}</span> for {d.displayName}
                        {d.change.backup ? (
                          <span className="muted small">
                            {' '}
                            (what it held before: <span className="mono">{projectPath(project, d.change.backup)}</span>)
                          </span>
                        ) : null}
                        .
                      </p>
                      {d.change.nextStep && <p className="small">Still to do: {d.change.nextStep}</p>}
                      <p className="small muted hooks-remove">
                        To take it out: <code className="mono">rewind-app hooks uninstall --agent {d.agent}</code>
                        <CopyButton text={`rewind-app hooks uninstall --agent ${d.agent}`} label={`Copy the command that removes ${d.displayName}'s hooks`} />
                        {d.agent && (
                          <button type="button" className="button small" disabled={busy} onClick={() => void remove(i)}>
                            Remove
                          </button>
                        )}
                      </p>
                    </>
                  )}
                  {d.removed && (
                    <p>
                      Removed Rewind's hooks from <span className="mono">{projectPath(project, d.removed.file)}</span> for {d.displayName}
                      {d.removed.after == null ? ' (the file held nothing else and is gone)' : ''}.
                    </p>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>
        <footer className="sheet-footer">
          {done ? (
            <button ref={closeButton} type="button" className="button primary" onClick={close}>
              {written.length ? 'Done' : 'Close'}
            </button>
          ) : (
            <>
              <button ref={cancel} type="button" className="button" onClick={close}>
                Cancel
              </button>
              <button type="button" className="button primary" disabled={busy || chosen.length === 0 || chosen.some((a) => !planned[a.agent]?.change)} onClick={() => void install()}>
                {chosen.length === 1 ? `Install hooks for ${chosen[0]!.displayName || 'this agent'}` : `Install hooks for ${plural(chosen.length, 'agent')}`}
              </button>
            </>
          )}
        </footer>
      </div>
    </div>
  );
}
