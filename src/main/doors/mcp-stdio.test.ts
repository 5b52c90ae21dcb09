import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyClaudeHome } from '../../../test/fixtures.js';
import { RewindService } from '../service/rewind-service.js';
import { createMcpServer } from './mcp-door.js';
import { MAX_MCP_MESSAGE_BYTES, McpStdioTransport, requestIdIn } from './mcp-stdio.js';

interface Answer {
  id: number | string | null;
  result?: { tools?: { name: string }[] };
  error?: { code: number; message: string };
}

/** The real MCP server on a pipe pair: lines in, answers out, as `rewind-app mcp` serves them. */
describe('the MCP server on stdio', () => {
  let base: string;
  let service: RewindService;
  const input = new PassThrough();
  const output = new PassThrough();
  const logged: string[] = [];
  const answers: Answer[] = [];
  let closed = false;
  let tail = '';

  const answer = async (id: number | string | null): Promise<Answer> => {
    for (let i = 0; i < 500; i++) {
      const a = answers.find((x) => x.id === id);
      if (a) return a;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no answer to ${JSON.stringify(id)} (log: ${logged.join(' | ')})`);
  };
  /** Writes in pipe-sized chunks, as a client's stdout arrives. */
  const send = async (text: string) => {
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 65536) {
      if (!input.write(bytes.subarray(at, at + 65536))) await new Promise((r) => input.once('drain', r));
    }
  };
  const big = (extra = 1024) => 'x'.repeat(MAX_MCP_MESSAGE_BYTES + extra);

  beforeAll(async () => {
    const root = await copyClaudeHome();
    base = dirname(root);
    service = new RewindService({ claudeRoot: root, env: { HOME: base }, cacheDir: join(base, 'cache'), prefsFile: join(base, 'prefs.json'), watch: false });
    await service.start();
    output.on('data', (d: Buffer) => {
      const lines = (tail + d.toString('utf8')).split('\n');
      tail = lines.pop()!;
      for (const l of lines) answers.push(JSON.parse(l) as Answer);
    });
    const server = createMcpServer(service, { allowWrites: false, cwd: base, version: 'test' });
    server.server.onclose = () => (closed = true);
    await server.connect(new McpStdioTransport(input, output, { log: (l) => logged.push(l) }));
    await send(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`);
    await answer(1);
    await send(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  });

  afterAll(async () => {
    await service.close();
    await rm(base, { recursive: true, force: true });
  });

  it('answers a message over 10 MB with an error under its id, says so once on stderr, and goes on', async () => {
    await send(`${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search', arguments: { query: big() } } })}\n`);
    const refused = await answer(7);
    expect(refused.error?.code).toBe(-32600);
    expect(refused.error?.message).toMatch(/too large.*10 MB/);
    expect(logged.filter((l) => /refused a message over 10 MB \(request 7\)/.test(l))).toHaveLength(1);
    await send(`${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list' })}\n`);
    expect((await answer(8)).result?.tools?.map((t) => t.name)).toContain('search');
    expect(closed).toBe(false);
  });

  it('answers with id null when the id comes after the oversized part, never an id inside params', async () => {
    const n = answers.length;
    await send(`{"jsonrpc":"2.0","method":"tools/call","params":{"id":99,"arguments":{"q":"${big()}"}},"id":"late"}\n`);
    await send(`${JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' })}\n`);
    await answer(9);
    const refused = answers.slice(n).find((a) => a.error);
    expect(refused).toMatchObject({ id: null, error: { code: -32600 } });
    expect(answers.some((a) => a.id === 99)).toBe(false);
  });

  it('reads many small messages that arrive together past 10 MB (the limit is per message)', async () => {
    const pad = 'p'.repeat(1_000_000);
    const many = Array.from({ length: 11 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: 1000 + i, method: 'ping', params: { _meta: { pad } } })).join('\n');
    input.write(Buffer.from(`${many}\n`));
    for (let i = 0; i < 11; i++) expect((await answer(1000 + i)).error).toBeUndefined();
  });

  it('answers a line that is not JSON with a parse error and goes on', async () => {
    const n = answers.length;
    await send('{"jsonrpc":"2.0","id":\n');
    await send(`${JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'ping' })}\n`);
    await answer(10);
    expect(answers.slice(n).find((a) => a.error)).toMatchObject({ id: null, error: { code: -32700 } });
    expect(closed).toBe(false);
  });

  it('answers a request that is JSON but not JSON-RPC with invalid request under its id', async () => {
    await send(`${JSON.stringify({ jsonrpc: '1.0', id: 11, method: 'ping' })}\n`);
    expect((await answer(11)).error?.code).toBe(-32600);
  });
});

describe('requestIdIn', () => {
  it('finds the top-level id of a cut message, and only that one', () => {
    expect(requestIdIn('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"')).toBe(42);
    expect(requestIdIn('{ "id" : "abc\\"d", "method":"x"')).toBe('abc"d');
    expect(requestIdIn('{"method":"tools/call","params":{"id":5,"s":"a\\"id\\":6"},"id":7}')).toBe(7);
    expect(requestIdIn('{"method":"tools/call","params":{"id":5,"s":"xxxx')).toBeNull();
    expect(requestIdIn('{"method":"x","note":"\\"id\\": 3"')).toBeNull();
    expect(requestIdIn('not json')).toBeNull();
  });
});
