import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI Responses API (`POST /v1/responses`, server-sent events) on 127.0.0.1 for the
 * real Codex CLI. Each reply follows the newest user message of the request's `input`:
 *   WRITE path text  -> an `exec_command` call writing `text` to `path`
 *   BASH command     -> an `exec_command` call running `command`
 *   after a call's output -> "DONE: exec_command"
 *   BIGUSAGE ...     -> "OK: ..." reported as 250k input tokens (Codex compacts before the next turn)
 *   anything else    -> "OK: " + the text (a compaction request gets its summary this way)
 * Every request body is recorded: a test reads the history Codex sent to the model.
 */

export type Item = Record<string, unknown> & { type?: string };
export interface CodexRequest {
  input: Item[];
}
export interface CodexApi {
  url: string;
  requests: CodexRequest[];
  close(): Promise<void>;
}

let counter = 0;
const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** The user's own words in a request item (Codex labels injected context; older builds tag-wrap it). */
export function userText(item: Item): string | null {
  if (item.type !== 'message' || item.role !== 'user' || !Array.isArray(item.content)) return null;
  const text = (item.content as Item[])
    .filter((c) => c.type === 'input_text')
    .map((c) => String(c.text))
    .join('\n')
    .trim();
  if (!text || text.startsWith('<') || text.startsWith('# AGENTS.md')) return null;
  return text;
}

function reply(body: CodexRequest): Item {
  const input = body.input ?? [];
  const last = input[input.length - 1];
  if (last?.type === 'function_call_output') return { type: 'message', role: 'assistant', id: `msg_${++counter}`, content: [{ type: 'output_text', text: 'DONE: exec_command', annotations: [] }] };
  const text = [...input].reverse().map(userText).find((t) => t !== null) ?? '';
  const m = /^(WRITE|BASH) (.+)$/s.exec(text);
  if (m) {
    let cmd = m[2]!;
    if (m[1] === 'WRITE') {
      const [path, ...words] = m[2]!.split(' ');
      const dir = path!.includes('/') ? `mkdir -p ${quote(path!.slice(0, path!.lastIndexOf('/')))} && ` : '';
      cmd = `${dir}printf '%s\\n' ${quote(words.join(' '))} > ${quote(path!)}`;
    }
    const id = ++counter;
    return { type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, name: 'exec_command', arguments: JSON.stringify({ cmd, yield_time_ms: 5000 }) };
  }
  return { type: 'message', role: 'assistant', id: `msg_${++counter}`, content: [{ type: 'output_text', text: `OK: ${text.slice(0, 60)}`, annotations: [] }] };
}

function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

export async function startCodexApi(): Promise<CodexApi> {
  const requests: CodexRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/responses')) {
        res.writeHead(404).end();
        return;
      }
      let body: CodexRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CodexRequest;
      } catch {
        res.writeHead(400).end();
        return;
      }
      requests.push(body);
      const item = reply(body);
      const lastText = [...(body.input ?? [])].reverse().map(userText).find((t) => t !== null) ?? '';
      const big = lastText.startsWith('BIGUSAGE') && body.input[body.input.length - 1]?.type !== 'function_call_output';
      const id = `resp_${++counter}`;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(sse('response.created', { response: { id } }));
      res.write(sse('response.output_item.added', { output_index: 0, item }));
      res.write(sse('response.output_item.done', { output_index: 0, item }));
      const input = big ? 250_000 : 1000;
      const usage = { input_tokens: input, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: input + 10 };
      res.end(sse('response.completed', { response: { id, usage, output: [item] } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
