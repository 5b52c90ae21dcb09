import { useEffect, useRef, useState } from 'react';
import { windowError } from '../../../shared/wording.js';
import { useStore } from '../store/store.js';
import './preview-sheet.css';

async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

const CopyIcon = () => (
  <svg aria-hidden="true" width="14" height="14" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.5">
    <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
    <path d="M10.5 3.5v-1a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h1" />
  </svg>
);
const CheckIcon = () => (
  <svg aria-hidden="true" width="14" height="14" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="2">
    <path d="M3 8.5l3.2 3L13 4.5" />
  </svg>
);

/** A copy button of fixed width: the icon and "Copy" become a check and "Copied" without moving anything. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  return (
    <button
      type="button"
      className="button small copy-button"
      aria-label={copied ? `${label}: copied` : label}
      title={label}
      onClick={async () => {
        if (!(await copy(text))) return;
        setCopied(true);
        if (timer.current) clearTimeout(timer.current);
        timer.current = setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? <CheckIcon /> : <CopyIcon />}
      <span>{copied ? 'Copied' : 'Copy'}</span>
    </button>
  );
}

function PromptBox({ index, initial }: { index: number; initial: string }) {
  const [text, setText] = useState(initial);
  useEffect(() => setText(initial), [initial]);
  const id = `reverted-prompt-${index}`;
  return (
    <div className="result-prompt-box">
      <textarea id={id} aria-label={`Prompt ${index + 1} to retry or edit`} value={text} onChange={(e) => setText(e.target.value)} rows={Math.min(4, Math.max(1, text.split('\n').length))} />
      <CopyButton text={text} label={`Copy prompt ${index + 1}`} />
    </div>
  );
}

/**
 * After an action: what happened, the resume command, each prompt handed back to edit, and Undo.
 * The bar's Undo takes back the action it names at once (Redo is its way back); Ctrl/Cmd+Z and the
 * palette, which name nothing, say what they would take back first (undo-slice's askUndo).
 */
export function ResultBar() {
  const result = useStore((s) => s.result);
  const undo = useStore((s) => s.undo);
  const redo = useStore((s) => s.redo);
  const dismiss = useStore((s) => s.dismissResult);
  const bar = useRef<HTMLDivElement>(null);
  // A new result takes the focus: the resume command's Copy, else Undo (after an Undo the row has it).
  const title = result?.title;
  const undone = !!result?.undone;
  useEffect(() => {
    if (!title || undone) return;
    const el = bar.current?.querySelector<HTMLElement>('.result-resume .copy-button') ?? bar.current?.querySelector<HTMLElement>('.undo-button:not(:disabled)');
    el?.focus();
  }, [title, undone]);
  if (!result) return null;
  const resume = result.resumeCommand;
  const showPrompts = result.handedBack.length > 0 && !result.undone;
  const err = result.error ? windowError(result.error.code, result.error.message, 'Undo') : null;
  const n = result.handedBack.length;
  const promptsLabel = n === 1 ? 'The prompt, to retry or edit' : `${n} prompts, to retry or edit (oldest first)`;
  const all = [resume, ...(showPrompts ? result.handedBack : [])].filter(Boolean).join('\n\n');
  return (
    <div className="result-bar result-grid" role="status" aria-label="Result" ref={bar}>
      <div className="result-main">
        <strong>{result.undone ?? result.title}</strong>
        {err && (
          <span className="error-text" role="alert">
            {err.text}
          </span>
        )}
        {err?.actions
          .filter((a) => a.action === 'force')
          .map((a) => (
            <button key={a.action} type="button" className="button small danger" onClick={() => void undo(true)}>
              {a.label}
            </button>
          ))}
        {resume && !result.undone && (
          <div className="result-resume">
            <code className="mono" aria-label="Resume command">
              {resume}
            </code>
            <CopyButton text={resume} label="Copy the resume command" />
          </div>
        )}
      </div>
      {showPrompts && (
        // One prompt: its box. More: folded, so the bar stays a bar; each box still its own Copy.
        <details className="result-prompts" open={n === 1} aria-label={promptsLabel}>
          <summary className="small muted">{promptsLabel}</summary>
          {result.handedBack.map((t, i) => (
            <PromptBox key={`${result.title}-${i}`} index={i} initial={t} />
          ))}
        </details>
      )}
      <div className="result-actions">
        {all && (resume ? 1 : 0) + (showPrompts ? n : 0) > 1 && <CopyAll text={all} />}
        {/* Always in place: disabled once used, so nothing shifts under the pointer. */}
        <button type="button" className="button undo-button" disabled={!result.undoable} title={result.undoable ? 'Undo this action (chat and code together) · Ctrl/Cmd+Z' : result.undone ? 'Already undone' : 'Nothing to undo here'} onClick={() => void undo()}>
          Undo
        </button>
        {result.undone && (
          <button type="button" className="button" title="Put the undone action back · Shift+Ctrl/Cmd+Z" onClick={() => void redo()}>
            Redo
          </button>
        )}
        <button type="button" className="button ghost" aria-label="Dismiss" onClick={dismiss}>
          ✕
        </button>
      </div>
    </div>
  );
}

/** The resume command and every handed-back prompt, in one copy. */
function CopyAll({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="button copy-all"
      aria-label={copied ? 'Copy all: copied' : 'Copy all'}
      title="The resume command and every prompt, one after another"
      onClick={async () => {
        if (await copy(text)) {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        }
      }}
    >
      {copied ? 'Copied' : 'Copy all'}
    </button>
  );
}
