import { firstLine } from '../format.js';
import { ACTION_KEY } from '../shortcuts.js';
import { actionEligibility, type Action } from '../store/action-slice.js';
import { useStore } from '../store/store.js';

const SHORT: Record<Action, string> = { fork: 'Fork', rewrite: 'Rewrite', restore: 'Restore code', 'fork-restore': 'Fork + restore' };
const ORDER: Action[] = ['fork', 'rewrite', 'restore', 'fork-restore'];

/**
 * Narrow windows: the selected prompt and its four actions stay on screen under the timeline (the
 * details are a drawer there), each on or off as in the details pane, its reason on hover.
 */
export function ActionStrip() {
  const uuid = useStore((s) => s.selectedPrompt);
  const prompt = useStore((s) => s.timeline?.prompts.find((p) => p.uuid === s.selectedPrompt) ?? null);
  const readOnly = useStore((s) => !!s.timeline?.session.readOnly);
  const timeline = useStore((s) => s.timeline);
  const sessions = useStore((s) => s.sessions);
  const selectedSession = useStore((s) => s.selectedSession);
  const agents = useStore((s) => s.agents);
  const openPreview = useStore((s) => s.openPreview);
  const setDetailsOpen = useStore((s) => s.setDetailsOpen);
  if (!uuid || !prompt) return null;
  return (
    <div className="action-strip" role="group" aria-label={`Selected prompt ${prompt.number ? `#${prompt.number}` : '(abandoned)'}`}>
      <span className="action-strip-prompt" title={prompt.text}>
        <strong>{prompt.number ? `#${prompt.number}` : '○'}</strong> {firstLine(prompt.text || '[image]', 80)}
      </span>
      <span className="action-strip-buttons">
        {ORDER.map((a) => {
          const e = actionEligibility({ timeline, sessions, selectedSession, agents }, a, uuid);
          return (
            <button key={a} type="button" className={`button small${a === 'fork' ? ' primary' : ''}`} disabled={readOnly || !e.enabled} title={e.reason ?? undefined} aria-keyshortcuts={ACTION_KEY[a]} onClick={() => void openPreview(a, uuid)}>
              {SHORT[a]}
            </button>
          );
        })}
        <button type="button" className="button small ghost" onClick={() => setDetailsOpen(true)}>
          Details ▸
        </button>
      </span>
    </div>
  );
}
