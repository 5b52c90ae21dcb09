import { useState, type ReactNode } from 'react';
import type { TurnItem, TurnItemBase } from '../../../shared/contract.js';
import { bytes, firstLine, plural, projectPath, relativeIn } from '../format.js';
import { useStore } from '../store/store.js';
import { ToolBody, toolName, toolVerb } from './tool-view.js';
import '../turn-view.css';

type Image = TurnItemBase['images'][number];

export function Images({ images }: { images: Image[] }) {
  if (images.length === 0) return null;
  return (
    <div className="turn-images">
      {images.map((img, i) =>
        img.data ? (
          <a key={i} href={`data:${img.mediaType};base64,${img.data}`} target="_blank" rel="noreferrer" title="Open full size">
            <img src={`data:${img.mediaType};base64,${img.data}`} alt={`Image ${i + 1} (${bytes(img.bytes)})`} />
          </a>
        ) : (
          <span key={i} className="image-placeholder small muted">
            Image, {bytes(img.bytes)}: too large to show here
          </span>
        ),
      )}
    </div>
  );
}

/** A row that opens to show more: the head says what it is in plain words. */
function Collapsible({ label, title, className, error, children, defaultOpen = false }: { label: string; title: ReactNode; className: string; error?: boolean; children: ReactNode; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  return (
    <li className={`turn-item ${className}${error ? ' error' : ''}`}>
      <button type="button" className="item-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="caret" aria-hidden>
          {open ? '▾' : '▸'}
        </span>
        <span className="item-kind">{label}</span>
        <span className="item-title">{title}</span>
        {error && <span className="item-flag">failed</span>}
      </button>
      {open && <div className="item-open">{children}</div>}
    </li>
  );
}

function Item({ item, nested }: { item: TurnItem | TurnItemBase; nested: boolean }) {
  switch (item.kind) {
    case 'text':
      return (
        <li className="turn-item text">
          <div className="said">{item.body}</div>
          <Images images={item.images} />
        </li>
      );
    case 'prompt':
      return (
        <li className="turn-item asked">
          <div className="asked-label small muted">Asked</div>
          <div className="asked-text">{item.body}</div>
        </li>
      );
    case 'thinking':
      return (
        <Collapsible label="Thinking" title={<span className="muted">{firstLine(item.body, 100)}</span>} className="thinking">
          <div className="thinking-text">{item.body}</div>
        </Collapsible>
      );
    case 'command':
      return (
        <li className="turn-item command">
          <span className="item-kind">Command</span> <span className="mono">{firstLine(item.body, 200)}</span>
        </li>
      );
    case 'image':
      return (
        <li className="turn-item image">
          <Images images={item.images} />
        </li>
      );
    case 'subagent':
      return 'subagent' in item && item.subagent && !nested ? <Subagent item={item} /> : <ToolItem item={item} />;
    case 'tool-call':
      return <ToolItem item={item} />;
    default:
      return (
        <Collapsible label={item.isError ? 'Error' : 'Result'} title={<span className="muted">{firstLine(item.body, 100)}</span>} className="result" error={item.isError}>
          <pre className="mono plain-output">{item.body}</pre>
          <Images images={item.images} />
        </Collapsible>
      );
  }
}

function ToolItem({ item }: { item: TurnItem | TurnItemBase }) {
  const cwd = useStore((s) => s.timeline?.session.cwd ?? null);
  const t = item.tool;
  if (!t) return null;
  // Paths as the project sees them: the pane is narrow, the project's folder is in the header.
  const full = relativeIn(cwd, item.title);
  const target = full.startsWith(t.name) ? full.slice(t.name.length).trim() : full;
  const title = t.view === 'other' ? [toolName(t.name), target].filter(Boolean).join(' ') : target || t.name;
  return (
    <Collapsible label={toolVerb(t)} title={<span className="mono" title={item.title}>{title}</span>} className={`tool ${t.view}`} error={item.isError}>
      <ToolBody tool={t.path ? { ...t, path: projectPath(cwd, t.path) } : t} />
      <Images images={item.images} />
    </Collapsible>
  );
}

/** A long text shows its first lines until asked for the rest (a subagent's report can be pages). */
function Clamped({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  const long = text.length > 400 || text.split('\n').length > 6;
  return (
    <>
      <div className={`said${long && !all ? ' clamped' : ''}`}>{text}</div>
      {long && (
        <button type="button" className="link-button" onClick={() => setAll(!all)}>
          {all ? 'Show less' : 'Show all'}
        </button>
      )}
    </>
  );
}

/** A subagent's run as a conversation of its own, nested in the turn: asked, did, reported. */
function Subagent({ item }: { item: TurnItem }) {
  const s = item.subagent!;
  const meta = [s.agentType, s.model, plural(s.messageCount, 'message')].filter(Boolean).join(' · ');
  const report = item.tool?.result;
  return (
    <Collapsible label="Subagent" title={<span>{item.title}</span>} className="subagent" error={item.isError}>
      <div className="subagent-run" aria-label={`Subagent: ${item.title}`}>
        <div className="small muted">{meta}</div>
        {s.note && <p className="small muted">{s.note}</p>}
        {s.items.length === 0 && item.body && (
          <div className="turn-item asked">
            <div className="asked-label small muted">Asked</div>
            <div className="asked-text">{item.body}</div>
          </div>
        )}
        <ItemList items={s.items} nested />
        {s.truncated && <p className="small muted">… more steps in its transcript</p>}
        {report && (
          <div className="subagent-report">
            <div className="small muted">{report.isError ? 'Failed' : 'Reported back'}</div>
            <Clamped text={report.text} />
          </div>
        )}
      </div>
    </Collapsible>
  );
}

function ItemList({ items, nested }: { items: (TurnItem | TurnItemBase)[]; nested: boolean }) {
  return (
    <ol className={`turn-items${nested ? ' nested' : ''}`}>
      {items.map((it, i) => (
        <Item key={i} item={it} nested={nested} />
      ))}
    </ol>
  );
}

/** A prompt's turn: what the agent said, thought (collapsed) and did, each tool for what it is. */
export function TurnView({ uuid }: { uuid: string }) {
  const turn = useStore((s) => s.turns[uuid]);
  if (!turn || turn === 'loading') return <p className="muted">Loading the turn…</p>;
  if ('error' in turn) return <p className="error-text">{turn.error}</p>;
  if (turn.items.length === 0) return <p className="muted">No reply yet.</p>;
  return (
    <>
      <ItemList items={turn.items} nested={false} />
      {turn.truncated && <p className="muted small">… more in the transcript</p>}
    </>
  );
}
