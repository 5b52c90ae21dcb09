import { createTwoFilesPatch } from 'diff';
import { useMemo } from 'react';
import type { ToolView as Tool } from '../../../shared/contract.js';
import { parseFilePatch } from '../code/patch.js';
import { plural } from '../format.js';
import { CodeBlock, Output } from './code-block.js';
import { DiffView } from './diff-view.js';

/** What a tool did, in a word: the label before its target. */
export function toolVerb(t: Tool): string {
  switch (t.view) {
    case 'write':
      return 'Wrote';
    case 'edit':
      return 'Edited';
    case 'bash':
      return 'Ran';
    case 'read':
      return 'Read';
    case 'search':
      return 'Searched';
    case 'patch':
      return 'Patched';
    default:
      return 'Called';
  }
}

/** A tool's name as people read it: "mcp__github__create_issue" is "github · create_issue". */
export const toolName = (name: string): string => name.replace(/^mcp__/, '').replace(/__/g, ' · ');

function EditDiff({ path, oldText, newText }: { path: string; oldText: string; newText: string }) {
  const parsed = useMemo(() => parseFilePatch(createTwoFilesPatch(path, path, `${oldText}\n`, `${newText}\n`, '', '', { context: 1000 })), [path, oldText, newText]);
  return <DiffView path={path} parsed={parsed} numbers={false} />;
}

/** The input of a tool we have no view for: each field on its own, texts as they are (no escaped \n). */
function InputFields({ input }: { input: string }) {
  let fields: [string, unknown][] | null = null;
  try {
    const v = JSON.parse(input) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) fields = Object.entries(v);
  } catch {
    // free-form input
  }
  if (!fields) return <Output text={input} label="Input" />;
  return (
    <dl className="input-fields">
      {fields.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{typeof v === 'string' ? <pre className="mono">{v}</pre> : <pre className="mono">{JSON.stringify(v, null, 2)}</pre>}</dd>
        </div>
      ))}
    </dl>
  );
}

function PatchText({ text }: { text: string }) {
  return (
    <pre className="patch-text mono" aria-label="Patch">
      {text.split('\n').map((l, i) => (
        <div key={i} className={l.startsWith('+') && !l.startsWith('+++') ? 'add' : l.startsWith('-') && !l.startsWith('---') ? 'del' : l.startsWith('***') ? 'head' : ''}>
          {l || ' '}
        </div>
      ))}
    </pre>
  );
}

/** A tool call drawn for what it is, with its result. */
export function ToolBody({ tool }: { tool: Tool }) {
  const r = tool.result;
  const failed = r?.isError ? <Output text={r.text} label="Error" className="error" /> : null;
  switch (tool.view) {
    case 'write':
      return (
        <div className="tool-body">
          <div className="file-caption">
            <span className="mono">{tool.path}</span> <span className="muted small">{plural((tool.content ?? '').replace(/\n$/, '').split('\n').length, 'line')}</span>
          </div>
          <CodeBlock path={tool.path} text={tool.content ?? ''} label={`Content written to ${tool.path ?? 'the file'}`} />
          {failed}
        </div>
      );
    case 'edit':
      return (
        <div className="tool-body">
          {tool.edits.map((e, i) => (
            <EditDiff key={i} path={tool.path ?? 'file'} oldText={e.oldText} newText={e.newText} />
          ))}
          {failed}
        </div>
      );
    case 'bash':
      return (
        <div className="tool-body">
          {tool.description && <div className="muted small">{tool.description}</div>}
          <div className="terminal mono" aria-label="Terminal">
            <div className="terminal-command">
              <span className="prompt-sign" aria-hidden>
                $
              </span>{' '}
              {tool.command}
            </div>
            {r && <pre className={`terminal-output${r.isError ? ' error' : ''}`}>{r.text || '(no output)'}</pre>}
          </div>
        </div>
      );
    case 'read':
    case 'search':
      return (
        <div className="tool-body">
          <div className="file-caption">
            {tool.view === 'search' && <span className="mono pattern">{tool.command}</span>}
            {tool.path && <span className="mono">{tool.view === 'search' ? ` in ${tool.path}` : tool.path}</span>}
          </div>
          {r && (r.isError ? failed : tool.view === 'read' ? <CodeBlock path={tool.path} text={r.text.replace(/^ *\d+[→\t]/gm, '')} label={`Preview of ${tool.path ?? 'the file'}`} /> : <Output text={r.text} label="Matches" />)}
        </div>
      );
    case 'patch':
      return (
        <div className="tool-body">
          <PatchText text={tool.command ?? ''} />
          {r && <Output text={r.text} label="Output" className={r.isError ? 'error' : ''} />}
        </div>
      );
    default:
      return (
        <div className="tool-body">
          {tool.input && <InputFields input={tool.input} />}
          {r && <Output text={r.text} label={r.isError ? 'Error' : 'Output'} className={r.isError ? 'error' : ''} />}
        </div>
      );
  }
}
