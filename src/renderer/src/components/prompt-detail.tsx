import { useStore } from '../store/store.js';
import { duration, plural, tokens } from '../format.js';
import { ActionButtons } from './action-buttons.js';
import { HistoryActions } from './history-actions.js';
import { lazy, Suspense } from 'react';
import { useNow } from './use-now.js';
import { When } from './when.js';

// The turn's items (tool views, diffs, code highlighting): their own chunk, loaded beside the turn's data.
const TurnView = lazy(() => import('./turn-view.js').then((m) => ({ default: m.TurnView })));
const Images = lazy(() => import('./turn-view.js').then((m) => ({ default: m.Images })));
// Compare and export: not on the first screen, their own chunk.
const InsightActions = lazy(() => import('./insight-actions.js').then((m) => ({ default: m.InsightActions })));

/** The model and the turn's counts in one line: "claude-opus-5-5 · 2 tool calls · 12s · 1.2k in · 340 out". */
function TurnMeta({ uuid }: { uuid: string }) {
  const t = useStore((s) => s.timeline?.prompts.find((p) => p.uuid === uuid)?.turn);
  const detail = useStore((s) => s.turns[uuid]);
  const model = t?.model ?? (detail && detail !== 'loading' && !('error' in detail) ? detail.model : null);
  if (!t) return null;
  const parts = [
    model,
    plural(t.toolCalls.length, 'tool call'),
    t.durationMs ? duration(t.durationMs) : null,
    t.inputTokens + t.outputTokens ? `${tokens(t.inputTokens)} tokens in · ${tokens(t.outputTokens)} out` : null,
  ];
  return (
    <span className="turn-meta muted small" aria-label="Model and tokens">
      {parts.filter(Boolean).join(' · ')}
    </span>
  );
}

function PromptImages({ uuid }: { uuid: string }) {
  const detail = useStore((s) => s.turns[uuid]);
  if (!detail || detail === 'loading' || 'error' in detail) return null;
  if (detail.promptImages.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <Images images={detail.promptImages} />
    </Suspense>
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
          {prompt.number ? `#${prompt.number}` : 'Abandoned branch'} <span className="muted">
            · <When iso={prompt.timestamp} now={now} />
          </span>
        </div>
        <p className="detail-prompt">{prompt.text || '[image]'}</p>
        {prompt.images > 0 && <p className="muted small">+ {plural(prompt.images, 'image')}</p>}
        <PromptImages uuid={prompt.uuid} />
      </header>
      <ActionButtons uuid={prompt.uuid} disabled={!!readOnly} />
      <Suspense fallback={null}>
        <InsightActions uuid={prompt.uuid} />
      </Suspense>
      <HistoryActions uuid={prompt.uuid} />
      {readOnly && <p className="small muted">{readOnly}</p>}
      <section className="turn">
        <h2>
          Turn <TurnMeta uuid={prompt.uuid} />
        </h2>
        {t.filesTouched.length > 0 && (
          <p className="small">
            Edited: <span className="mono">{t.filesTouched.join(', ')}</span>
          </p>
        )}
        <Suspense fallback={<p className="muted small">Loading the turn…</p>}>
          <TurnView uuid={prompt.uuid} />
        </Suspense>
      </section>
    </aside>
  );
}
