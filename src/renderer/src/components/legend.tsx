import { lazy, Suspense, useEffect, useRef, useState } from 'react';

// Its words are read only when it is opened: their own chunk.
const LegendPanel = lazy(() => import('./legend-panel.js').then((m) => ({ default: m.LegendPanel })));

/** What the timeline's marks mean, one click from the header (a native disclosure: keyboard and screen readers for free). */
export function Legend() {
  const ref = useRef<HTMLDetailsElement>(null);
  const [open, setOpen] = useState(false);
  // Like any popover: a click elsewhere or Esc closes it.
  useEffect(() => {
    const close = (e: Event) => {
      const el = ref.current;
      if (!el?.open) return;
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !el.contains(e.target as Node)) {
        el.open = false;
        if (e instanceof KeyboardEvent) el.querySelector('summary')?.focus();
      }
    };
    document.addEventListener('pointerdown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('pointerdown', close);
      document.removeEventListener('keydown', close);
    };
  }, []);
  return (
    <details className="legend" ref={ref} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary aria-label="Legend: what the marks mean">
        <span aria-hidden>◆ ◇</span> Legend
      </summary>
      {open && (
        <Suspense fallback={<div className="legend-panel small muted">…</div>}>
          <LegendPanel />
        </Suspense>
      )}
    </details>
  );
}
