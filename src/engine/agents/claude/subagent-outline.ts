import { readLines } from '../../io/read-lines.js';
import type { SubagentRun } from './model.js';

const MAX_STEPS = 60;
const MAX_TEXT = 300;

function target(input: Record<string, unknown>): string {
  for (const k of ['file_path', 'command', 'pattern', 'path', 'description', 'url']) if (typeof input[k] === 'string') return String(input[k]);
  return '';
}

const oneLine = (s: string, max: number) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/**
 * What a subagent did, from its own transcript: each tool call on a line, and what it said last.
 * Read when the user opens the turn, never kept.
 */
export async function subagentOutline(run: SubagentRun): Promise<string> {
  const head = [`${run.agentType ?? 'subagent'}${run.description ? `: ${run.description}` : ''}`, `${run.messageCount} messages${run.transcriptPath ? ` in ${run.transcriptPath}` : ' (inline in this transcript)'}`];
  if (!run.transcriptPath) return head.join('\n');
  const steps: string[] = [];
  let more = 0;
  let lastText = '';
  await readLines(run.transcriptPath, (line) => {
    let e: { type?: string; message?: { content?: unknown } };
    try {
      e = JSON.parse(line.bytes.toString('utf8'));
    } catch {
      return;
    }
    if (e.type !== 'assistant' || !Array.isArray(e.message?.content)) return;
    for (const b of e.message.content as Record<string, unknown>[]) {
      if (b.type === 'text' && typeof b.text === 'string' && b.text.trim()) lastText = b.text;
      if (b.type !== 'tool_use') continue;
      if (steps.length >= MAX_STEPS) more++;
      else steps.push(`  ${String(b.name ?? 'tool')} ${oneLine(target((b.input ?? {}) as Record<string, unknown>), 120)}`.trimEnd());
    }
  }).catch(() => head.push('(its transcript could not be read)'));
  return [...head, ...(steps.length ? ['', 'Tool calls:', ...steps] : []), ...(more ? [`  … ${more} more`] : []), ...(lastText ? ['', `Said last: ${oneLine(lastText, MAX_TEXT)}`] : [])].join('\n');
}
