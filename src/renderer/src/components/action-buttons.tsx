import { ACTION_KEY } from '../shortcuts.js';
import { ACTION_LABEL, type Action } from '../store/action-slice.js';
import { useStore } from '../store/store.js';

const ACTIONS: { action: Action; hint: string; primary?: boolean }[] = [
  { action: 'fork', hint: 'New session that ends before this prompt; this one stays as it is', primary: true },
  { action: 'rewrite', hint: 'Drop this prompt and what followed from this session (backup kept)' },
  { action: 'restore', hint: 'Put the project files back as they were before this prompt' },
  { action: 'fork-restore', hint: 'Both: a new session, and the files as they were' },
];

/** The four ways back to a prompt; each opens its preview first. */
export function ActionButtons({ uuid, disabled }: { uuid: string; disabled: boolean }) {
  const openPreview = useStore((s) => s.openPreview);
  return (
    <div className="actions" role="group" aria-label="Go back to this prompt">
      {ACTIONS.map((a) => (
        <button key={a.action} type="button" className={`button${a.primary ? ' primary' : ''}`} title={`${a.hint} (${ACTION_KEY[a.action]}${a.action === 'fork' ? ' or Enter' : ''})`} aria-keyshortcuts={ACTION_KEY[a.action]} disabled={disabled} onClick={() => void openPreview(a.action, uuid)}>
          {ACTION_LABEL[a.action]} <kbd className="wg-kbd">{ACTION_KEY[a.action]}</kbd>
        </button>
      ))}
    </div>
  );
}
