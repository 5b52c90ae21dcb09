import { RowCost } from './insight.js';
import { checkpointTitle } from '../../../shared/wording.js';
import { memo } from 'react';
import { duration, firstLine, plural, tokens } from '../format.js';
import type { Layout, Row } from '../rows.js';
import { LaneGraph } from './lane-graph.js';
import { When } from './when.js';

export const ROW_HEIGHT = 56;

interface Props {
  layout: Layout;
  index: number;
  row: Row;
  selected: boolean;
  now: number;
  onSelect: (uuid: string) => void;
  onOpen: (uuid: string) => void;
  onToggleBranch: (branch: string) => void;
  onOpenFold: (fold: string) => void;
  /** For an abandoned prompt: the live number of the prompt its branch left from. */
  branchPointNumber: number | null;
  onJumpToBranchPoint: (uuid: string) => void;
}

export const TimelineRow = memo(function TimelineRow({ layout, index, row, selected, now, onSelect, onOpen, onToggleBranch, onOpenFold, branchPointNumber, onJumpToBranchPoint }: Props) {
  if (row.kind === 'branch' || row.kind === 'fold') {
    const label = row.kind === 'branch' ? `Abandoned branch · ${plural(row.prompts, 'prompt')}` : `+${plural(row.branches.length, 'branch')} · ${plural(row.prompts, 'prompt')}`;
    const act = () => (row.kind === 'branch' ? onToggleBranch(row.branch) : onOpenFold(row.fold));
    return (
      <div
        role="option"
        aria-selected={selected}
        aria-expanded={false}
        id={`row-${row.key.replace(':', '-')}`}
        data-key={row.key}
        className={`row prompt-row dead collapsed-row${selected ? ' selected' : ''}`}
        style={{ height: ROW_HEIGHT }}
        onClick={() => onSelect(row.key)}
        onDoubleClick={act}
      >
        <LaneGraph layout={layout} index={index} row={row} height={ROW_HEIGHT} />
        <span className="num" />
        <div className="prompt-main">
          <div className="prompt-text">{row.kind === 'branch' ? firstLine(row.text || '[image]', 160) : 'More branches than the graph shows'}</div>
          <div className="prompt-meta">
            <span
              className="wg-expand"
              onClick={(e) => {
                e.stopPropagation();
                act();
              }}
            >
              ▸ {label}
            </span>
          </div>
        </div>
      </div>
    );
  }
  if (row.kind === 'compaction') {
    return (
      <div className="row marker-row" style={{ height: ROW_HEIGHT }}>
        <LaneGraph layout={layout} index={index} row={row} height={ROW_HEIGHT} />
        <div className="compaction">
          <span>Compacted here{row.preTokens ? ` · ${tokens(row.preTokens)} tokens summarized` : ''}</span>
        </div>
      </div>
    );
  }
  if (row.kind === 'command') {
    return (
      <div className="row marker-row" style={{ height: ROW_HEIGHT }}>
        <LaneGraph layout={layout} index={index} row={row} height={ROW_HEIGHT} />
        <span className="command-chip">{row.name}</span>
        {row.args && <span className="muted small">{firstLine(row.args, 60)}</span>}
      </div>
    );
  }
  const p = row.prompt;
  const tools = p.turn.toolCalls.length;
  const files = p.turn.filesTouched.length;
  const native = p.nativeCheckpoint;
  const subagents = p.turn.toolCalls.filter((c) => c.name === 'Agent' || c.name === 'Task').length;
  return (
    <div
      role="option"
      aria-selected={selected}
      id={`prompt-${p.uuid}`}
      data-uuid={p.uuid}
      className={`row prompt-row${p.active ? '' : ' dead'}${selected ? ' selected' : ''}`}
      style={{ height: ROW_HEIGHT }}
      onClick={() => onSelect(p.uuid)}
      onDoubleClick={() => onOpen(p.uuid)}
    >
      <LaneGraph layout={layout} index={index} row={row} height={ROW_HEIGHT} />
      <span className="num">{p.number ?? ''}</span>
      <div className="prompt-main">
        <div className="prompt-text">{firstLine(p.text || (p.images ? '[image]' : ''), 160)}</div>
        <div className="prompt-meta">
          {!p.active && (
            // First and never shrunk: the way back to the branch point and the collapse stay visible on a narrow row.
            <span className="wg-branch-controls">
              <span className="chip dead-chip">abandoned branch</span>
              {branchPointNumber !== null && (
                <span
                  className="wg-jump"
                  title="Jump to the prompt this branch left from (P; Backspace comes back)"
                  onClick={(e) => {
                    e.stopPropagation();
                    onJumpToBranchPoint(p.uuid);
                  }}
                >
                  ↰ from #{branchPointNumber}
                </span>
              )}
              {row.branch && layout.branches.get(row.branch)?.prompts[0] === p.uuid && (
                <span
                  className="wg-expand"
                  onClick={(e) => {
                    e.stopPropagation();
                    onToggleBranch(row.branch!);
                  }}
                >
                  ▾ collapse
                </span>
              )}
            </span>
          )}
          <When iso={p.timestamp} now={now} />
          {tools > 0 && <span>{plural(tools, 'tool')}</span>}
          {files > 0 && <span title={p.turn.filesTouched.join('\n')}>{plural(files, 'file')}</span>}
          {subagents > 0 && <span className="chip">{plural(subagents, 'subagent')}</span>}
          <RowCost uuid={p.uuid} />
          {p.turn.durationMs !== null && p.turn.durationMs > 0 && <span>{duration(p.turn.durationMs)}</span>}
        </div>
      </div>
      <div className="markers">
        {p.checkpoint && (
          <span
            className={`marker ours${p.checkpoint.later ? ' later' : ''}${p.checkpoint.pending ? ' pending' : ''}`}
            title={checkpointTitle(p.checkpoint, new Date(p.checkpoint.time).toLocaleString())}
            aria-label={p.checkpoint.pending ? 'Rewind checkpoint in progress' : p.checkpoint.later ? 'Rewind checkpoint taken later' : 'Rewind checkpoint'}
          >
            {p.checkpoint.pending ? '◈' : '◆'}
          </span>
        )}
        {native && (
          <span className="marker native" title={`The agent's own checkpoint: ${native.files.map((f) => f.path).join(', ') || 'no file yet'} (only files it edited with its tools; shell-made changes are not covered)`} aria-label="Agent checkpoint">
            ◇
          </span>
        )}
      </div>
    </div>
  );
});
