import type { Layout, Row } from '../rows.js';

const COL = 14;

/** The git-graph column of one row: lane lines (from the layout's rails), the row's dot, a fork curve. */
export function LaneGraph({ layout, index, row, height }: { layout: Layout; index: number; row: Row; height: number }) {
  const width = layout.lanes * COL + 6;
  const mid = height / 2;
  const x = (lane: number) => 7 + lane * COL;
  const top = layout.top[index] ?? 0;
  const bottom = layout.bottom[index] ?? 0;
  const starts = layout.starts[index] ?? 0;
  const leaves = layout.leaves[index] ?? 0;
  const parts = [];
  for (let lane = 0; lane < layout.lanes; lane++) {
    const bit = 1 << lane;
    const cls = lane === 0 ? 'lane live' : 'lane dead';
    if (top & bit && bottom & bit) parts.push(<line key={`l${lane}`} x1={x(lane)} x2={x(lane)} y1={0} y2={height} className={cls} />);
    else if (top & bit) parts.push(<line key={`t${lane}`} x1={x(lane)} x2={x(lane)} y1={0} y2={mid} className={cls} />);
    else if (bottom & bit) parts.push(<line key={`b${lane}`} x1={x(lane)} x2={x(lane)} y1={mid} y2={height} className={cls} />);
    if (lane > 0 && leaves & bit) parts.push(<path key={`v${lane}`} d={`M ${x(0)} ${mid} C ${x(0)} ${height}, ${x(lane)} ${mid}, ${x(lane)} ${height}`} className="lane dead" fill="none" />);
    if (lane > 0 && starts & bit) parts.push(<path key={`s${lane}`} d={`M ${x(0)} 0 C ${x(0)} ${mid}, ${x(lane)} 0, ${x(lane)} ${mid}`} className="lane dead" fill="none" />);
  }
  let dot;
  if (row.kind === 'prompt') dot = row.prompt.active ? <circle cx={x(row.lane)} cy={mid} r={5} className="dot live" /> : <circle cx={x(row.lane)} cy={mid} r={4.5} className="dot dead" />;
  else if (row.kind === 'branch') dot = <circle cx={x(row.lane)} cy={mid} r={5.5} className="dot dead collapsed" />;
  else if (row.kind === 'fold') dot = null;
  else dot = <rect x={x(row.lane) - 3} y={mid - 3} width={6} height={6} className="dot marker" />;
  return (
    <svg className="lanes" width={width} height={height} aria-hidden>
      {parts}
      {dot}
    </svg>
  );
}
