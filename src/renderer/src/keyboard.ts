import { useEffect } from 'react';
import { sidebarItems } from './sidebar-items.js';
import { ACTION_OF_KEY } from './shortcuts.js';
import { useStore } from './store/store.js';
import { focusTimeline } from './focus.js';

export { focusTimeline, takeTimelineFocus } from './focus.js';

function focusSidebar(): void {
  (document.querySelector('.session-groups') as HTMLElement | null)?.focus({ preventScroll: true });
}

/** The sidebar rows the keyboard walks: sessions and prompt matches, as drawn. */
function sidebarKeys(): string[] {
  const s = useStore.getState();
  const t = s.timeline;
  return sidebarItems(s.sessions, s.filter, s.promptMatches, (x) => [s.prefs.names[x.id] ?? '', ...(t && x.transcriptPath === t.session.transcriptPath ? t.prompts.map((p) => p.text) : [])], s.agentFilter, s.remotes)
    .filter((x) => x.kind !== 'group' && x.kind !== 'host')
    .map((x) => x.key);
}

function moveSidebar(delta: number | 'first' | 'last'): void {
  const s = useStore.getState();
  const keys = sidebarKeys();
  if (!keys.length) return;
  const at = keys.indexOf(s.sidebarCursor ?? s.selectedSession ?? '');
  const next = delta === 'first' ? 0 : delta === 'last' ? keys.length - 1 : Math.min(keys.length - 1, Math.max(0, at === -1 ? 0 : at + delta));
  s.pickSidebarItem(keys[next]!);
  // The ring is the list's: focus leaves a row's own button for the list.
  focusSidebar();
}

/** Enter on a prompt: its details (the drawer in narrow layouts), focus on its first action that is on. */
export function focusDetails(): void {
  const s = useStore.getState();
  if (document.querySelector('.app.narrow')) s.setDetailsOpen(true);
  requestAnimationFrame(() => {
    const pane = document.querySelector<HTMLElement>('.detail');
    const first = pane?.querySelector<HTMLElement>('.actions .button:not(:disabled)') ?? pane?.querySelector<HTMLElement>('button:not(:disabled), summary');
    first?.focus();
  });
}

/**
 * Keys typed right after Ctrl/Cmd+K, before the palette's box is there (its code loads on first
 * use) or has the focus: kept for it, not lost. A keyboard user types the query at once.
 */
function typeAhead(e: KeyboardEvent, query: string): void {
  const box = document.querySelector<HTMLInputElement>('.wg-palette-input');
  if (box) {
    // Focused before the key's default action: the character lands in the box.
    if (document.activeElement !== box) box.focus();
    return;
  }
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const s = useStore.getState();
  if (e.key === 'Escape') s.closePalette();
  else if (e.key === 'Backspace') s.openPalette(query.slice(0, -1));
  else if (e.key.length === 1) s.openPalette(query + e.key);
  else return;
  e.preventDefault();
}

/**
 * One keyboard for the window. Selection and focus are one: ↑/↓ (j/k) move in the list that has
 * focus (the sidebar's sessions, else the timeline, which then takes focus).
 */
export function useKeyboard(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const s = useStore.getState();
      const target = e.target instanceof HTMLElement ? e.target : null;
      const typing = !!target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable);
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        if (s.palette !== null) s.closePalette();
        else s.openPalette();
        return;
      }
      if (s.palette !== null) {
        typeAhead(e, s.palette);
        return; // the palette handles its own keys
      }
      // Ctrl/Cmd+Z and Shift+Ctrl/Cmd+Z: the project's Undo and Redo, previewed first like their buttons (a text box keeps its own).
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'z' && !typing) {
        if (s.preview || s.revert || s.hooksSheetOpen || s.undoAsk) return;
        e.preventDefault();
        void s.askUndo(e.shiftKey ? 'redo' : 'undo');
        return;
      }
      const inFilter = target?.id === 'session-filter';
      if (inFilter) {
        if (e.key === 'Escape') {
          e.preventDefault();
          // The Sessions drawer (narrow windows): one Esc closes it, the filter kept for next time.
          if (s.sidebarOpen) {
            s.setSidebarOpen(false);
            document.querySelector<HTMLElement>('.topbar .button')?.focus();
          } else if (s.filter) s.setFilter('');
          else target!.blur();
        } else if (e.key === 'ArrowDown') {
          e.preventDefault();
          focusSidebar();
          moveSidebar('first');
        } else if (e.key === 'Enter') {
          e.preventDefault();
          const keys = sidebarKeys();
          const first = keys.find((k) => k.startsWith('match:')) ?? keys[0];
          if (first) {
            s.pickSidebarItem(first);
            focusTimeline();
          }
        }
        return;
      }
      // The Undo/Redo dialog's Enter, wherever the focus was left (its own keys handle it inside it).
      if (e.key === 'Enter' && s.undoAsk && !target?.closest('.undo-dialog') && !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        if (!s.undoAsk.loading && !s.undoAsk.applying && !s.undoAsk.error) void s.confirmUndo();
        return;
      }
      if (e.key === 'Escape') {
        if (s.undoAsk) s.closeUndoAsk();
        else if (s.preview) s.closePreview();
        else if (s.revert) s.closeRevert();
        else if (s.history) s.closeHistory();
        else if (typing) target!.blur();
        else if (s.detailsOpen || s.sidebarOpen) {
          // Narrow layouts: Esc closes the drawers.
          s.setSidebarOpen(false);
          s.setDetailsOpen(false);
        }
        return;
      }
      if (typing || e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === '/') {
        e.preventDefault();
        document.getElementById('session-filter')?.focus();
        return;
      }
      // A sheet is open (a preview, a revert, the History panel): the timeline's keys wait.
      if (s.preview || s.revert || s.history || s.hooksSheetOpen || s.undoAsk) return;
      const inSidebar = !!target?.closest('.session-groups');
      const key = e.key;
      if (inSidebar) {
        const move: Record<string, number | 'first' | 'last'> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, Home: 'first', End: 'last' };
        if (key in move) {
          e.preventDefault();
          moveSidebar(move[key]!);
          return;
        }
        if (key === 'Enter' || key === 'ArrowRight') {
          e.preventDefault();
          focusTimeline();
          return;
        }
        if (key === 'F2') {
          // The ✎ of the row the ring is on (the row's buttons are not tab stops).
          e.preventDefault();
          document.querySelector<HTMLButtonElement>('.session-groups .wg-cursor .rename-button')?.click();
          return;
        }
      }
      if (target?.tagName === 'BUTTON' && (key === 'Enter' || key === ' ')) return; // a button does its own thing
      const sel = s.selectedPrompt;
      const row = sel && s.layout ? s.layout.rows[s.layout.indexOf.get(sel) ?? -1] : undefined;
      const handled = (() => {
        switch (key) {
          case 'ArrowDown':
          case 'j':
            s.moveSelection(1);
            return true;
          case 'ArrowUp':
          case 'k':
            s.moveSelection(-1);
            return true;
          case 'Home':
            s.selectEdge('first');
            return true;
          case 'End':
            s.selectEdge('last');
            return true;
          case 'g':
          case '#':
            s.openPalette('#');
            return 'palette';
          case 'h':
            void s.openHistory();
            return 'history';
          case 'p':
            s.jumpToBranchPoint();
            return true;
          case 'Backspace':
            if (!s.jumpedFrom) return false;
            s.jumpBack();
            return true;
          case 'ArrowRight':
          case 'Enter':
            if (row?.kind === 'branch') s.toggleBranch(row.branch);
            else if (row?.kind === 'fold') s.openFold(row.fold);
            else if (key === 'Enter' && row?.kind === 'prompt') {
              // A prompt row's own action is "open": its details, focus on the first action it allows.
              focusDetails();
              return 'details';
            } else return false;
            return true;
          case 'ArrowLeft':
            if (row?.kind === 'prompt' && row.branch && !s.layout!.branches.get(row.branch)!.collapsed) s.toggleBranch(row.branch);
            else return false;
            return true;
          default: {
            const action = ACTION_OF_KEY[key];
            if (!action || row?.kind !== 'prompt') return false;
            void s.openPreview(action);
            return 'preview';
          }
        }
      })();
      if (!handled) return;
      e.preventDefault();
      if (handled === true) focusTimeline();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
