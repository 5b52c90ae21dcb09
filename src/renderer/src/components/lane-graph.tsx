import type { Layout, Row } from '../rows.js';

const COL = 16;

/** The git-graph column of one row: lane lines, the row's dot, the fork curve of a dead branch. */
export function LaneGraph({ layout, index, row, height }: { layout: Layout; index: number; row: Row; height: number }) {
  const width = layout.lanes * COL + 8;
  const mid = height / 2;
  const x = (lane: number) => 8 + lane * COL;
  return (
    <svg className="lanes" width={width} height={height} aria-hidden>
      {layout.spans.map((s, lane) => {
        if (s.first === -1 || index < s.first || index > s.last) return null;
        const top = index === s.first ? mid : 0;
        const bottom = index === s.last ? mid : height;
        return <line key={lane} x1={x(lane)} x2={x(lane)} y1={top} y2={bottom} className={lane === 0 ? 'lane live' : 'lane dead'} />;
      })}
      {row.lane > 0 && index === layout.spans[row.lane]!.first && <path d={`M ${x(0)} 0 C ${x(0)} ${mid}, ${x(row.lane)} 0, ${x(row.lane)} ${mid}`} className="lane dead" fill="none" />}
      {row.kind === 'prompt' ? (
        row.prompt.active ? (
          <circle cx={x(row.lane)} cy={mid} r={5} className="dot live" />
        ) : (
          <circle cx={x(row.lane)} cy={mid} r={4.5} className="dot dead" />
        )
      ) : (
        <rect x={x(row.lane) - 3} y={mid - 3} width={6} height={6} className="dot marker" />
      )}
    </svg>
  );
}
