import { useState } from 'react';
import { ActionButtons } from './action-buttons.js';
import { useStore } from '../store/store.js';
import { duration, plural, relTime, tokens } from '../format.js';
import { InsightActions } from './insight.js';
import { useNow } from './use-now.js';

function TurnItems({ uuid }: { uuid: string }) {
  const turn = useStore((s) => s.turns[uuid]);
  const [open, setOpen] = useState<Record<number, boolean>>({});
  if (!turn || turn === 'loading') return <p className="muted">Loading the turn…</p>;
  if ('error' in turn) return <p className="error-text">{turn.error}</p>;
  if (turn.items.length === 0) return <p className="muted">No reply yet.</p>;
  return (
    <ol className="turn-items">
      {turn.items.map((it, i) => {
        const collapsible = it.kind !== 'text';
        const isOpen = !collapsible || open[i];
        return (
          <li key={i} className={`turn-item ${it.kind}${it.isError ? ' error' : ''}`}>
            {collapsible ? (
              <button type="button" className="item-head" aria-expanded={!!isOpen} onClick={() => setOpen({ ...open, [i]: !isOpen })}>
                <span className="caret" aria-hidden>
                  {isOpen ? '▾' : '▸'}
                </span>
                <span className="item-kind">{it.kind === 'tool-call' ? 'tool' : it.kind}</span>
                <span className="item-title">{it.title}</span>
              </button>
            ) : null}
            {isOpen && <pre className={collapsible ? 'item-body mono' : 'item-text'}>{it.body}</pre>}
          </li>
        );
      })}
      {turn.truncated && <li className="muted">… more in the transcript</li>}
    </ol>
  );
}

export function PromptDetail() {
  const uuid = useStore((s) => s.selectedPrompt);
  const prompt = useStore((s) => s.timeline?.prompts.find((p) => p.uuid === uuid) ?? null);
  const readOnly = useStore((s) => s.timeline?.session.readOnly ?? null);
  const now = useNow();
  if (!prompt) return <aside className="detail empty-detail muted">Select a prompt to see what happened and to go back to it.</aside>;
  const t = prompt.turn;
  return (
    <aside className="detail" aria-label="Prompt details">
      <header>
        <div className="detail-title">
          {prompt.number ? `#${prompt.number}` : 'Abandoned branch'} <span className="muted">· {relTime(prompt.timestamp, now)}</span>
        </div>
        <p className="detail-prompt">{prompt.text || '[image]'}</p>
        {prompt.images > 0 && <p className="muted small">+ {plural(prompt.images, 'image')}</p>}
      </header>
      <ActionButtons uuid={prompt.uuid} disabled={!!readOnly} />
      <InsightActions uuid={prompt.uuid} />
      {readOnly && <p className="small muted">{readOnly}</p>}
      <section className="turn">
        <h2>
          Turn <span className="muted small">{[plural(t.toolCalls.length, 'tool call'), t.durationMs ? duration(t.durationMs) : null, t.inputTokens + t.outputTokens ? `${tokens(t.inputTokens + t.outputTokens)} tokens` : null].filter(Boolean).join(' · ')}</span>
        </h2>
        {t.filesTouched.length > 0 && (
          <p className="small">
            Edited: <span className="mono">{t.filesTouched.join(', ')}</span>
          </p>
        )}
        <TurnItems uuid={prompt.uuid} />
      </section>
    </aside>
  );
}
