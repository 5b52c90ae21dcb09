import type { Timeline, TimelinePrompt } from '../../../shared/session-schema.js';
import { splitJsonl, obj, str, num, type JsonlLine } from '../jsonl.js';
import { addToolCall, closeTurn, promptRow, timelineDoc, titleOf } from '../timeline-parts.js';

/**
 * Factory Droid sessions (`~/.factory/sessions/<cwd with / as ->/<id>.jsonl`, FORMATS.md §2b):
 * a `session_start` line, then `message` lines holding Anthropic-style content blocks, and
 * `agent_turn_outcome` lines. Droid resumes by replaying the file in order (it ignores
 * `parentId`), so the timeline is linear: every prompt is on the live path.
 */

export interface DroidHead {
  id: string | null;
  title: string | null;
  cwd: string | null;
  version: string | null;
  parent: string | null;
  forkedAtMessageId: string | null;
}

export function isDroidHead(v: Record<string, unknown> | null): boolean {
  return !!v && v.type === 'session_start' && typeof v.id === 'string';
}

export function droidHead(v: Record<string, unknown>): DroidHead {
  return {
    id: str(v.id),
    title: str(v.title),
    cwd: str(v.cwd),
    version: v.version === undefined ? null : String(v.version),
    parent: str(v.parent),
    forkedAtMessageId: str(v.forkedAtMessageId),
  };
}

type Block = Record<string, unknown>;
const blocks = (content: unknown): Block[] => (Array.isArray(content) ? content.filter((b): b is Block => !!b && typeof b === 'object') : typeof content === 'string' ? [{ type: 'text', text: content }] : []);

/**
 * A human prompt: a user message with text and no tool result. The first message of a session is
 * context Droid injects (id `context-…`, tool lists in a system reminder): never a prompt.
 */
export function droidPromptText(line: Record<string, unknown>): { text: string; images: number } | null {
  if (line.type !== 'message') return null;
  const id = str(line.id) ?? '';
  const m = obj(line.message);
  if (m.role !== 'user' || id.startsWith('context-')) return null;
  const bs = blocks(m.content);
  if (bs.some((b) => b.type === 'tool_result')) return null;
  const texts = bs.filter((b) => b.type === 'text').map((b) => String(b.text ?? ''));
  const images = bs.filter((b) => b.type === 'image').length;
  if (texts.length === 0 && images === 0) return null;
  // A context message without the id prefix (older builds): only reminders, no words of the user.
  if (texts.every((t) => t.trimStart().startsWith('<system-reminder>')) && images === 0) return null;
  const words = texts.filter((t) => !t.trimStart().startsWith('<system-reminder>'));
  return { text: words.join('\n'), images };
}

export interface DroidParse {
  head: DroidHead | null;
  lines: JsonlLine[];
  /** Prompts in file order with the line each starts on. */
  prompts: TimelinePrompt[];
  messages: number;
  issues: Timeline['issues'];
  first: string | null;
  last: string | null;
  model: string | null;
}

export function parseDroidBuffer(buf: Buffer): DroidParse {
  const { lines } = splitJsonl(buf);
  let head: DroidHead | null = null;
  const prompts: TimelinePrompt[] = [];
  const issues: Timeline['issues'] = [];
  let messages = 0;
  let first: string | null = null;
  let last: string | null = null;
  let turnLast: string | null = null;
  let model: string | null = null;
  for (const line of lines) {
    const v = line.value;
    if (!v) {
      if (line.length > 0) issues.push({ line: line.index + 1, offset: line.offset, reason: line.reason ?? 'unreadable' });
      continue;
    }
    if (v.type === 'session_start') {
      head ??= droidHead(v);
      continue;
    }
    if (v.type !== 'message') continue;
    messages++;
    const ts = str(v.timestamp);
    if (ts) {
      first ??= ts;
      last = ts;
    }
    const prompt = droidPromptText(v);
    if (prompt) {
      closeTurn(prompts[prompts.length - 1], turnLast);
      const n = prompts.length + 1;
      prompts.push(promptRow({ uuid: str(v.id) ?? `droid:${line.offset}`, index: n, number: n, text: prompt.text, images: prompt.images, timestamp: ts, offset: line.offset, length: line.length, line: line.index, parentUuid: str(v.parentId) }));
      turnLast = ts;
      continue;
    }
    const turn = prompts[prompts.length - 1]?.turn;
    if (!turn) continue;
    const m = obj(v.message);
    turn.messageCount++;
    if (ts) turnLast = ts;
    if (m.role === 'assistant') {
      turn.assistantMessages++;
      model = str(m.modelId) ?? model;
      for (const b of blocks(m.content)) if (b.type === 'tool_use') addToolCall(turn, str(b.name) ?? 'tool', obj(b.input));
      const usage = obj(m.usage);
      turn.inputTokens += num(usage.input_tokens);
      turn.outputTokens += num(usage.output_tokens);
    }
  }
  closeTurn(prompts[prompts.length - 1], turnLast);
  return { head, lines, prompts, messages, issues, first, last, model };
}

/** The timeline document of a Droid session. `settings` is its `.settings.json`, when read. */
export function droidTimeline(buf: Buffer, path: string, settings: Record<string, unknown> | null = null): Timeline {
  const p = parseDroidBuffer(buf);
  return timelineDoc({
    session: {
      id: p.head?.id ?? path.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, ''),
      agent: 'droid',
      title: titleOf(p.prompts, p.head?.title),
      cwd: p.head?.cwd ?? null,
      transcriptPath: path,
      version: null,
      gitBranch: null,
      sizeBytes: buf.length,
      firstTimestamp: p.first,
      lastTimestamp: p.last,
      readOnly: null,
      model: str(settings?.model) ?? p.model,
      tokens: settingsTokens(settings),
    },
    prompts: p.prompts,
    activeLeaf: null,
    lines: p.lines.length,
    messages: p.messages,
    issues: p.issues,
  });
}

function settingsTokens(settings: Record<string, unknown> | null): { input: number; output: number } | null {
  const u = obj(settings?.tokenUsage);
  if (!settings || (u.inputTokens === undefined && u.outputTokens === undefined)) return null;
  return { input: num(u.inputTokens) + num(u.cacheReadTokens) + num(u.cacheCreationTokens), output: num(u.outputTokens) };
}
