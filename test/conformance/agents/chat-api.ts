import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callArgs, callChain, offeredName, type CallStep } from '../call-script.js';

/**
 * A scripted OpenAI Chat Completions API on 127.0.0.1 (what Factory Droid's
 * `generic-chat-completion-api` provider and Qwen Code speak). The reply follows the newest user
 * words, with whatever tool names the CLI offers:
 *   WRITE path text  -> a file-writing tool call (Create / write_file / Write)
 *   BASH command     -> a shell tool call (Execute / run_shell_command / Bash)
 *   CALL tool {json} [THEN tool {json}]...
 *                    -> those tool calls, one per reply, each after the previous one's result
 *                       (`mcp__rewind__search` is called by the name the CLI offers it under;
 *                       `$name` in a later call is the `name` its previous result says)
 *   after a tool result -> "OK: [tool_result]";  anything else -> "OK: " + the words
 * Every completion request is recorded, so a test reads the history the CLI sent to the model.
 * Any other path answers 404 (Droid's `FACTORY_API_BASE_URL` points here too).
 */

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { function?: { name?: string; arguments?: string } }[];
  tool_call_id?: string;
}
export interface ChatRequest {
  model?: string;
  messages?: ChatMessage[];
  tools?: { function?: { name?: string } }[];
  stream?: boolean;
}

export interface ChatApi {
  url: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}

export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (b && typeof b === 'object' && 'text' in b ? String((b as { text: unknown }).text) : '')).join('\n');
  return '';
}

/** The user's own words in a message: reminders the CLIs inject are dropped. */
export function userWords(content: unknown): string {
  const parts = typeof content === 'string' ? [content] : Array.isArray(content) ? content.map((b) => contentText([b])) : [];
  const words = parts.filter((t) => !/^\s*<(system-reminder|environment|context)/.test(t));
  // Copilot puts the time before each prompt's words.
  return words.join('\n').replace(/^\s*<current_datetime>[^<]*<\/current_datetime>/, '').trim();
}

let counter = 0;

function decide(req: ChatRequest): { text?: string; tool?: { name: string; args: Record<string, unknown> } } {
  const msgs = req.messages ?? [];
  const last = msgs[msgs.length - 1];
  const tools = new Set((req.tools ?? []).map((t) => t.function?.name ?? ''));
  if (!last) return { text: 'OK' };
  if (last.role === 'tool') return nextCall(msgs, tools) ?? { text: 'OK: [tool_result]' };
  const text = userWords(last.content);
  const chain = callChain(text);
  if (chain) return { tool: callOf(chain[0]!, '', tools) };
  const m = /(?:^|\s)(WRITE|BASH) (.+)$/s.exec(text);
  if (m) {
    const [, cmd, rest] = m as unknown as [string, string, string];
    const pick = (...names: string[]) => names.find((n) => tools.has(n));
    if (cmd === 'WRITE') {
      const name = pick('Create', 'write_file', 'Write', 'create', 'write');
      const [path, ...words] = rest.trim().split(' ');
      // Copilot's `create` takes `path` and `file_text`; OpenCode's and Kilo's `write` takes `filePath`.
      if (name === 'create') return { tool: { name, args: { path, file_text: `${words.join(' ')}\n` } } };
      if (name) return { tool: { name, args: { [name === 'write' ? 'filePath' : 'file_path']: path, content: `${words.join(' ')}\n` } } };
    } else {
      const name = pick('Execute', 'run_shell_command', 'Bash', 'bash');
      if (name) return { tool: { name, args: name === 'Execute' ? { command: rest.trim(), riskLevel: 'low', riskLevelReason: 'test' } : { command: rest.trim(), description: 'scripted' } } };
    }
  }
  return { text: `OK: ${text.replace(/\s+/g, ' ').slice(0, 40)}` };
}

function callOf(step: CallStep, previous: string, tools: Set<string>): { name: string; args: Record<string, unknown> } {
  return { name: offeredName(step.name, tools), args: callArgs(step, previous) };
}

/** The next call of the CALL script in the newest user words, after the previous call's result. */
function nextCall(msgs: ChatMessage[], tools: Set<string>): { tool: { name: string; args: Record<string, unknown> } } | null {
  let start = msgs.length - 1;
  while (start >= 0 && !(msgs[start]!.role === 'user' && userWords(msgs[start]!.content))) start--;
  if (start < 0) return null;
  const chain = callChain(userWords(msgs[start]!.content));
  if (!chain) return null;
  const done = msgs.slice(start).reduce((n, m) => n + (m.role === 'assistant' ? (m.tool_calls?.length ?? 0) : 0), 0);
  if (done >= chain.length) return null;
  return { tool: callOf(chain[done]!, contentText(msgs[msgs.length - 1]!.content), tools) };
}

function reply(res: ServerResponse, req: ChatRequest): void {
  const id = `chatcmpl-${++counter}`;
  const model = req.model ?? 'fake';
  const d = decide(req);
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const toolCall = d.tool ? { index: 0, id: `call_${counter}`, type: 'function', function: { name: d.tool.name, arguments: JSON.stringify(d.tool.args) } } : null;
  const finish = toolCall ? 'tool_calls' : 'stop';
  if (!req.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message: { role: 'assistant', content: d.text ?? null, ...(toolCall ? { tool_calls: [{ id: toolCall.id, type: 'function', function: toolCall.function }] } : {}) }, finish_reason: finish }], usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta: unknown, finish_reason: string | null, extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`);
  chunk({ role: 'assistant', content: '' }, null);
  if (toolCall) chunk({ tool_calls: [toolCall] }, null);
  else chunk({ content: d.text }, null);
  chunk({}, finish, { usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The FACTORY_API_KEY a Droid TUI is started with against this server (`/api/cli/whoami` accepts it). */
export const DROID_TUI_KEY = 'fk-rewind-tui-test';

export async function startChatApi(): Promise<ChatApi> {
  const requests: ChatRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = (req.url ?? '').split('?')[0]!;
      if (req.method === 'POST' && path.endsWith('/chat/completions')) {
        let body: ChatRequest = {};
        try {
          body = JSON.parse(raw) as ChatRequest;
        } catch {
          // not JSON: answered as an empty request
        }
        requests.push(body);
        reply(res, body);
        return;
      }
      // Droid's TUI checks its FACTORY_API_KEY here before it starts: the live-session test's key passes.
      if (path === '/api/cli/whoami' && req.headers.authorization === `Bearer ${DROID_TUI_KEY}`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"userId":"test-user","orgId":"test-org"}');
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * The conversation a request carried, one line per message: `user: words`, `assistant: text`,
 * `call: tool`, `tool: result`. System messages and injected reminders are left out, so two
 * requests compare by what the model was told happened.
 */
export function chatHistory(req: ChatRequest): string[] {
  const out: string[] = [];
  for (const m of req.messages ?? []) {
    if (m.role === 'system') continue;
    if (m.role === 'user') {
      const w = userWords(m.content);
      if (w) out.push(`user: ${w}`);
    } else if (m.role === 'assistant') {
      const t = contentText(m.content).trim();
      if (t) out.push(`assistant: ${t}`);
      for (const c of m.tool_calls ?? []) out.push(`call: ${c.function?.name ?? '?'}`);
    } else if (m.role === 'tool') out.push('tool: result');
  }
  return out;
}
