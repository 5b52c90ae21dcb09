import { useState } from 'react';
import { useStore } from '../store/store.js';

/** Teaches what the hooks add, and installs them in one click (after saying what changes). */
export function HooksBanner() {
  const hooks = useStore((s) => s.hooks);
  const install = useStore((s) => s.installHooks);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!hooks || hooks.scopes.some((s) => s.events.length > 0)) return null;
  const local = hooks.scopes.find((s) => s.scope === 'local');
  return (
    <div className="banner" role="note">
      <div>
        <strong>Rewind checkpoints are off here.</strong> Claude's own miss what shell commands change. The hooks checkpoint the whole project before every prompt;
        installing adds 3 entries to <span className="mono" title={local?.file}>.claude/settings.local.json</span> and keeps the rest.
        {error && <div className="error-text">{error}</div>}
      </div>
      <button
        type="button"
        className="button"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(await install());
          setBusy(false);
        }}
      >
        Install hooks
      </button>
    </div>
  );
}
