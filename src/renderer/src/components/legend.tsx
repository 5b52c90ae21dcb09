import { useEffect, useRef } from 'react';

/** What the timeline's marks mean, one click from the header (a native disclosure: keyboard and screen readers for free). */
export function Legend() {
  const ref = useRef<HTMLDetailsElement>(null);
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
    <details className="legend" ref={ref}>
      <summary aria-label="Legend: what the marks mean">
        <span aria-hidden>◆ ◇</span> Legend
      </summary>
      <dl className="legend-panel">
        <dt>
          <span className="marker ours">◆</span>
        </dt>
        <dd>Rewind checkpoint: the whole project before this prompt, shell-made changes included (needs the hooks).</dd>
        <dt>
          <span className="marker ours">◈</span>
        </dt>
        <dd>Rewind's first checkpoint of this project, still being read in the background: the code cannot be restored to this prompt until it is complete (then it is a ◆).</dd>
        <dt>
          <span className="marker native">◇</span>
        </dt>
        <dd>The agent's own checkpoint: only the files it edited with its tools.</dd>
        <dt>
          <span className="legend-dead" aria-hidden />
        </dt>
        <dd>A dimmed, dashed lane: an abandoned branch (prompts that were rewound away).</dd>
        <dt>
          <span className="legend-compaction" aria-hidden />
        </dt>
        <dd>A dashed rule: the conversation was compacted here.</dd>
      </dl>
    </details>
  );
}
