import { ACTION_KEY } from '../shortcuts.js';
import { ACTION_LABEL, actionEligibility, type Action } from '../store/action-slice.js';
import { useStore } from '../store/store.js';

const ACTIONS: { action: Action; hint: string; primary?: boolean }[] = [
  { action: 'fork', hint: 'New session that ends before this prompt; this one stays as it is', primary: true },
  { action: 'rewrite', hint: 'Drop this prompt and what followed from this session (backup kept)' },
  { action: 'restore', hint: 'Put the project files back as they were before this prompt' },
  { action: 'fork-restore', hint: 'Both: a new session, and the files as they were' },
];

/** The four ways back from a prompt, each on or off for this prompt before any click, with the reason. */
export function ActionButtons({ uuid, disabled }: { uuid: string; disabled: boolean }) {
  const openPreview = useStore((s) => s.openPreview);
  const timeline = useStore((s) => s.timeline);
  const sessions = useStore((s) => s.sessions);
  const selectedSession = useStore((s) => s.selectedSession);
  const agents = useStore((s) => s.agents);
  const states = ACTIONS.map((a) => actionEligibility({ timeline, sessions, selectedSession, agents }, a.action, uuid));
  const anyReason = states.some((e) => e.reason);
  return (
    <>
      <div className="actions" role="group" aria-label="Go back to this prompt">
        {ACTIONS.map((a, i) => {
          const e = states[i]!;
          const off = disabled || !e.enabled;
          return (
            <button
              key={a.action}
              type="button"
              className={`button${a.primary ? ' primary' : ''}`}
              title={e.reason ?? `${a.hint} (${ACTION_KEY[a.action]}${a.action === 'fork' ? ' or Enter' : ''})`}
              aria-keyshortcuts={ACTION_KEY[a.action]}
              aria-describedby={e.reason ? `why-${a.action}` : undefined}
              disabled={off}
              data-action={a.action}
              onClick={() => void openPreview(a.action, uuid)}
            >
              {ACTION_LABEL[a.action]} <kbd className="wg-kbd">{ACTION_KEY[a.action]}</kbd>
            </button>
          );
        })}
      </div>
      {!disabled && anyReason && (
        <ul className="action-reasons small muted" aria-label="Why some actions are off">
          {ACTIONS.map((a, i) =>
            states[i]!.reason ? (
              <li key={a.action} id={`why-${a.action}`}>
                <strong>{ACTION_LABEL[a.action]}</strong>: {states[i]!.reason}
              </li>
            ) : null,
          )}
        </ul>
      )}
    </>
  );
}
