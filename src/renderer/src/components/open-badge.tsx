import type { OpenSession } from '../../../shared/session-schema.js';
import { openSessionText } from '../../../shared/wording.js';
import { useStore } from '../store/store.js';
import './open-badge.css';

/**
 * "open in Claude Code (idle, pid 4242)": the session a running agent has open (the service reads
 * each agent's markers). Rewriting it in place is refused while it is; a fork is always allowed.
 */
export function OpenBadge({ open }: { open: OpenSession | null | undefined }) {
  const agents = useStore((s) => s.agents);
  if (!open) return null;
  const text = openSessionText(agents.find((a) => a.id === open.agent)?.displayName ?? open.agent, open);
  return (
    <span className={`open-badge ${open.status}`} title={`${text}: it is not rewritten in place while it is (fork it, or quit the agent first)`} data-testid="open-badge">
      {text}
    </span>
  );
}
