import { useEffect, useMemo, useRef, useState } from 'react';
import { useBackdropClose } from './backdrop.js';
import { firstLine } from '../format.js';
import { ACTION_KEY } from '../shortcuts.js';
import { ACTION_LABEL, type Action } from '../store/action-slice.js';
import { useStore } from '../store/store.js';
import { Highlight } from './highlight.js';
import { focusTimeline } from '../keyboard.js';
import '../wingraph.css';

type Group = 'Actions' | 'Commands' | 'Prompts' | 'Sessions';
interface Item {
  id: string;
  group: Group;
  label: string;
  hint?: string;
  /** More words it is found by (a session: its project's folder and name). */
  also?: string;
  run: () => void;
}

const LIMIT = 60;

/** The shown items by group, in the order they come (one header each), with their index in the list. */
function groupsOf(shown: Item[]): { group: Group; items: { it: Item; i: number }[] }[] {
  const out: { group: Group; items: { it: Item; i: number }[] }[] = [];
  shown.forEach((it, i) => {
    const last = out[out.length - 1];
    if (last && last.group === it.group) last.items.push({ it, i });
    else out.push({ group: it.group, items: [{ it, i }] });
  });
  return out;
}

/** Every command of the window that is not a timeline move: what the header, the details pane, the result bar and the sidebar offer. */
function windowCommands(): Item[] {
  const st = useStore.getState;
  const s = st();
  const items: Item[] = [];
  const cmd = (id: string, label: string, run: () => void, hint?: string, also?: string) => items.push({ id: `cmd:${id}`, group: 'Commands', label, run, hint, also });
  const sel = s.selectedPrompt && s.timeline?.prompts.find((p) => p.uuid === s.selectedPrompt);
  const cwd = s.timeline?.session.cwd ?? null;
  if (cwd) cmd('history', 'History: every fork, rewrite, restore, revert and undo here', () => void st().openHistory(), 'H');
  if (cwd || s.result) {
    cmd('undo', 'Undo the last action', () => void st().askUndo('undo'), 'Ctrl+Z');
    cmd('redo', 'Redo the last undone action', () => void st().askUndo('redo'), 'Shift+Ctrl+Z');
  }
  if (sel) {
    const label = `${sel.number ? `#${sel.number}` : 'the abandoned prompt'} “${firstLine(sel.text, 40)}”`;
    if (sel.checkpoint && cwd) cmd('revert', "Revert this prompt's changes (later prompts' stay)", () => void st().openRevert(sel.uuid));
    else cmd('revert', "Revert this prompt's changes: needs a Rewind checkpoint before it (set up checkpoints)", () => undefined);
    cmd('compare', 'Compare with… (pick another prompt)', () => st().startCompare(sel.uuid, label));
    cmd('export-md', 'Export branch (.md)', () => void st().exportSession('md', sel.uuid), undefined, 'markdown save');
  }
  if (s.timeline) {
    cmd('export-html', 'Export session (.html)', () => void st().exportSession('html'), undefined, 'save');
    cmd('legend', 'Legend: what the marks mean', () => {
      const d = document.querySelector<HTMLDetailsElement>('details.legend');
      if (!d) return;
      d.open = true;
      d.querySelector('summary')?.focus();
    });
  }
  const hooks = s.hooks;
  if (hooks?.projectExists && (hooks.agents.some((a) => !a.installed) || (!hooks.agents.length && !hooks.scopes.some((x) => x.events.length)))) cmd('hooks', 'Set up checkpoints (install hooks)…', () => st().setHooksSheetOpen(true), undefined, 'hooks');
  cmd('remote', 'Add a remote host…', () => {
    if (document.querySelector('.app.narrow')) st().setSidebarOpen(true);
    requestAnimationFrame(() => {
      document.querySelector<HTMLButtonElement>('.add-host')?.click();
      requestAnimationFrame(() => document.querySelector<HTMLInputElement>('.add-host-form input')?.focus());
    });
  }, undefined, 'ssh');
  return items;
}

/** Ctrl/Cmd-K: every session, every prompt of the open session and every action, by typing. */
export function Palette() {
  const initial = useStore((s) => s.palette);
  if (initial === null) return null;
  return <PaletteDialog initial={initial} />;
}

function PaletteDialog({ initial }: { initial: string }) {
  const close = useStore((s) => s.closePalette);
  const backdrop = useBackdropClose(close);
  const sessions = useStore((s) => s.sessions);
  const timeline = useStore((s) => s.timeline);
  const selected = useStore((s) => s.selectedPrompt);
  const [query, setQuery] = useState(initial);
  const [cursor, setCursor] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // Closed with nothing run (Esc, a click outside): the focus goes back where it was.
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    input.current?.focus();
    // What was typed before the box was there (see keyboard.ts typeAhead): go on after it.
    const end = input.current?.value.length ?? 0;
    input.current?.setSelectionRange(end, end);
    return () => {
      const now = document.activeElement;
      if (before?.isConnected && (!now || now === document.body || now === input.current)) before.focus({ preventScroll: true });
    };
  }, []);

  const all = useMemo(() => {
    const st = useStore.getState;
    const items: Item[] = [];
    const goto = /^#?\s*(\d+)$/.exec(query.trim());
    if (goto && timeline) {
      const n = Number(goto[1]);
      const p = timeline.prompts.find((x) => x.number === n);
      items.push({ id: 'goto', group: 'Actions', label: p ? `Go to #${n}: ${firstLine(p.text, 70)}` : `No prompt #${n} on the live path`, hint: 'G', run: () => p && st().goToNumber(n) });
    }
    // Any agent whose sessions can be rewound; each action is still checked for this prompt when it runs.
    const canAct = !!timeline && !timeline.session.readOnly && !!selected && timeline.prompts.some((p) => p.uuid === selected);
    if (canAct) for (const a of Object.keys(ACTION_LABEL) as Action[]) items.push({ id: `action:${a}`, group: 'Actions', label: ACTION_LABEL[a], hint: ACTION_KEY[a], run: () => void st().openPreview(a) });
    items.push({ id: 'filter', group: 'Actions', label: 'Filter sessions and prompts', hint: '/', run: () => document.getElementById('session-filter')?.focus() });
    items.push({ id: 'first', group: 'Actions', label: 'First prompt', hint: 'Home', run: () => st().selectEdge('first') });
    items.push({ id: 'last', group: 'Actions', label: 'Last prompt', hint: 'End', run: () => st().selectEdge('last') });
    if (selected && st().layout?.branchOf.has(selected)) items.push({ id: 'bp', group: 'Actions', label: 'Jump to the branch point', hint: 'P', run: () => st().jumpToBranchPoint() });
    if (st().jumpedFrom) items.push({ id: 'back', group: 'Actions', label: 'Back to the abandoned branch', hint: 'Backspace', run: () => st().jumpBack() });
    items.push(...windowCommands());
    for (const p of timeline?.prompts ?? []) items.push({ id: `prompt:${p.uuid}`, group: 'Prompts', label: `${p.number ? `#${p.number}` : '(abandoned)'} ${firstLine(p.text || '[image]', 90)}`, run: () => st().selectPrompt(p.uuid) });
    for (const s of sessions) {
      const project = s.cwd ?? s.projectDir;
      const name = st().prefs.names[s.id];
      items.push({ id: `session:${s.transcriptPath}`, group: 'Sessions', label: firstLine(name || s.title, 90), hint: project.split(/[\\/]/).filter(Boolean).slice(-1)[0], also: `${project} ${s.title}`, run: () => st().pickSidebarItem(s.transcriptPath) });
    }
    return items;
  }, [query, timeline, sessions, selected]);

  const shown = useMemo(() => {
    const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const goto = /^#?\s*\d+$/.test(query.trim());
    const out: Item[] = [];
    for (const it of all) {
      if (out.length >= LIMIT) break;
      const hay = `${it.label} ${it.also ?? ''}`.toLowerCase();
      if (it.id === 'goto' || !words.length || (!goto && words.every((w) => hay.includes(w)))) out.push(it);
    }
    return out;
  }, [all, query]);
  const at = Math.min(cursor, Math.max(0, shown.length - 1));

  const run = (it: Item | undefined) => {
    if (!it) return;
    close();
    it.run();
    if (it.group === 'Prompts' || it.id === 'goto' || it.id === 'first' || it.id === 'last' || it.id === 'bp' || it.id === 'back') focusTimeline();
  };
  return (
    <div className="wg-palette-backdrop" {...backdrop}>
      <div className="wg-palette" role="dialog" aria-label="Command palette">
        <input
          ref={input}
          className="wg-palette-input"
          role="combobox"
          aria-expanded
          aria-controls="wg-palette-list"
          aria-activedescendant={shown[at] ? `wg-pal-${at}` : undefined}
          aria-label="Search sessions, prompts and actions; #N goes to a prompt"
          placeholder="Sessions, prompts, actions… (#12 goes to prompt 12)"
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setCursor(0);
          }}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') setCursor(Math.min(at + 1, shown.length - 1));
            else if (e.key === 'ArrowUp') setCursor(Math.max(at - 1, 0));
            else if (e.key === 'Enter') run(shown[at]);
            else if (e.key === 'Escape') close();
            else return;
            e.preventDefault();
            e.stopPropagation();
          }}
        />
        <div id="wg-palette-list" role="listbox" aria-label="Results" className="wg-palette-list">
          {groupsOf(shown).map(({ group, items }) => (
            <div key={group} role="group" aria-labelledby={`wg-pal-group-${group}`}>
              <div id={`wg-pal-group-${group}`} className="wg-pal-header" role="presentation">
                {group}
              </div>
              {items.map(({ it, i }) => (
                <div key={it.id} id={`wg-pal-${i}`} role="option" aria-selected={i === at} className={`wg-pal-option${i === at ? ' wg-active' : ''}`} onMouseDown={() => run(it)} onMouseMove={() => i !== at && setCursor(i)}>
                  <span className="wg-pal-label">
                    <Highlight text={it.label} query={query.trim().split(/\s+/)[0] ?? ''} />
                  </span>
                  {it.hint && <kbd>{it.hint}</kbd>}
                </div>
              ))}
            </div>
          ))}
          {shown.length === 0 && <p className="muted wg-pal-empty">Nothing matches.</p>}
        </div>
      </div>
    </div>
  );
}
