import { useEffect, useState } from 'react';
import { firstLine } from '../format.js';
import '../insight.css';
import { useStore } from '../store/store.js';

// Not on the first screen: compare and export (their own chunk, loaded once the list is shown).

/** Compare and export, for the selected prompt. */
export function InsightActions({ uuid }: { uuid: string }) {
  const startCompare = useStore((s) => s.startCompare);
  const label = useStore((s) => {
    const p = s.timeline?.prompts.find((x) => x.uuid === uuid);
    return p ? `${p.number ? `#${p.number}` : 'the abandoned prompt'} “${firstLine(p.text, 40)}”` : '';
  });
  const exportSession = useStore((s) => s.exportSession);
  const message = useStore((s) => s.exportMessage);
  return (
    <div className="insight-actions" role="group" aria-label="Compare and export">
      <button type="button" className="button" title="Pick another prompt to see both side by side, with their code" onClick={() => startCompare(uuid, label)}>
        Compare with…
      </button>
      <button type="button" className="button" title="This prompt's branch as Markdown (secrets redacted)" onClick={() => void exportSession('md', uuid)}>
        Export branch (.md)
      </button>
      <button type="button" className="button" title="The whole session as one HTML file (secrets redacted)" onClick={() => void exportSession('html')}>
        Export session (.html)
      </button>
      <ExportProgress />
      {message && (
        <p className="small muted" role="status">
          {message}
        </p>
      )}
    </div>
  );
}

/** An export on its way: what, for how long so far, the service's count of turns read (a bar that fills), and Cancel, which stops it there. */
export function ExportProgress() {
  const job = useStore((s) => s.exporting);
  const cancel = useStore((s) => s.cancelExport);
  const [, tick] = useState(0);
  useEffect(() => {
    if (!job) return;
    const t = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, [job]);
  if (!job) return null;
  const secs = Math.floor((Date.now() - job.started) / 1000);
  return (
    <div className="export-progress" role="status" aria-label="Export">
      <span className="small">
        Exporting {job.what}… {job.progress ? `${job.progress.message} · ` : ''}
        {secs > 0 ? `${secs} s` : ''}
      </span>
      {job.progress?.fraction != null ? (
        <progress className="export-bar" max={1} value={job.progress.fraction} aria-label="Turns read" />
      ) : (
        <span className="progress-indeterminate" aria-hidden />
      )}
      <button type="button" className="button small" onClick={cancel}>
        Cancel
      </button>
    </div>
  );
}

/** While a first prompt is picked: pick the second (here, or in another session such as a fork). */
export function CompareBanner() {
  const from = useStore((s) => s.compareFrom);
  // Strings, not an object: a selector must return the same value while nothing changed.
  const targetUuid = useStore((s) => (s.selectedPrompt && !(s.selectedPrompt === s.compareFrom?.uuid && s.selectedSession === s.compareFrom?.session) ? s.selectedPrompt : null));
  const targetLabel = useStore((s) => {
    const p = s.timeline?.prompts.find((x) => x.uuid === targetUuid);
    return p ? `${p.number ? `#${p.number}` : 'the abandoned prompt'} “${firstLine(p.text, 30)}”` : null;
  });
  const target = targetUuid && targetLabel ? { uuid: targetUuid, label: targetLabel } : null;
  const compareWith = useStore((s) => s.compareWith);
  const cancel = useStore((s) => s.cancelCompare);
  if (!from) return null;
  return (
    <div className="compare-banner" role="status" aria-label="Compare">
      <span>
        Comparing from {from.label}. Select a prompt here or in another session (a fork, its original), then:
      </span>
      <button type="button" className="button small primary" disabled={!target} onClick={() => target && void compareWith(target.uuid)}>
        {target ? `Compare with ${target.label}` : 'Compare with…'}
      </button>
      <button type="button" className="button small" onClick={cancel}>
        Cancel
      </button>
    </div>
  );
}
