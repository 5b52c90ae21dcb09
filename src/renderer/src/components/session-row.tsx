import { useState } from 'react';
import type { SessionSummary } from '../../../shared/session-schema.js';
import { firstLine, plural } from '../format.js';
import type { SessionLabel } from '../session-label.js';
import { useStore } from '../store/store.js';
import { Highlight } from './highlight.js';
import { When } from './when.js';
import { OpenBadge } from './open-badge.js';

interface Props {
  session: SessionSummary;
  label: SessionLabel;
  /** Which agent, when not the primary one. */
  badge: string | null;
  selected: boolean;
  now: number;
  onSelect: (transcriptPath: string) => void;
  /** The project the row is listed under (data-project, for tests and styles). */
  project?: string;
  /** The prompt count as the timeline header says it (else the summary's count). */
  promptsText?: string;
  /** The filter: its matches in the label are highlighted. */
  query?: string;
}

/** One session in the sidebar: its label (ellipsized, full on hover), activity, and a rename in place. */
export function SessionRow({ session: s, label, badge, selected, now, onSelect, project, promptsText, query = '' }: Props) {
  const rename = useStore((st) => st.renameSession);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (editing) {
    const save = async (value: string | null) => {
      setEditing(false);
      // The input goes away: the focus goes back to the list it was opened from.
      requestAnimationFrame(() => {
        if (document.activeElement === document.body) document.querySelector<HTMLElement>('.session-groups')?.focus({ preventScroll: true });
      });
      if (value === null) return;
      setError(await rename(s.id, value));
    };
    return (
      <form
        className="session-rename"
        onSubmit={(e) => {
          e.preventDefault();
          void save(new FormData(e.currentTarget).get('name') as string);
        }}
      >
        <input
          name="name"
          aria-label="Session name (empty: its own title)"
          defaultValue={label.named ? label.text : ''}
          placeholder={s.title}
          maxLength={120}
          autoFocus
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.stopPropagation();
              void save(null);
            }
          }}
          onBlur={(e) => void save(e.currentTarget.value)}
        />
      </form>
    );
  }
  return (
    <div className="session-row">
      {/* Not tab stops: the list is one (↑/↓ inside it, F2 renames), as the timeline is. */}
      <button type="button" tabIndex={-1} className={`session${selected ? ' selected' : ''}${s.forkOf ? ' is-fork' : ''}`} onClick={() => onSelect(s.transcriptPath)} title={label.hover} data-project={project} aria-current={selected ? 'true' : undefined}>
        <span className="session-title">
          {s.live && <span className="live-dot" aria-label="agent is writing" />}
          <span className="session-title-text">
            <Highlight text={label.text} query={query} />
          </span>
        </span>
        <span className="session-meta">
          {badge && <span className="agent-tag">{badge} · </span>}
          <When iso={s.lastActivity} now={now} /> · {promptsText ?? (s.promptCount === null ? '? prompts' : plural(s.promptCount, 'prompt'))}
          {/* Sessions that began alike (ten "WRITE a.txt…") differ by where they ended. */}
          {s.lastPrompt && firstLine(s.lastPrompt, 80) !== firstLine(s.title, 80) && <span className="session-last"> · last “{firstLine(s.lastPrompt, 60)}”</span>}
        </span>
        <OpenBadge open={s.open} />
        {error && <span className="session-meta error-text">{error}</span>}
      </button>
      <button type="button" tabIndex={-1} className="rename-button" aria-label={`Rename ${label.text}`} aria-keyshortcuts="F2" title="Rename (kept in Rewind; F2)" onClick={() => setEditing(true)}>
        ✎
      </button>
    </div>
  );
}
