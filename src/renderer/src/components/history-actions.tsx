import { useStore } from '../store/store.js';

/**
 * On a prompt: "Revert this prompt's changes" (its code changes only, later prompts' kept) and the
 * project's History. Reverting needs Rewind's checkpoint before the prompt (any agent).
 */
export function HistoryActions({ uuid }: { uuid: string }) {
  const openRevert = useStore((s) => s.openRevert);
  const openHistory = useStore((s) => s.openHistory);
  const checkpoint = useStore((s) => s.timeline?.prompts.find((p) => p.uuid === uuid)?.checkpoint ?? null);
  const cwd = useStore((s) => s.timeline?.session.cwd ?? null);
  const why = !cwd
    ? 'This session has no project folder.'
    : !checkpoint
      ? 'No Rewind checkpoint before this prompt: its changes cannot be told apart from the others (install the hooks).'
      : checkpoint.pending
        ? "Rewind's first checkpoint of this project is still being read in the background: its changes can be told apart once it is complete."
        : null;
  return (
    <div className="actions history-actions" role="group" aria-label="This prompt's changes">
      <button type="button" className="button" disabled={!!why} title={why ?? "Take back the code changes this prompt made; later prompts' changes stay"} onClick={() => void openRevert(uuid)}>
        Revert this prompt's changes
      </button>
      <button type="button" className="button" disabled={!cwd} title="Every fork, rewrite, restore, revert, undo and redo in this project" onClick={() => void openHistory()}>
        History
      </button>
      {why && cwd && <span className="small muted">{why}</span>}
    </div>
  );
}
