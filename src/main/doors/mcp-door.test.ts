import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { appendFile, mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRANCHED, copyClaudeHome, inCopy } from '../../../test/fixtures.js';
import { RewindService } from '../service/rewind-service.js';
import { createMcpServer, WRITES_OFF } from './mcp-door.js';
import { MCP_INPUTS } from './mcp-inputs.js';
import { PreviewTokens } from './preview-tokens.js';

const SESSION = '9ee005d2-71bf-404d-813f-f64902d8df5f';
const P = {
  one: '643edd42-70d8-4ef6-8558-2d35228901f3',
  two: 'd1236347-4049-41a0-a39b-be9e4732ae8e',
  bee: '789d4d84-28ff-48b2-9dd3-8dec45959e27',
};

let base: string;
let root: string;
let branched: string;
let project: string;
let service: RewindService;
const clients: Client[] = [];
let reader: Client;
let writer: Client;

async function connect(allowWrites: boolean): Promise<Client> {
  const server = createMcpServer(service, { allowWrites, cwd: project, version: 'test' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(b);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; data: Record<string, unknown>; isError: boolean }> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  return { text, data: (r.structuredContent ?? {}) as Record<string, unknown>, isError: !!r.isError };
}

/** The session as if its agent last wrote it a minute ago (not live). */
const settle = async (path: string) => {
  const past = new Date(Date.now() - 60_000);
  await utimes(path, past, past);
};

const forksOf = async () => (await readdir(dirname(branched))).filter((f) => f.endsWith('.jsonl')).sort();

beforeAll(async () => {
  root = await copyClaudeHome();
  base = dirname(root);
  branched = inCopy(root, BRANCHED);
  project = join(base, 'project');
  await mkdir(project, { recursive: true });
  await settle(branched);
  service = new RewindService({ claudeRoot: root, env: { HOME: base }, cacheDir: join(base, 'cache'), prefsFile: join(base, 'prefs.json'), watch: false });
  await service.start();
  reader = await connect(false);
  writer = await connect(true);
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await service.close();
  await rm(base, { recursive: true, force: true });
});

describe('the tool list', () => {
  it('has every tool, reads marked read only, writes marked off until allowed', async () => {
    const { tools } = await reader.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(MCP_INPUTS).sort());
    const by = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['list_sessions', 'search', 'timeline', 'turn', 'history', 'preview_rewind', 'preview_restore', 'preview_revert']) expect(by.get(name)!.annotations?.readOnlyHint, name).toBe(true);
    for (const name of ['rewind', 'restore', 'revert', 'undo', 'redo']) {
      expect(by.get(name)!.annotations?.readOnlyHint, name).toBe(false);
      expect(by.get(name)!.description, name).toMatch(/\[OFF: writes are disabled/);
    }
    const on = new Map((await writer.listTools()).tools.map((t) => [t.name, t]));
    expect(on.get('rewind')!.description).not.toMatch(/OFF/);
  });

  it('input schemas come from the contract: strict, with the contract’s limits and the user’s names', async () => {
    const { tools } = await reader.listTools();
    const rewind = tools.find((t) => t.name === 'rewind')!.inputSchema as unknown as { properties: Record<string, { maxLength?: number; enum?: string[] }>; required: string[]; additionalProperties: boolean };
    expect(rewind.required.sort()).toEqual(['mode', 'prompt', 'session', 'token']);
    expect(rewind.additionalProperties).toBe(false);
    expect(rewind.properties.mode!.enum).toEqual(['fork', 'in-place']);
    expect(rewind.properties.session!.maxLength).toBe(4096);
    const search = tools.find((t) => t.name === 'search')!.inputSchema as { properties: Record<string, unknown> };
    expect(Object.keys(search.properties).sort()).toEqual(['agent', 'limit', 'project', 'query']);
  });
});

describe('every tool validates its input', () => {
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['list_sessions', { limit: 0 }, /limit/],
    ['list_sessions', { agent: 'vim' }, /agent/],
    ['list_sessions', { colour: 'red' }, /colour|unrecognized/i],
    ['search', {}, /query/],
    ['search', { query: '' }, /query/],
    ['search', { query: 'x', limit: -1 }, /limit/],
    ['search', { query: 'x', agent: 'emacs' }, /agent/],
    ['timeline', {}, /session/],
    ['timeline', { session: 42 }, /session/],
    ['turn', { session: SESSION }, /prompt/],
    ['preview_rewind', { session: SESSION, prompt: '#2', mode: 'explode' }, /mode/],
    ['preview_rewind', { session: SESSION, mode: 'fork' }, /prompt/],
    ['rewind', { session: SESSION, prompt: '#2', mode: 'fork' }, /token/],
    ['preview_restore', { ref: '' }, /ref/],
    ['preview_restore', { ref: 'x', source: 'elsewhere' }, /source/],
    ['restore', { ref: 'x' }, /token/],
    ['undo', { dryRun: 'yes' }, /dryRun/],
    ['undo', { id: '' }, /id/],
    ['redo', { force: true }, /force|unrecognized/i],
    ['history', { project: '' }, /project/],
    ['preview_revert', { session: SESSION, prompt: '#1', take: { 'a.txt': 'sideways' } }, /take/],
    ['preview_revert', { session: SESSION }, /prompt/],
    ['revert', { session: SESSION, prompt: '#1' }, /token/],
  ];
  it.each(bad)('%s %j is refused', async (name, args, pattern) => {
    const r = await call(writer, name, args);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/validation/i);
    expect(r.text).toMatch(pattern);
  });

  it('a prompt that is not in the session is refused by the same resolution as back --to', async () => {
    expect((await call(reader, 'turn', { session: SESSION, prompt: '#99' })).text).toMatch(/^NOT_FOUND: no prompt #99 on the live path: it has 4 prompts/);
    expect((await call(reader, 'turn', { session: SESSION, prompt: 'no-such-uuid' })).text).toMatch(/^NOT_FOUND: no prompt no-such-uuid in this session/);
    expect((await call(reader, 'timeline', { session: 'ffffffff' })).text).toMatch(/^NOT_FOUND: no session "ffffffff"/);
  });
});

describe('reading', () => {
  it('search finds a prompt of any session, with its session and prompt ids', async () => {
    const r = await call(reader, 'search', { query: 'bee' });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain(`session ${SESSION}`);
    expect(r.text).toContain(`prompt ${P.bee}: WRITE b.txt bee`);
    expect((r.data.matches as { promptUuid: string }[]).map((m) => m.promptUuid)).toContain(P.bee);
    const none = await call(reader, 'search', { query: 'bee', agent: 'codex' });
    expect(none.text).toMatch(/^No prompt matches "bee"/);
  });

  it('list_sessions, timeline by id prefix and turn by #n', async () => {
    const list = await call(reader, 'list_sessions', { agent: 'claude', limit: 2 });
    expect(list.data.total).toBe(3);
    expect((list.data.sessions as unknown[]).length).toBe(2);
    const t = await call(reader, 'timeline', { session: '9ee005d2' });
    expect(t.text).toContain(`  #1 ${P.one}  WRITE a.txt version one`);
    expect(t.text).toMatch(new RegExp(`○  ${P.bee}  WRITE b.txt bee  \\(abandoned branch\\)`));
    expect((t.data.prompts as unknown[]).length).toBe(6);
    const turn = await call(reader, 'turn', { session: branched, prompt: '#2' });
    expect(turn.data.promptUuid).toBe(P.two);
    expect(turn.text).toMatch(/^prompt d1236347.*: WRITE a.txt version two/);
  });
});

describe('writes: off by default, never without their preview', () => {
  it('with writes off, a preview answers but the rewind is refused and nothing is written', async () => {
    const before = await forksOf();
    const p = await call(reader, 'preview_rewind', { session: SESSION, prompt: '#2', mode: 'fork' });
    expect(p.isError, p.text).toBe(false);
    expect(p.text).toMatch(/token: [0-9a-f]{24}/);
    const r = await call(reader, 'rewind', { session: SESSION, prompt: '#2', mode: 'fork', token: p.data.token });
    expect(r.isError).toBe(true);
    expect(r.text).toBe(`UNSUPPORTED: ${WRITES_OFF}`);
    expect(await forksOf()).toEqual(before);
  });

  it('with writes off, revert and redo are refused before anything else', async () => {
    expect((await call(reader, 'revert', { session: SESSION, prompt: '#2', token: 'f'.repeat(24) })).text).toBe(`UNSUPPORTED: ${WRITES_OFF}`);
    expect((await call(reader, 'redo', { token: 'f'.repeat(24) })).text).toBe(`UNSUPPORTED: ${WRITES_OFF}`);
  });

  it('a fork with its preview’s token is written; the token is spent', async () => {
    const before = await forksOf();
    const p = await call(writer, 'preview_rewind', { session: SESSION, prompt: '#2', mode: 'fork' });
    const args = { session: SESSION, prompt: '#2', mode: 'fork', token: p.data.token };
    const r = await call(writer, 'rewind', args);
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/^Fork created: /);
    const fork = r.data.forkSessionId as string;
    expect(r.text).toContain(`forkSessionId: ${fork}`);
    expect(await forksOf()).toEqual([...before, `${fork}.jsonl`].sort());
    const kept = await call(writer, 'timeline', { session: fork });
    expect((kept.data.prompts as { text: string }[]).map((x) => x.text)).toEqual(['WRITE a.txt version one']);
    const again = await call(writer, 'rewind', args);
    expect(again.text).toMatch(/^USAGE: unknown or already used token/);
  });

  it('a write without a token, or with another request’s token, is refused', async () => {
    const p = await call(writer, 'preview_rewind', { session: SESSION, prompt: '#2', mode: 'fork' });
    const other = await call(writer, 'rewind', { session: SESSION, prompt: '#3', mode: 'fork', token: p.data.token });
    expect(other.text).toMatch(/^USAGE: that token was issued for a different request/);
    const made = await call(writer, 'rewind', { session: SESSION, prompt: '#3', mode: 'fork', token: 'f'.repeat(24) });
    expect(made.text).toMatch(/^USAGE: unknown or already used token: call preview_rewind first/);
  });

  it('a session that changed since its preview is refused (stale preview), and nothing is written', async () => {
    const p = await call(writer, 'preview_rewind', { session: SESSION, prompt: '#2', mode: 'fork' });
    const lines = (await readFile(branched, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { uuid?: string; type: string });
    const leaf = lines.filter((l) => l.uuid && (l.type === 'assistant' || l.type === 'user')).pop()!.uuid;
    const line = { parentUuid: leaf, isSidechain: false, type: 'system', content: 'grown', uuid: 'grow-0001', timestamp: new Date(Date.now() - 60_000).toISOString(), sessionId: SESSION };
    await appendFile(branched, `${JSON.stringify(line)}\n`);
    await settle(branched);
    const before = await forksOf();
    const r = await call(writer, 'rewind', { session: SESSION, prompt: '#2', mode: 'fork', token: p.data.token });
    expect(r.text).toMatch(/^TRANSCRIPT_CHANGED: refused \(stale preview\): the session changed since the preview/);
    expect(await forksOf()).toEqual(before);
  });

  it('an in-place rewrite of a session being written is refused', async () => {
    await utimes(branched, new Date(), new Date());
    const r = await call(writer, 'preview_rewind', { session: SESSION, prompt: '#2', mode: 'in-place' });
    expect(r.text).toMatch(/^TRANSCRIPT_LIVE: refused: .* is being written right now/);
    const fork = await call(writer, 'preview_rewind', { session: SESSION, prompt: '#2', mode: 'fork' });
    expect(fork.isError, 'a fork of a live session is fine').toBe(false);
    await settle(branched);
  });

  it('restore and undo: each with its preview’s token, refused when the project changed since', async () => {
    await writeFile(join(project, 'a.txt'), 'checkpointed\n');
    const cp = await service.handle('takeCheckpoint', { project, label: 'mcp test' });
    expect(cp.ok).toBe(true);
    const id = (cp as { value: { id: string } }).value.id;
    await writeFile(join(project, 'a.txt'), 'edited later\n');
    const p1 = await call(writer, 'preview_restore', { ref: id });
    expect(p1.text).toMatch(/modify a\.txt/);
    await writeFile(join(project, 'b.txt'), 'a new file\n');
    const stale = await call(writer, 'restore', { ref: id, token: p1.data.token });
    expect(stale.text).toMatch(/^CONFLICT: refused \(stale preview\): files in .* changed since the preview/);
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('edited later\n');

    const p2 = await call(writer, 'preview_restore', { ref: id });
    expect(p2.text).toMatch(/2 conflicts/);
    const conflict = await call(writer, 'restore', { ref: id, token: p2.data.token });
    expect(conflict.text).toMatch(/^CONFLICT: 2 files changed outside the agent would be overwritten/);
    const p3 = await call(writer, 'preview_restore', { ref: id });
    const done = await call(writer, 'restore', { ref: id, token: p3.data.token, force: true });
    expect(done.isError, done.text).toBe(false);
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('checkpointed\n');

    expect((await call(writer, 'undo', {})).text).toMatch(/^USAGE: an undo needs the token of its preview/);
    const u = await call(writer, 'undo', { dryRun: true });
    expect(u.text).toMatch(/^Would undo: /);
    expect((await call(reader, 'undo', { token: u.data.token })).text).toBe(`UNSUPPORTED: ${WRITES_OFF}`);
    const undone = await call(writer, 'undo', { token: u.data.token });
    expect(undone.isError, undone.text).toBe(false);
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('edited later\n');

    const h = await call(reader, 'history', {});
    expect((h.data.entries as { kind: string; undone: boolean }[]).map((e) => [e.kind, e.undone])).toEqual([
      ['undo', false],
      ['restore', true],
    ]);
    expect((await call(writer, 'redo', {})).text).toMatch(/^USAGE: a redo needs the token of its preview/);
    const r = await call(writer, 'redo', { dryRun: true });
    expect(r.text).toMatch(/^Would redo: /);
    await writeFile(join(project, 'c.txt'), 'touched meanwhile\n');
    expect((await call(writer, 'redo', { token: r.data.token })).text).toMatch(/^CONFLICT: refused \(stale preview\): files in /);
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('edited later\n');
    const r2 = await call(writer, 'redo', { dryRun: true });
    const redone = await call(writer, 'redo', { token: r2.data.token });
    expect(redone.isError, redone.text).toBe(false);
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('checkpointed\n');
  });
});

describe('preview tokens', () => {
  it('expire', () => {
    let now = 0;
    const t = new PreviewTokens(1000, () => now);
    const tok = t.issue('preview_rewind', 'k', {});
    now = 2000;
    expect(() => t.take(tok, 'preview_rewind', 'k')).toThrow(/older than/);
  });
  it('belong to their preview tool', () => {
    const t = new PreviewTokens();
    const tok = t.issue('undo', 'k', {});
    expect(() => t.take(tok, 'preview_rewind', 'k')).toThrow(/from undo, not preview_rewind/);
  });
});

