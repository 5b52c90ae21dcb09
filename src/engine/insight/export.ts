import { RewindError } from '../errors.js';
import type { Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import { formatCost } from '../../shared/insight/cost.js';
import { pathTo, pathToEnd, promptParents } from './prompt-tree.js';
import { oneLine } from '../turn/text.js';
import { redact, redactCut } from './redact.js';

/** One item of a turn, as the turn reader gives it (the getTurn contract's items). */
export interface ExportItem {
  kind: 'text' | 'thinking' | 'tool-call' | 'tool-result' | 'subagent' | 'command' | 'other';
  title: string;
  body: string;
  isError?: boolean;
}

export interface ExportInput {
  timeline: Timeline;
  /** The agent's display name (from the registry). */
  agentName: string;
  /** Export only the conversation through this prompt (root to its branch's end); else everything. */
  branch?: string;
  /** The items of each exported prompt's turn, read at the edge. */
  turns: Map<string, ExportItem[]>;
  redact: boolean;
  /** When the export was made (ISO); given, so the output is a pure function of the input. */
  exportedAt: string;
}

export interface ExportResult {
  content: string;
  /** Secrets replaced, by kind. */
  redacted: Record<string, number>;
  prompts: number;
  /** The session's title as the export shows it (redacted when the export is). */
  title: string;
}

/** The prompts an export holds, in the order it shows them. */
export function exportedPrompts(t: Timeline, branch?: string): TimelinePrompt[] {
  if (!branch) return t.prompts;
  const parents = promptParents(t);
  if (!t.prompts.some((p) => p.uuid === branch)) throw new RewindError('NOT_FOUND', `no prompt ${branch} in this session`);
  return [...pathTo(t, branch, parents).slice(0, -1), ...pathToEnd(t, branch, parents)];
}

const label = (p: TimelinePrompt) => (p.number !== null ? `#${p.number}` : `○ ${p.index}`);

function scrubber(on: boolean) {
  const found: Record<string, number> = {};
  const apply = (r: { text: string; found: Record<string, number> }) => {
    for (const [k, n] of Object.entries(r.found)) found[k] = (found[k] ?? 0) + n;
    return r.text;
  };
  const scrub = (s: string) => (on ? apply(redact(s)) : s);
  /** A text someone already cut (a title, a tool's one-line title): a secret's fragment before the `…` goes too. */
  const scrubCut = (s: string) => (on ? apply(redactCut(s)) : s);
  /** A prompt's heading: redacted whole, then cut (a cut first would leave a fragment no pattern matches). */
  const heading = (text: string) => firstLine(scrub(text));
  return { scrub, scrubCut, heading, found };
}

/** The session's title: when it is its first prompt cut to one line, made again from the redacted prompt. */
function titleOf(t: Timeline, scrub: (s: string) => string, scrubCut: (s: string) => string): string {
  const title = t.session.title;
  const from = t.prompts.slice(0, 3).find((p) => oneLine(p.text, title.length) === title);
  return from ? scrubCut(oneLine(scrub(from.text), title.length)) : scrubCut(title);
}

function redactionNote(found: Record<string, number>, on: boolean): string {
  if (!on) return 'Secrets were NOT redacted in this export.';
  const total = Object.values(found).reduce((a, b) => a + b, 0);
  if (!total) return 'Checked for secrets (API keys, tokens, private keys): none found.';
  return `${total} secret${total === 1 ? '' : 's'} redacted: ${Object.entries(found).map(([k, n]) => `${n} ${k}`).join(', ')}.`;
}

const fence = (s: string) => {
  const ticks = '`'.repeat(Math.max(3, ...[...s.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${ticks}\n${s}\n${ticks}`;
};

/** Pure: the session (or one branch of it) as Markdown. */
export function toMarkdown(input: ExportInput): ExportResult {
  const { timeline: t } = input;
  const { scrub, scrubCut, heading, found } = scrubber(input.redact);
  const md = escapeMarkdownHtml;
  const prompts = exportedPrompts(t, input.branch);
  const out: string[] = [];
  const title = titleOf(t, scrub, scrubCut);
  out.push(`# ${md(title)}`, '');
  out.push(`${input.agentName} · ${md(scrub(t.session.cwd ?? 'unknown folder'))} · session \`${t.session.id}\`${input.branch ? ` · branch through ${label(prompts.find((p) => p.uuid === input.branch)!)}` : ''}`);
  out.push(`${prompts.length} prompt${prompts.length === 1 ? '' : 's'}${t.cost ? ` · ${formatCost(t.cost.session)}` : ''} · exported ${input.exportedAt}`, '');
  for (const p of prompts) {
    out.push(`## ${label(p)} ${md(heading(p.text))}${p.active ? '' : ' (abandoned branch)'}`, '');
    out.push(md(scrub(p.text)).split('\n').map((l) => `> ${l}`).join('\n'), '');
    const meta = [p.timestamp, p.turn.model, t.cost?.prompts[p.uuid] ? formatCost(t.cost.prompts[p.uuid]!.turn) : null].filter(Boolean);
    if (meta.length) out.push(`_${meta.join(' · ')}_`, '');
    for (const it of input.turns.get(p.uuid) ?? []) {
      if (it.kind === 'text') out.push(md(scrub(it.body)), '');
      else out.push(`<details><summary>${escapeHtml(scrubCut(itemTitle(it)))}</summary>`, '', fence(scrub(it.body)), '', '</details>', '');
    }
  }
  out.push('---', '', `_${redactionNote(found, input.redact)}_`, '');
  return { content: out.join('\n'), redacted: found, prompts: prompts.length, title };
}

/** Pure: one self-contained HTML file (no external resource): the timeline, then each prompt's turn. */
export function toHtml(input: ExportInput): ExportResult {
  const { timeline: t } = input;
  const { scrub, scrubCut, heading, found } = scrubber(input.redact);
  const prompts = exportedPrompts(t, input.branch);
  const h = (s: string) => escapeHtml(scrub(s));
  const nav = prompts.map((p) => `<li class="${p.active ? 'live' : 'dead'}"><a href="#p${p.index}"><span class="n">${escapeHtml(label(p))}</span> ${escapeHtml(heading(p.text))}</a></li>`).join('\n');
  const sections = prompts
    .map((p) => {
      const items = (input.turns.get(p.uuid) ?? [])
        .map((it) => (it.kind === 'text' ? `<div class="reply">${h(it.body)}</div>` : `<details class="${it.kind}${it.isError ? ' error' : ''}"><summary>${escapeHtml(scrubCut(itemTitle(it)))}</summary><pre>${h(it.body)}</pre></details>`))
        .join('\n');
      const cost = t.cost?.prompts[p.uuid] ? ` · ${escapeHtml(formatCost(t.cost.prompts[p.uuid]!.turn))}` : '';
      return `<section id="p${p.index}" class="${p.active ? 'live' : 'dead'}"><h2><span class="n">${escapeHtml(label(p))}</span>${p.active ? '' : ' <span class="tag">abandoned branch</span>'}</h2><div class="meta">${escapeHtml([p.timestamp, p.turn.model].filter(Boolean).join(' · '))}${cost}</div><blockquote>${h(p.text)}</blockquote>${items}</section>`;
    })
    .join('\n');
  const plainTitle = titleOf(t, scrub, scrubCut);
  const title = escapeHtml(plainTitle);
  const content = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
:root{color-scheme:light dark;--fg:#1d2330;--muted:#5b6472;--bg:#fff;--line:#d9dee6;--accent:#2b59c3;--dead:#7a8494}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ef;--muted:#a3acba;--bg:#15181e;--line:#2c323c;--accent:#8fb2ff;--dead:#8a93a3}}
body{font:15px/1.55 system-ui,sans-serif;color:var(--fg);background:var(--bg);max-width:860px;margin:2rem auto;padding:0 1rem}
h1{font-size:1.5rem;margin:0 0 .25rem}.sub,.meta,.note{color:var(--muted);font-size:.85rem}
nav ol{list-style:none;padding:0;border-left:2px solid var(--line)}nav li{padding:.15rem .6rem}nav li.dead a{color:var(--dead)}
a{color:var(--accent);text-decoration:none}.n{font-family:ui-monospace,monospace;color:var(--muted);margin-right:.4rem}
section{border-top:1px solid var(--line);padding:1rem 0}section.dead{opacity:.85}
.tag{font-size:.75rem;border:1px solid var(--line);border-radius:4px;padding:0 .3rem;color:var(--muted)}
blockquote{margin:.5rem 0;padding:.5rem .8rem;border-left:3px solid var(--accent);white-space:pre-wrap}
.reply{white-space:pre-wrap;margin:.5rem 0}details{margin:.3rem 0;border:1px solid var(--line);border-radius:6px;padding:.2rem .6rem}
details.error{border-color:#c0392b}summary{cursor:pointer;font-family:ui-monospace,monospace;font-size:.85rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font:12px/1.45 ui-monospace,monospace;margin:.4rem 0}
</style></head><body>
<h1>${title}</h1>
<div class="sub">${escapeHtml(input.agentName)} · ${h(t.session.cwd ?? 'unknown folder')} · session <code>${escapeHtml(t.session.id)}</code> · ${prompts.length} prompt${prompts.length === 1 ? '' : 's'}${t.cost ? ` · ${escapeHtml(formatCost(t.cost.session))}` : ''} · exported ${escapeHtml(input.exportedAt)}</div>
<nav><ol>
${nav}
</ol></nav>
${sections}
<p class="note">${escapeHtml(redactionNote(found, input.redact))}</p>
</body></html>
`;
  return { content, redacted: found, prompts: prompts.length, title: plainTitle };
}

function itemTitle(it: ExportItem): string {
  const kind = { 'tool-call': 'Tool', 'tool-result': it.isError ? 'Error' : 'Result', thinking: 'Thinking', subagent: 'Subagent', command: 'Command', other: 'Other', text: '' }[it.kind];
  return it.title && it.title !== kind ? `${kind}: ${it.title}` : kind;
}

function firstLine(s: string): string {
  const l = s.trim().split('\n')[0] ?? '';
  return l.length > 100 ? `${l.slice(0, 99)}…` : l;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * Markdown with the session's raw HTML made inert: Markdown renderers run `<img onerror>` and the
 * like, so every `<` outside code becomes `&lt;`. Code (fenced blocks, `spans`) is shown as written
 * by every renderer: left alone, so code keeps its `<` there.
 */
export function escapeMarkdownHtml(s: string): string {
  const lines = s.split('\n');
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of lines) {
    if (fence !== null) {
      out.push(line);
      if (new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(line)) fence = null;
      continue;
    }
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (open) {
      fence = open[1]!;
      out.push(line);
      continue;
    }
    // Outside a fence: code spans (a run of backticks to the same run) kept, `<` elsewhere escaped.
    out.push(line.replace(/(`+)[\s\S]*?(?<!`)\1(?!`)|</g, (m) => (m === '<' ? '&lt;' : m)));
  }
  return out.join('\n');
}
