import { ACTION_KEY } from '../shortcuts.js';
import { ACTION_LABEL, actionEligibility, type Action } from '../store/action-slice.js';
import { useStore } from '../store/store.js';

const ACTIONS: { action: Action; hint: string; primary?: boolean }[] = [
  { action: 'fork', hint: 'New session that ends before this prompt; this one stays as it is', primary: true },
  { action: 'rewrite', hint: 'Drop this prompt and what followed from this session (backup kept)' },
  { action: 'restore', hint: 'Put the project files back as they were before this prompt' },
  { action: 'fork-restore', hint: 'Both: a new session, and the files as they were' },
];

/** Actions off for the same reason, together: each reason said once, naming every action it turns off. */
export function reasonGroups(states: { action: Action; reason: string | null | undefined }[]): { actions: Action[]; reason: string }[] {
  const groups: { actions: Action[]; reason: string }[] = [];
  for (const { action, reason } of states) {
    if (!reason) continue;
    const g = groups.find((x) => x.reason === reason);
    if (g) g.actions.push(action);
    else groups.push({ actions: [action], reason });
  }
  return groups;
}

/** The four ways back from a prompt, each on or off for this prompt before any click, with the reason. */
export function ActionButtons({ uuid, disabled }: { uuid: string; disabled: boolean }) {
  const openPreview = useStore((s) => s.openPreview);
  const timeline = useStore((s) => s.timeline);
  const sessions = useStore((s) => s.sessions);
  const selectedSession = useStore((s) => s.selectedSession);
  const agents = useStore((s) => s.agents);
  const states = ACTIONS.map((a) => actionEligibility({ timeline, sessions, selectedSession, agents }, a.action, uuid));
  const groups = reasonGroups(states.map((e, i) => ({ action: ACTIONS[i]!.action, reason: e.reason })));
  const anyReason = groups.length > 0;
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
              title={e.reason ?? `${a.hint} (${ACTION_KEY[a.action]})`}
              aria-keyshortcuts={ACTION_KEY[a.action]}
              aria-describedby={e.reason ? `why-${groups.find((g) => g.actions.includes(a.action))!.actions[0]}` : undefined}
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
          {groups.map((g) => (
            <li key={g.actions[0]} id={`why-${g.actions[0]}`}>
              <strong>{g.actions.map((a) => ACTION_LABEL[a]).join(', ')}</strong>: {g.reason}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
