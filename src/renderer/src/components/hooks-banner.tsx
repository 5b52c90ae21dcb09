import { useState } from 'react';
import { useStore } from '../store/store.js';

/**
 * One quiet line: checkpoints are off in this project, install in one click, or dismiss (remembered
 * per project by the service, so it stays gone after a restart).
 */
export function HooksBanner() {
  const hooks = useStore((s) => s.hooks);
  const install = useStore((s) => s.installHooks);
  const hidden = useStore((s) => s.prefs.hiddenHooksNotice);
  const dismiss = useStore((s) => s.dismissHooksNotice);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!hooks || hooks.scopes.some((s) => s.events.length > 0) || hidden.includes(hooks.projectRoot)) return null;
  const local = hooks.scopes.find((s) => s.scope === 'local');
  const why = "The agent's own checkpoints cover only files it edited, not what shell commands change. Rewind's hooks checkpoint the whole project before every prompt.";
  return (
    <div className="banner" role="note" aria-label="Checkpoints">
      <svg className="banner-icon" width="16" height="16" viewBox="0 0 16 16" aria-hidden>
        <circle cx="8" cy="8" r="7" fill="none" stroke="currentColor" strokeWidth="1.5" />
        <rect x="7.25" y="7" width="1.5" height="5" rx="0.75" fill="currentColor" />
        <circle cx="8" cy="4.75" r="1" fill="currentColor" />
      </svg>
      <span className="banner-text" title={why}>
        {error ? <span className="error-text">{error}</span> : <>Rewind checkpoints are off here: shell-made changes cannot be restored.</>}
      </span>
      <button
        type="button"
        className="button small"
        disabled={busy}
        title={`Adds 3 entries to ${local?.file ?? '.claude/settings.local.json'} and keeps the rest`}
        onClick={async () => {
          setBusy(true);
          setError(await install());
          setBusy(false);
        }}
      >
        Install hooks
      </button>
      <button type="button" className="button ghost small banner-close" aria-label="Dismiss for this project" title="Dismiss for this project" onClick={() => void dismiss(hooks.projectRoot)}>
        ✕
      </button>
    </div>
  );
}
