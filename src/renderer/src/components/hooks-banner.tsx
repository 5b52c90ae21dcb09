import { useState } from 'react';
import { useStore } from '../store/store.js';

/**
 * One quiet line: checkpoints are off in this project for the agents that have sessions here, with
 * an Install button per agent, or dismiss (remembered per project by the service, so it stays gone
 * after a restart).
 */
export function HooksBanner() {
  const hooks = useStore((s) => s.hooks);
  const install = useStore((s) => s.installHooks);
  const hidden = useStore((s) => s.prefs.hiddenHooksNotice);
  const dismiss = useStore((s) => s.dismissHooksNotice);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Nothing to offer for a folder that is not on this machine.
  if (!hooks || !hooks.projectExists || hidden.includes(hooks.projectRoot)) return null;
  // Agents with sessions here (the service lists them); without that list, the first agent's settings decide.
  const missing = hooks.agents.length
    ? hooks.agents.filter((a) => !a.installed)
    : hooks.scopes.some((s) => s.events.length > 0)
      ? []
      : [{ agent: '', displayName: '', installed: false, file: hooks.scopes.find((s) => s.scope === 'local')?.file ?? '.claude/settings.local.json', nextStep: null }];
  const steps = hooks.agents.filter((a) => a.installed && a.nextStep);
  if (missing.length === 0 && steps.length === 0) return null;
  const why = "The agent's own checkpoints cover only files it edited, not what shell commands change. Rewind's hooks checkpoint the whole project before every prompt.";
  const names = missing.map((a) => a.displayName).filter(Boolean);
  return (
    <div className="banner" role="note" aria-label="Checkpoints">
      <svg className="banner-icon" width="16" height="16" viewBox="0 0 16 16" aria-hidden>
        <circle cx="8" cy="8" r="7" fill="none" stroke="currentColor" strokeWidth="1.5" />
        <rect x="7.25" y="7" width="1.5" height="5" rx="0.75" fill="currentColor" />
        <circle cx="8" cy="4.75" r="1" fill="currentColor" />
      </svg>
      <span className="banner-text" title={why}>
        {error ? (
          <span className="error-text">{error}</span>
        ) : missing.length ? (
          <>Rewind checkpoints are off here{names.length ? ` for ${names.join(', ')}` : ''}: shell-made changes cannot be restored.</>
        ) : (
          <>{steps.map((a) => a.nextStep).join(' ')}</>
        )}
      </span>
      {missing.map((a) => (
        <button
          key={a.agent || 'default'}
          type="button"
          className="button small"
          disabled={busy}
          title={`Adds Rewind's entries to ${a.file} and keeps the rest`}
          onClick={async () => {
            setBusy(true);
            setError(await install(a.agent || undefined));
            setBusy(false);
          }}
        >
          {a.displayName ? `Install hooks for ${a.displayName}` : 'Install hooks'}
        </button>
      ))}
      <button type="button" className="button ghost small banner-close" aria-label="Dismiss for this project" title="Dismiss for this project" onClick={() => void dismiss(hooks.projectRoot)}>
        ✕
      </button>
    </div>
  );
}
