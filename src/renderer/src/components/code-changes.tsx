import { useMemo, useRef, useState } from 'react';
import type { CodePlan } from '../../../shared/contract.js';
import { plural, untouchedSentence } from '../../../shared/wording.js';
import { entryOf, initiallyOpen, type FileEntry } from '../code/file-entry.js';
import type { ParsedPatch } from '../code/patch.js';
import { DiffView, type DiffLayout } from './diff-view.js';
import '../code-view.css';

type Change = CodePlan['changes'][number];

const BADGE = { create: 'A', modify: 'M', delete: 'D', unchanged: '' } as const;
const BADGE_TITLE = { create: 'Added by the restore', modify: 'Modified by the restore', delete: 'Deleted by the restore', unchanged: '' } as const;

function Counts({ parsed }: { parsed: ParsedPatch }) {
  return (
    <span className="counts mono" aria-label={`${plural(parsed.added, 'line')} added, ${plural(parsed.removed, 'line')} removed`}>
      <span className="plus">+{parsed.added}</span> <span className="minus">−{parsed.removed}</span>
    </span>
  );
}

function Badge({ action }: { action: Change['action'] }) {
  return (
    <span className={`fbadge ${action}`} title={BADGE_TITLE[action]} aria-label={BADGE_TITLE[action]}>
      {BADGE[action]}
    </span>
  );
}

function FileSection({ entry, open, onToggle, layout, sectionRef }: { entry: FileEntry; open: boolean; onToggle: () => void; layout: DiffLayout; sectionRef: (el: HTMLElement | null) => void }) {
  const { change: c, parsed, summary, large } = entry;
  const [showLarge, setShowLarge] = useState(false);
  const drawable = !!parsed && (!large || showLarge);
  return (
    <section className="file-diff" ref={sectionRef} aria-label={c.path}>
      <button type="button" className="file-head" aria-expanded={open} onClick={onToggle}>
        <span className="caret" aria-hidden>
          {open ? '▾' : '▸'}
        </span>
        <Badge action={c.action} />
        <span className="mono path">{c.path}</span>
        {parsed && <Counts parsed={parsed} />}
        {c.conflict && (
          <span className="conflict" title={c.conflict}>
            changed by hand
          </span>
        )}
      </button>
      {open &&
        (drawable ? (
          <DiffView path={c.path} parsed={parsed} layout={c.action === 'modify' ? layout : 'unified'} />
        ) : (
          <p className="file-summary small muted">
            {summary}
            {large && parsed && (
              <>
                {' '}
                <button type="button" className="link-button" onClick={() => setShowLarge(true)}>
                  Show the diff
                </button>
              </>
            )}
          </p>
        ))}
    </section>
  );
}

/**
 * What a code restore changes, current → restored: the files with their A/M/D badge and +/-
 * counts, then every file's hunks stacked under its header (collapsible); binary, large and
 * not-yet-diffed files are summarized in words.
 */
export function CodeChanges({ plan }: { plan: CodePlan }) {
  const entries = useMemo(() => plan.changes.map(entryOf), [plan.changes]);
  const [layout, setLayout] = useState<DiffLayout>('unified');
  const [open, setOpen] = useState<Record<string, boolean>>(() => initiallyOpen(entries));
  const sections = useRef(new Map<string, HTMLElement>());
  const totals = entries.reduce((t, e) => ({ added: t.added + (e.parsed?.added ?? 0), removed: t.removed + (e.parsed?.removed ?? 0) }), { added: 0, removed: 0 });
  const anyModified = entries.some((e) => e.change.action === 'modify' && e.parsed);
  const allOpen = entries.every((e) => open[e.change.path]);
  const jumpTo = (path: string) => {
    setOpen((o) => ({ ...o, [path]: true }));
    requestAnimationFrame(() => sections.current.get(path)?.scrollIntoView({ block: 'start', behavior: 'smooth' }));
  };
  return (
    <div className={`code-changes ${layout}`}>
      {entries.length > 0 && (
        <>
          <div className="code-toolbar">
            <span className="direction" title="Each diff goes from the files as they are now to the files as the restore leaves them">
              <b>current</b> → <b>restored</b>
            </span>
            <span className="small">
              {plural(entries.length, 'file')} · <span className="plus">+{totals.added}</span> <span className="minus">−{totals.removed}</span>
            </span>
            <span className="spacer" />
            {anyModified && (
              <div className="segmented" role="group" aria-label="Diff layout">
                <button type="button" aria-pressed={layout === 'unified'} onClick={() => setLayout('unified')}>
                  Unified
                </button>
                <button type="button" aria-pressed={layout === 'split'} onClick={() => setLayout('split')}>
                  Side by side
                </button>
              </div>
            )}
            <button type="button" className="link-button" onClick={() => setOpen(Object.fromEntries(entries.map((e) => [e.change.path, !allOpen])))}>
              {allOpen ? 'Collapse all' : 'Expand all'}
            </button>
          </div>
          <ul className="file-list" aria-label="Files that will change">
            {entries.map((e) => (
              <li key={e.change.path}>
                <button type="button" className="file" onClick={() => jumpTo(e.change.path)}>
                  <Badge action={e.change.action} />
                  <span className="mono path">{e.change.path}</span>
                  {e.parsed && !e.large ? <Counts parsed={e.parsed} /> : <span className="muted small">{e.summary}</span>}
                  {e.change.conflict && (
                    <span className="conflict" title={e.change.conflict}>
                      changed by hand
                    </span>
                  )}
                </button>
              </li>
            ))}
          </ul>
          {entries.map((e) => (
            <FileSection
              key={e.change.path}
              entry={e}
              layout={layout}
              open={!!open[e.change.path]}
              onToggle={() => setOpen((o) => ({ ...o, [e.change.path]: !o[e.change.path] }))}
              sectionRef={(el) => (el ? sections.current.set(e.change.path, el) : sections.current.delete(e.change.path))}
            />
          ))}
        </>
      )}
      {plan.untouched.length > 0 && <p className="small muted untouched">{untouchedSentence(plan.untouched)}</p>}
      {plan.skipped.length > 0 && <p className="small muted">Too large to be in the checkpoint, left as {plan.skipped.length === 1 ? 'it is' : 'they are'}: {plan.skipped.map((s) => s.path).join(', ')}</p>}
    </div>
  );
}
