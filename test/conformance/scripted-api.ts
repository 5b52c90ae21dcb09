import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callArgs, callChain, type CallStep } from './call-script.js';

/**
 * A scripted Anthropic Messages API on 127.0.0.1. Each reply is decided by a small script read
 * from the newest user turn:
 *   WRITE path text      -> a Write tool call
 *   EDIT path old new    -> an Edit tool call
 *   BASH command         -> a Bash tool call
 *   SPAWN path           -> an Agent tool call whose subagent writes `path`
 *   CALL tool {json} [THEN tool {json}]...
 *                        -> those tool calls, one per reply, each after the previous one's result;
 *                           `$name` in a later call's JSON is the `name: value` its previous result says
 *   after a tool_result  -> "OK: [tool_result]"
 *   anything else        -> "OK: " + the start of the text
 * Every request body is recorded so a test can read the history the CLI sent to the model.
 */

type Block = Record<string, unknown> & { type: string };
export interface ApiMessage {
  role: 'user' | 'assistant' | 'system';
  content: string | Block[];
}
export interface RecordedRequest {
  path: string;
  body: { model?: string; messages?: ApiMessage[]; tools?: { name: string }[]; stream?: boolean; system?: unknown };
}

export interface ScriptedApi {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

let toolCounter = 0;
const toolId = () => `toolu_${(++toolCounter).toString().padStart(4, '0')}${randomBytes(6).toString('hex')}`;

export function textOf(content: string | Block[]): string {
  if (typeof content === 'string') return content;
  return content
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text))
    .join('\n');
}

/** The reply content blocks for a request, following the script. */
export function decideReply(body: RecordedRequest['body']): Block[] {
  const messages = (body.messages ?? []).filter((m) => m.role !== 'system');
  const last = messages[messages.length - 1];
  const tools = new Set((body.tools ?? []).map((t) => t.name));
  if (!last || last.role !== 'user') return [{ type: 'text', text: 'OK' }];
  if (Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result')) return nextCall(messages) ?? [{ type: 'text', text: 'OK: [tool_result]' }];
  // The CLI adds reminders as text blocks of their own: the user's words are the last other one.
  const blocks = typeof last.content === 'string' ? [last.content] : last.content.filter((b) => b.type === 'text').map((b) => String(b.text));
  const words = blocks.filter((b) => !b.trimStart().startsWith('<system-reminder>'));
  const text = (words[words.length - 1] ?? blocks[blocks.length - 1] ?? '').trim();
  const chain = callChain(text);
  if (chain) return [callBlock(chain[0]!, '')];
  const m = /(?:^|\s)(WRITE|EDIT|BASH|SPAWN) (.+)$/s.exec(text);
  if (m) {
    const [, cmd, rest] = m as unknown as [string, string, string];
    if (cmd === 'WRITE' && tools.has('Write')) {
      const [path, ...words] = rest.split(' ');
      return [{ type: 'tool_use', id: toolId(), name: 'Write', input: { file_path: path, content: `${words.join(' ')}\n` } }];
    }
    if (cmd === 'EDIT' && tools.has('Edit')) {
      const [path, oldString, newString] = rest.split(' ');
      return [{ type: 'tool_use', id: toolId(), name: 'Edit', input: { replace_all: false, file_path: path, old_string: oldString, new_string: newString } }];
    }
    if (cmd === 'BASH' && tools.has('Bash')) {
      return [{ type: 'tool_use', id: toolId(), name: 'Bash', input: { command: rest, description: 'Run the scripted command' } }];
    }
    const agentTool = tools.has('Agent') ? 'Agent' : tools.has('Task') ? 'Task' : null;
    if (cmd === 'SPAWN' && agentTool) {
      const path = rest.split(' ')[0];
      return [
        {
          type: 'tool_use',
          id: toolId(),
          name: agentTool,
          input: { description: 'helper task', prompt: `Please create the file ${path} with a greeting. WRITE ${path} hello-from-subagent`, subagent_type: 'general-purpose' },
        },
      ];
    }
  }
  return [{ type: 'text', text: `OK: ${text.replace(/\s+/g, ' ').slice(0, 40)}` }];
}

function callBlock(step: CallStep, previous: string): Block {
  return { type: 'tool_use', id: toolId(), name: step.name, input: callArgs(step, previous) };
}

/** The next call of the CALL script the newest user words hold, after the result of the previous one. */
function nextCall(messages: ApiMessage[]): Block[] | null {
  let start = -1;
  for (let i = messages.length - 1; i >= 0 && start === -1; i--) {
    const m = messages[i]!;
    if (m.role === 'user' && (typeof m.content === 'string' || m.content.some((b) => b.type === 'text' && !String(b.text).trimStart().startsWith('<system-reminder>')))) start = i;
  }
  if (start === -1) return null;
  const content = messages[start]!.content;
  const words = typeof content === 'string' ? content : content.filter((b) => b.type === 'text' && !String(b.text).trimStart().startsWith('<system-reminder>')).map((b) => String(b.text)).pop() ?? '';
  const chain = callChain(words.trim());
  if (!chain) return null;
  const done = messages.slice(start).filter((m) => m.role === 'assistant' && Array.isArray(m.content)).flatMap((m) => (m.content as Block[]).filter((b) => b.type === 'tool_use')).length;
  if (done >= chain.length) return null;
  const last = messages[messages.length - 1]!.content as Block[];
  const result = last.filter((b) => b.type === 'tool_result').map((b) => (typeof b.content === 'string' ? b.content : textOf(b.content as Block[]))).join('\n');
  return [callBlock(chain[done]!, result)];
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function streamReply(res: ServerResponse, model: string, blocks: Block[]): void {
  const id = `msg_${randomBytes(12).toString('hex')}`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'request-id': `req_${id}` });
  sse(res, 'message_start', {
    type: 'message_start',
    message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 20, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
  });
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
    } else {
      sse(res, 'content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      const json = JSON.stringify(b.input);
      const mid = Math.floor(json.length / 2);
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, mid) } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(mid) } });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startScriptedApi(): Promise<ScriptedApi> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = (req.url ?? '').split('?')[0]!;
      let body: RecordedRequest['body'] = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        // not JSON
      }
      if (req.method === 'POST' && path.endsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 20 }));
        return;
      }
      if (req.method === 'POST' && path.endsWith('/v1/messages')) {
        requests.push({ path, body });
        const model = body.model ?? 'claude-test';
        const blocks = decideReply(body);
        if (body.stream) return streamReply(res, model, blocks);
        const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: `msg_${randomBytes(12).toString('hex')}`, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 20, output_tokens: 10 } }));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${path}` } }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
