import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callArgs, callChain, offeredName } from '../call-script.js';
import type { ModelApi } from './suite.js';

/**
 * A scripted Gemini API (generativelanguage `models/*:streamGenerateContent` and friends) on
 * 127.0.0.1, for Gemini CLI pointed at it with GOOGLE_GEMINI_BASE_URL. Same script as the others:
 * WRITE path text -> write_file, BASH cmd -> run_shell_command, after a function response
 * "OK: [tool_result]", else "OK: " + the words. Only streamed chat turns are recorded as histories
 * (the CLI's side requests, such as routing, are answered but not part of the conversation).
 */

type Part = Record<string, unknown>;
export interface Content {
  role?: string;
  parts?: Part[];
}
export interface GenRequest {
  contents?: Content[];
  tools?: { functionDeclarations?: { name?: string }[] }[];
}

const words = (c: Content | undefined): string =>
  (c?.parts ?? [])
    .filter((p) => typeof p.text === 'string' && !/^\s*<(session_context|system-reminder)/.test(String(p.text)))
    .map((p) => String(p.text))
    .join('\n')
    .trim();

function decide(req: GenRequest): Part {
  const contents = req.contents ?? [];
  const last = contents[contents.length - 1];
  const tools = new Set((req.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name ?? '')));
  if (last?.parts?.some((p) => p.functionResponse)) return nextCall(contents, tools) ?? { text: 'OK: [tool_result]' };
  const text = words(last);
  const chain = callChain(text);
  if (chain) return { functionCall: { name: offeredName(chain[0]!.name, tools), args: callArgs(chain[0]!, '') } };
  const m = /(?:^|\s)(WRITE|BASH) (.+)$/s.exec(text);
  if (m && m[1] === 'WRITE' && tools.has('write_file')) {
    const [path, ...rest] = m[2]!.trim().split(' ');
    return { functionCall: { name: 'write_file', args: { file_path: path, content: `${rest.join(' ')}\n` } } };
  }
  if (m && m[1] === 'BASH' && tools.has('run_shell_command')) return { functionCall: { name: 'run_shell_command', args: { command: m[2]!.trim(), description: 'scripted' } } };
  return { text: `OK: ${text.replace(/\s+/g, ' ').slice(0, 40)}` };
}

/** The next call of the CALL script in the newest user words, after the previous call's response. */
function nextCall(contents: Content[], tools: Set<string>): Part | null {
  let start = contents.length - 1;
  while (start >= 0 && !(contents[start]!.role !== 'model' && words(contents[start]))) start--;
  if (start < 0) return null;
  const chain = callChain(words(contents[start]));
  if (!chain) return null;
  const done = contents.slice(start).reduce((n, c) => n + (c.role === 'model' ? (c.parts ?? []).filter((p) => p.functionCall).length : 0), 0);
  if (done >= chain.length) return null;
  // Every string in the previous responses (the tool's text, or its structured content as JSON).
  const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : []);
  const responses = (contents[contents.length - 1]!.parts ?? []).filter((p) => p.functionResponse);
  const previous = [...strings(responses), JSON.stringify(responses)].join('\n');
  return { functionCall: { name: offeredName(chain[done]!.name, tools), args: callArgs(chain[done]!, previous) } };
}

/** One line per content: `user: words`, `assistant: text`, `call: tool`, `tool: result`. */
export function geminiHistory(req: GenRequest): string[] {
  const out: string[] = [];
  for (const c of req.contents ?? []) {
    for (const p of c.parts ?? []) {
      if (p.functionCall) out.push(`call: ${String((p.functionCall as { name?: unknown }).name)}`);
      else if (p.functionResponse) out.push('tool: result');
    }
    const w = words(c);
    if (w) out.push(`${c.role === 'model' ? 'assistant' : 'user'}: ${w}`);
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function geminiModelApi(): Promise<ModelApi & { chats: GenRequest[] }> {
  const chats: GenRequest[] = [];
  const server: Server = createServer((req, res: ServerResponse) => {
    void (async () => {
      const raw = await readBody(req);
      const path = (req.url ?? '').split('?')[0]!;
      let body: GenRequest = {};
      try {
        body = raw ? (JSON.parse(raw) as GenRequest) : {};
      } catch {
        // not JSON
      }
      const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
      if (path.endsWith(':countTokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ totalTokens: 10 }));
        return;
      }
      if (path.endsWith(':streamGenerateContent')) {
        chats.push(body);
        const part = decide(body);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata })}\n\n`);
        res.end();
        return;
      }
      if (path.endsWith(':generateContent')) {
        // Side requests (routing, next-speaker checks) want JSON: an empty object satisfies them.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: '{}' }] }, finishReason: 'STOP', index: 0 }], usageMetadata }));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"code":404,"message":"not found"}}');
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, chats, histories: () => chats.map(geminiHistory), close: () => new Promise((r) => server.close(() => r())) };
}
