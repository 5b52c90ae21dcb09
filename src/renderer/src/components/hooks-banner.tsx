import { useStore } from '../store/store.js';

/** Agents with sessions here whose checkpoints are off; without that list, the session's settings decide. */
export function missingHooks(hooks: NonNullable<ReturnType<typeof useStore.getState>['hooks']>) {
  if (hooks.agents.length) return hooks.agents.filter((a) => !a.installed);
  return hooks.scopes.some((s) => s.events.length > 0) ? [] : [{ agent: '', displayName: '', installed: false, file: hooks.scopes.find((s) => s.scope === 'local')?.file ?? '.claude/settings.local.json', nextStep: null }];
}

/** "Claude Code", "Claude Code and Codex", "3 agents": short enough for one line at any count. */
export function whoLacksHooks(names: string[]): string {
  if (names.length === 0) return '';
  if (names.length === 1) return names[0]!;
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  return `${names.length} agents`;
}

/**
 * One quiet line: checkpoints are off in this project for the agents that have sessions here, one
 * "Set up…" button that opens the sheet (pick agents, see each config change, confirm), or dismiss
 * (remembered per project by the service, so it stays gone after a restart).
 */
export function HooksBanner() {
  const hooks = useStore((s) => s.hooks);
  const hidden = useStore((s) => s.prefs.hiddenHooksNotice);
  const dismiss = useStore((s) => s.dismissHooksNotice);
  const openSheet = useStore((s) => s.setHooksSheetOpen);
  // Nothing to offer for a folder that is not on this machine.
  if (!hooks || !hooks.projectExists || hidden.includes(hooks.projectRoot)) return null;
  const missing = missingHooks(hooks);
  const steps = hooks.agents.filter((a) => a.installed && a.nextStep);
  if (missing.length === 0 && steps.length === 0) return null;
  const names = missing.map((a) => a.displayName).filter(Boolean);
  const why = `Rewind checkpoints are off${names.length ? ` for ${names.join(', ')}` : ''}. The agent's own checkpoints cover only files it edited, not what shell commands change; Rewind's hooks checkpoint the whole project before every prompt.`;
  const who = whoLacksHooks(names);
  return (
    <div className="banner" role="note" aria-label="Checkpoints">
      <svg className="banner-icon" width="16" height="16" viewBox="0 0 16 16" aria-hidden>
        <circle cx="8" cy="8" r="7" fill="none" stroke="currentColor" strokeWidth="1.5" />
        <rect x="7.25" y="7" width="1.5" height="5" rx="0.75" fill="currentColor" />
        <circle cx="8" cy="4.75" r="1" fill="currentColor" />
      </svg>
      <span className="banner-text" title={missing.length ? why : undefined}>
        {missing.length ? <>Rewind checkpoints are off{who ? ` for ${who}` : ''}</> : <>{steps.map((a) => a.nextStep).join(' ')}</>}
      </span>
      {missing.length > 0 && (
        <button type="button" className="button small" title="Pick the agents and see each settings change before anything is written" onClick={() => openSheet(true)}>
          Set up…
        </button>
      )}
      <button type="button" className="button ghost small banner-close" aria-label="Dismiss for this project" title="Dismiss for this project" onClick={() => void dismiss(hooks.projectRoot)}>
        ✕
      </button>
    </div>
  );
}
