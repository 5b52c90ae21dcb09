/** What the timeline's marks mean, one click from the header (a native disclosure: keyboard and screen readers for free). */
export function Legend() {
  return (
    <details className="legend">
      <summary aria-label="Legend: what the marks mean">
        <span aria-hidden>◆ ◇</span> Legend
      </summary>
      <dl className="legend-panel">
        <dt>
          <span className="marker ours">◆</span>
        </dt>
        <dd>Rewind checkpoint: the whole project before this prompt, shell-made changes included (needs the hooks).</dd>
        <dt>
          <span className="marker native">◇</span>
        </dt>
        <dd>Claude's own checkpoint: only the files Claude edited with its tools.</dd>
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
