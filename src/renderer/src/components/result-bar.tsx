import { useEffect, useState } from 'react';
import { useStore } from '../store/store.js';

async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** After an action: what happened, the resume command, the prompt to retry, and Undo. */
export function ResultBar() {
  const result = useStore((s) => s.result);
  const undo = useStore((s) => s.undo);
  const dismiss = useStore((s) => s.dismissResult);
  const [text, setText] = useState('');
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => setText(result?.revertedText ?? ''), [result?.revertedText]);
  if (!result) return null;
  const resume = result.resumeCommand ?? null;
  const flash = (what: string) => {
    setCopied(what);
    setTimeout(() => setCopied(null), 1500);
  };
  return (
    <div className="result-bar" role="status" aria-label="Result">
      <div className="result-main">
        <strong className="mono">{result.undone ?? result.title}</strong>
        {result.error && <span className="error-text">{result.error}</span>}
        {resume && !result.undone && (
          <button type="button" className="button small" onClick={async () => (await copy(resume)) && flash('resume')}>
            {copied === 'resume' ? 'Copied' : <>Copy <span className="mono">{resume}</span></>}
          </button>
        )}
      </div>
      {result.revertedText && !result.undone && (
        <div className="result-prompt">
          <label htmlFor="reverted-prompt" className="small muted">
            The prompt, to retry or edit
          </label>
          <textarea id="reverted-prompt" value={text} onChange={(e) => setText(e.target.value)} rows={2} />
          <button type="button" className="button small" onClick={async () => (await copy(text)) && flash('prompt')}>
            {copied === 'prompt' ? 'Copied' : 'Copy prompt'}
          </button>
        </div>
      )}
      <div className="result-actions">
        {result.undoable && (
          <button type="button" className="button" onClick={() => void undo()}>
            Undo
          </button>
        )}
        <button type="button" className="button ghost" aria-label="Dismiss" onClick={dismiss}>
          ✕
        </button>
      </div>
    </div>
  );
}
