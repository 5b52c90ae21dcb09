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
  const why = "Claude's own checkpoints cover only files it edited, not what shell commands change. Rewind's hooks checkpoint the whole project before every prompt.";
  return (
    <div className="banner" role="note" aria-label="Checkpoints">
      <span className="banner-icon" aria-hidden>
        ⓘ
      </span>
      <span className="banner-text" title={why}>
        {error ? <span className="error-text">{error}</span> : <>Rewind checkpoints are off in this project: shell-made changes cannot be restored.</>}
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
