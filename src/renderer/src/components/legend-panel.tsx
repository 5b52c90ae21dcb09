/** What every mark of the timeline means (the Legend's panel; its own chunk, read when the Legend opens). */
export function LegendPanel() {
  return (
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
  );
}
