import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, copyFile, mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BRANCHED, BUILT_CLI, CODEX_SYNTHETIC, LINEAR, copyClaudeHome, inCopy, runBuiltCli, tempDir } from '../../../test/fixtures.js';
import type { ResponseOf, RewindEvent } from '../../shared/contract.js';
import type { Timeline } from '../../shared/session-schema.js';
import { encodeProjectDir } from '../../engine/agents/claude/paths.js';
import { handleAgentHook } from '../../engine/hooks/handle-hook.js';
import { OPERATION_NAMES } from '../../shared/operations.js';
import { inAppRunner } from '../../cli/in-app-runner.js';
import { startRuntime, type Runtime } from '../app-runtime.js';
import { RewindService } from '../service/rewind-service.js';
import { startHttpDoor, type HttpDoor } from './http-door.js';

const CLI = BUILT_CLI;
const runCli = runBuiltCli;

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function http(port: number, path: string, opts: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Raw> {
  return new Promise((resolvePromise, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...opts.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The same contract cases, whatever the door. */
type Call = (name: string, payload: unknown) => Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }>;

function contractCases(door: string, call: () => Call, ctx: () => { branched: string; root: string }) {
  describe(`contract through ${door}`, () => {
    it('listSessions and getTimeline answer with the documents', async () => {
      const list = await call()('listSessions', {});
      expect(list.ok).toBe(true);
      const sessions = (list.value as { sessions: { id: string }[] }).sessions;
      expect(sessions.map((s) => s.id).sort()).toEqual(['2ea8980a-26fe-4928-aab5-4ebf6074b664', '9ee005d2-71bf-404d-813f-f64902d8df5f', 'ec33f68b-d266-42d6-b76a-6c2b9bb6c0ae']);
      const t = await call()('getTimeline', { session: '9ee005d2' });
      expect(t.ok).toBe(true);
      expect((t.value as { prompts: { active: boolean }[] }).prompts.map((p) => p.active)).toEqual([true, true, false, false, true, true]);
    });

    it('invalid payloads are rejected with a clear error and change nothing', async () => {
      const before = await readFile(ctx().branched);
      for (const [name, payload, pattern] of [
        ['getTimeline', {}, /session/],
        ['getTimeline', { session: 42 }, /session/],
        ['applyRewind', { session: '9ee005d2', promptUuid: 'x', mode: 'explode' }, /mode/],
        ['applyRewind', { session: '9ee005d2', mode: 'fork' }, /promptUuid/],
        ['listSessions', { extra: true }, /extra|unrecognized/i],
      ] as const) {
        const r = await call()(name, payload);
        expect(r.ok, `${name} ${JSON.stringify(payload)}`).toBe(false);
        expect(r.error!.code).toBe('INVALID_REQUEST');
        expect(r.error!.message).toMatch(pattern);
        expect(r.error!.message).not.toMatch(/\n\s+at /);
      }
      expect((await readFile(ctx().branched)).equals(before)).toBe(true);
    });

    it('errors cross as {code, message}', async () => {
      const r = await call()('getTimeline', { session: 'ffffffff' });
      expect(r).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringMatching(/no session "ffffffff"/) } });
    });
  });
}

describe('doors', () => {
  let root: string;
  let branched: string;
  let codexHome: string;
  let service: RewindService;
  let door: HttpDoor;
  const events: RewindEvent[] = [];

  beforeAll(async () => {
    root = await copyClaudeHome();
    branched = inCopy(root, BRANCHED);
    codexHome = join(root, '..', 'no-codex');
    service = new RewindService({ claudeRoot: root, cli: { node: process.execPath, script: CLI }, roots: { codex: codexHome } });
    await service.start();
    service.onEvent((e) => events.push(e));
    door = await startHttpDoor(service, { rendererDir: null });
  });
  afterAll(async () => {
    await door.close();
    await service.close();
  });

  // IPC: the Electron entry (cli/electron-main.ts -> main/electron-app.ts) with Electron mocked; the handlers it registers are called as the preload would.
  const ipc = new Map<string, (event: unknown, payload: unknown) => Promise<unknown>>();
  const ipcCall: Call = async (name, payload) =>
    (await ipc.get(`rewind:${name}`)!({ sender: { id: 1 }, senderFrame: { url: 'file:///app/out/renderer/index.html' } }, payload)) as Awaited<ReturnType<Call>>;
  beforeAll(async () => {
    vi.resetModules();
    process.env.CLAUDE_CONFIG_DIR = root;
    vi.doMock('electron', () => {
      class BrowserWindow {
        static all: BrowserWindow[] = [];
        webContents = { id: 1, send: () => undefined, setWindowOpenHandler: () => undefined, on: () => undefined };
        constructor() {
          BrowserWindow.all.push(this);
        }
        static getAllWindows() {
          return BrowserWindow.all;
        }
        on() {}
        once() {}
        loadFile() {
          return Promise.resolve();
        }
        loadURL() {
          return Promise.resolve();
        }
      }
      return {
        BrowserWindow,
        app: { requestSingleInstanceLock: () => true, on: () => undefined, whenReady: () => Promise.resolve(), getVersion: () => 'test', quit: () => undefined },
        ipcMain: { handle: (ch: string, fn: (event: unknown, payload: unknown) => Promise<unknown>) => ipc.set(ch, fn) },
        session: { defaultSession: { setPermissionRequestHandler: () => undefined } },
        shell: { openExternal: () => undefined },
      };
    });
    process.env.REWIND_SOCKET = join(await tempDir('rewind-sock-'), 'ipc-test.sock');
    const electron = (await import('electron')) as unknown as { BrowserWindow: { getAllWindows(): unknown[] } };
    await import('../../cli/electron-main.js');
    await vi.waitFor(() => expect(ipc.size).toBe(OPERATION_NAMES.length));
    await vi.waitFor(() => expect(electron.BrowserWindow.getAllWindows()).toHaveLength(1), { timeout: 5000 });
  });

  contractCases('Electron IPC', () => ipcCall, () => ({ branched, root }));

  it('IPC drops calls from senders that are not our windows', async () => {
    const r = await ipc.get('rewind:listSessions')!({ sender: { id: 99 }, senderFrame: { url: 'https://evil.example/' } }, {});
    expect(r).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
  });

  const httpCall: Call = async (name, payload) => {
    const r = await http(door.port, `/api/${name}`, { method: 'POST', body: JSON.stringify(payload), headers: { 'x-rewind-token': door.token, 'content-type': 'application/json' } });
    return JSON.parse(r.body);
  };
  contractCases('HTTP', () => httpCall, () => ({ branched, root }));

  describe('HTTP door protection', () => {
    it('answers 401 without the token, page or API', async () => {
      expect((await http(door.port, '/')).status).toBe(401);
      expect((await http(door.port, '/api/listSessions', { method: 'POST', body: '{}' })).status).toBe(401);
      expect((await http(door.port, '/api/listSessions', { method: 'POST', body: '{}', headers: { 'x-rewind-token': 'wrong' } })).status).toBe(401);
      expect((await http(door.port, '/api/events')).status).toBe(401);
    });

    it('refuses a non-loopback Host or Origin, even with the token', async () => {
      const h = await http(door.port, '/api/listSessions', { method: 'POST', body: '{}', headers: { 'x-rewind-token': door.token, host: 'evil.example.com' } });
      expect(h.status).toBe(403);
      const o = await http(door.port, '/api/listSessions', { method: 'POST', body: '{}', headers: { 'x-rewind-token': door.token, origin: 'http://evil.example.com' } });
      expect(o.status).toBe(403);
      const ok = await http(door.port, '/api/listSessions', { method: 'POST', body: '{}', headers: { 'x-rewind-token': door.token, origin: `http://127.0.0.1:${door.port}` } });
      expect(ok.status).toBe(200);
    });

    it('the token in the URL becomes a cookie, then leaves the address bar', async () => {
      const first = await http(door.port, `/?token=${door.token}`);
      expect(first.status).toBe(303);
      expect(first.headers.location).toBe('/');
      const cookie = String(first.headers['set-cookie']);
      expect(cookie).toMatch(/rewind_token=[0-9a-f]+; HttpOnly; SameSite=Strict/);
      const api = await http(door.port, '/api/getSettings', { method: 'POST', body: '{}', headers: { cookie: cookie.split(';')[0]! } });
      expect(JSON.parse(api.body)).toMatchObject({ ok: true, value: { claudeRoot: root } });
    });

    it('refuses Origin: null with the token and answers a malformed URL with 400', async () => {
      const o = await http(door.port, '/api/listSessions', { method: 'POST', body: '{}', headers: { 'x-rewind-token': door.token, origin: 'null' } });
      expect(o.status).toBe(403);
      const bad = await http(door.port, '/%E0%A4%A', { headers: { 'x-rewind-token': door.token } });
      expect(bad.status).toBe(400);
    });

    it('refuses to listen beyond loopback', async () => {
      await expect(startHttpDoor(service, { rendererDir: null, host: '0.0.0.0' })).rejects.toThrow(/loopback only/);
    });

    it('serves the built UI with a strict CSP and no path traversal', async () => {
      // The UI folder inside a temp dir, so the file beside it is the test's own.
      const ui = join(await tempDir(), 'ui');
      await mkdir(ui);
      await writeFile(join(ui, 'index.html'), '<!doctype html><title>Rewind</title>');
      await writeFile(join(ui, '..', 'secret.txt'), 'secret');
      const d = await startHttpDoor(service, { rendererDir: ui });
      try {
        const page = await http(d.port, '/', { headers: { 'x-rewind-token': d.token } });
        expect(page.status).toBe(200);
        expect(page.headers['content-security-policy']).toMatch(/default-src 'self'/);
        const escape = await http(d.port, '/..%2fsecret.txt', { headers: { 'x-rewind-token': d.token } });
        expect(escape.body).not.toContain('secret');
      } finally {
        await d.close();
      }
    });
  });

  it('live update: a prompt appended to an open transcript arrives as an event', async () => {
    const t = await service.handle('getTimeline', { session: branched });
    expect(t.ok).toBe(true);
    const before = events.length;
    const leaf = t.ok ? (t.value as { activeLeaf: string }).activeLeaf : null;
    const line = { parentUuid: leaf, isSidechain: false, type: 'user', message: { role: 'user', content: 'a new prompt, live' }, uuid: 'live-0000-4000-8000-000000000001', timestamp: new Date().toISOString(), sessionId: '9ee005d2-71bf-404d-813f-f64902d8df5f', cwd: '/home/dev/projects/branched' };
    await appendFile(branched, `${JSON.stringify(line)}\n`);
    await vi.waitFor(
      () => {
        const e = events.slice(before).find((x) => x.type === 'timelineChanged');
        expect(e).toBeDefined();
        expect(e?.type === 'timelineChanged' && e.upserts.map((p) => p.text)).toEqual(['a new prompt, live']);
      },
      { timeout: 5000, interval: 20 },
    );
  });
  it("live update: a checkpoint stored after its prompt's line still marks that prompt", async () => {
    const project = await tempDir('rewind-live-project-');
    const sessionId = '7e1c5a2b-0000-4000-8000-00000000c0de';
    const dir = join(root, 'projects', encodeProjectDir(project));
    await mkdir(dir, { recursive: true });
    const transcript = join(dir, `${sessionId}.jsonl`);
    const base = { isSidechain: false, sessionId, cwd: project, timestamp: new Date(Date.now() - 60_000).toISOString() };
    const lines = [
      { ...base, parentUuid: null, type: 'user', promptId: 'prompt-1', uuid: 'aaaaaaaa-0000-4000-8000-000000000001', message: { role: 'user', content: 'WRITE a.txt one' } },
      { ...base, parentUuid: 'aaaaaaaa-0000-4000-8000-000000000001', type: 'assistant', uuid: 'aaaaaaaa-0000-4000-8000-000000000002', message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] } },
    ];
    await writeFile(transcript, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const t = await service.handle('getTimeline', { session: transcript });
    expect(t.ok && (t.value as Timeline).prompts.map((p) => p.checkpoint)).toEqual([null]);
    const before = events.length;
    // The hook's checkpoint lands after the line it belongs to, with no store there before it.
    await handleAgentHook('claude', { hook_event_name: 'UserPromptSubmit', session_id: sessionId, transcript_path: transcript, cwd: project, prompt_id: 'prompt-1' }, {});
    await vi.waitFor(
      () => {
        const e = events.slice(before).find((x) => x.type === 'timelineChanged' && x.session === transcript);
        expect(e?.type === 'timelineChanged' && e.upserts.map((p) => [p.uuid, !!p.checkpoint])).toEqual([['aaaaaaaa-0000-4000-8000-000000000001', true]]);
      },
      { timeout: 5000, interval: 20 },
    );
  });
});

describe('Codex CLI sessions', () => {
  it('are listed and read, forked through their adapter (resumed with codex resume), and follow appends', async () => {
    const home = await tempDir('rewind-codex-');
    const rollout = join(home, 'sessions', '2026', '01', '02', 'rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl');
    await mkdir(dirname(rollout), { recursive: true });
    await copyFile(CODEX_SYNTHETIC, rollout);
    await writeFile(join(home, 'session_index.jsonl'), `${JSON.stringify({ id: '11111111-1111-4111-8111-111111111111', thread_name: 'synthetic files', updated_at: '2026-01-02T03:05:00Z' })}\n`);
    const svc = new RewindService({ claudeRoot: join(home, 'no-claude'), roots: { codex: home } });
    await svc.start();
    const events: RewindEvent[] = [];
    svc.onEvent((e) => events.push(e));
    try {
      const list = await svc.handle('listSessions', {});
      expect(list.ok && (list.value as { sessions: { agent: string; title: string; promptCount: number }[] }).sessions).toEqual([expect.objectContaining({ agent: 'codex', title: 'synthetic files', promptCount: 1 })]);
      expect(svc.demo).toBe(false);
      const t = await svc.handle('getTimeline', { session: '11111111' });
      const timeline = (t as { ok: true; value: Timeline }).value;
      expect(timeline.session).toMatchObject({ agent: 'codex', cwd: '/workspace/synthetic-project' });
      expect(timeline.prompts.map((p) => p.text)).toEqual(['List the synthetic files.']);
      const turn = await svc.handle('getTurn', { session: rollout, promptUuid: timeline.prompts[0]!.uuid });
      const detail = (turn as { ok: true; value: ResponseOf<'getTurn'> }).value;
      const items = detail.items;
      // Each call carries its own output (paired by call id): no bare "result" rows.
      expect(items.map((i) => `${i.kind} ${i.title}`)).toEqual(['thinking Thinking', 'tool-call exec_command find . -maxdepth 1 -type f', 'tool-call apply_patch gamma.txt', 'tool-call mcp__synthetic__lookup fixture', 'text Said']);
      expect(items[1]!.tool).toMatchObject({ view: 'bash', command: 'find . -maxdepth 1 -type f', result: { text: './alpha.txt\n./beta.txt' } });
      expect(items[2]!.tool).toMatchObject({ view: 'patch', path: 'gamma.txt', result: { text: 'Done!' } });
      expect(detail.model).toBe('synthetic-model');
      expect(JSON.stringify(items)).not.toContain('SYNTHETIC_ENCRYPTED_CONTENT');
      expect(timeline.session.readOnly).toBeNull();
      const preview = await svc.handle('previewRewind', { session: rollout, promptUuid: timeline.prompts[0]!.uuid, mode: 'fork', withCode: true });
      expect(preview).toMatchObject({ ok: true, value: { chat: { prompts: [{ text: 'List the synthetic files.' }] }, code: null, codeNote: expect.stringContaining('only the chat') } });
      const fork = await svc.handle('applyRewind', { session: rollout, promptUuid: timeline.prompts[0]!.uuid, mode: 'fork', withCode: false });
      const made = (fork as { ok: true; value: { forkSessionId: string; forkPath: string; resumeCommand: string } }).value;
      expect(made.resumeCommand).toBe(`codex resume ${made.forkSessionId}`);
      expect(made.forkPath.startsWith(join(home, 'sessions'))).toBe(true);
      // The user goes on in Codex: the open timeline follows.
      await appendFile(rollout, `${JSON.stringify({ timestamp: new Date().toISOString(), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and the hidden ones?' }] } })}\n`);
      await vi.waitFor(
        () => {
          const e = events.find((x) => x.type === 'timelineChanged' && x.session === rollout);
          expect(e?.type === 'timelineChanged' && e.timeline?.prompts.map((p) => p.text)).toEqual(['List the synthetic files.', 'and the hidden ones?']);
        },
        { timeout: 5000, interval: 20 },
      );
      // The filter finds Codex prompts too, and a match selects the prompt the timeline names.
      const found = await svc.handle('searchPrompts', { query: 'HIDDEN' });
      const matches = (found as { ok: true; value: { matches: { transcriptPath: string; promptUuid: string; snippet: string }[] } }).value.matches;
      const again = (await svc.handle('getTimeline', { session: rollout })) as { ok: true; value: Timeline };
      expect(matches.filter((m) => m.transcriptPath === rollout)).toEqual([{ transcriptPath: rollout, sessionId: '11111111-1111-4111-8111-111111111111', promptUuid: again.value.prompts[1]!.uuid, snippet: 'and the hidden ones?', highlights: [[8, 14]] }]);
    } finally {
      await svc.close();
    }
  });
});

describe('terminal door: the CLI forwards to a running app', () => {
  let rt: Runtime;
  let sock: string;
  let root: string;
  beforeAll(async () => {
    if (!spawnSync(process.execPath, [CLI, '--version']).stdout) throw new Error('build the CLI first (npm run build)');
    root = await copyClaudeHome();
    sock = join(await tempDir('rewind-sock-'), 'rewind.sock');
    rt = await startRuntime({ claudeRoot: root, watch: false, http: null, env: { REWIND_SOCKET: sock }, roots: { codex: join(root, '..', 'no-codex') }, forwarded: inAppRunner });
  });
  afterAll(async () => {
    await rt.close();
  });

  it('back 1 is performed by the app, printed by the CLI, with the same output as standalone', async () => {
    expect(rt.socket?.path).toBe(sock);
    const events: RewindEvent[] = [];
    rt.service.onEvent((e) => events.push(e));
    const linear = inCopy(root, LINEAR);
    const past = new Date(Date.now() - 3600_000);
    await utimes(linear, past, past);
    const project = await tempDir();
    const env = { ...process.env, REWIND_SOCKET: sock, CLAUDE_CONFIG_DIR: root };
    const viaApp = await runCli(['back', '1', '--dry-run', '--transcript', linear, '--project', project], env);
    expect(viaApp.status).toBe(0);
    const finished = events.find((e) => e.type === 'operationFinished');
    expect(finished).toMatchObject({ type: 'operationFinished', operation: 'back', ok: true });
    const standalone = await runCli(['back', '1', '--dry-run', '--transcript', linear, '--project', project], { ...env, REWIND_NO_FORWARD: '1' });
    expect(viaApp.stdout).toBe(standalone.stdout);
    expect(viaApp.stderr).toBe(standalone.stderr);
    expect(viaApp.stdout).toMatch(/Dry run: would fork/);
    // Exit codes cross too.
    const bad = await runCli(['back', '99', '--transcript', linear], env);
    expect(bad.status, bad.stderr).toBe(3);
    expect(events.filter((e) => e.type === 'operationFinished')).toHaveLength(2);
    // With no app listening, the CLI works alone.
    const alone = await runCli(['back', '1', '--dry-run', '--transcript', linear, '--project', project], { ...env, REWIND_SOCKET: join(project, 'none.sock') });
    expect(alone.stdout).toBe(standalone.stdout);
  });

  it('the socket runs only the forwarded commands, from an absolute cwd', async () => {
    const { connect } = await import('node:net');
    const ask = (req: object) =>
      new Promise<{ code: number; stderr: string }>((r) => {
        let buf = '';
        const c = connect(sock, () => c.write(`${JSON.stringify(req)}\n`));
        c.on('data', (d) => (buf += d.toString()));
        c.on('end', () => r(JSON.parse(buf)));
      });
    const serve = await ask({ argv: ['serve', '--port', '0'], cwd: '/', env: {} });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/only back, restore, checkpoint, undo/);
    expect((await ask({ argv: ['--json', 'sessions'], cwd: '/', env: {} })).code).toBe(2);
    const rel = await ask({ argv: ['checkpoint'], cwd: 'relative/dir', env: {} });
    expect(rel.code).toBe(2);
    expect(rel.stderr).toMatch(/absolute/);
  });
});

describe('rewind-app serve as a process', () => {
  it('exits with code 2 after refusing a non-loopback host or a busy port', async () => {
    const home = await tempDir('rewind-serve-home-');
    const env = { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), REWIND_SOCKET: join(home, 'rewind.sock') };
    const wide = spawnSync(process.execPath, [CLI, 'serve', '--host', '0.0.0.0'], { env, encoding: 'utf8', timeout: 20_000 });
    expect(wide.status, wide.stderr).toBe(2);
    expect(wide.stderr).toMatch(/loopback only/);
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as { port: number }).port;
    const taken = await runCli(['serve', '--port', String(port)], env);
    busy.close();
    expect(taken.status, taken.stderr).toBe(2);
    expect(taken.stderr).toMatch(/in use/);
  });

  it('opens the demo on request, then ends on SIGTERM with code 0 and leaves no demo copy behind', async () => {
    const home = await tempDir('rewind-serve-home-');
    const env = { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), REWIND_SOCKET: join(home, 'rewind.sock') };
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const url = new URL(
      await new Promise<string>((r) =>
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /running at (\S+)/.exec(out);
          if (m) r(m[1]!);
        }),
      ),
    );
    const token = url.searchParams.get('token')!;
    const call = async (name: string, body: unknown) => (await fetch(`${url.origin}/api/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-rewind-token': token }, body: JSON.stringify(body) })).json() as Promise<{ ok: boolean; value: Record<string, unknown> }>;
    const settings = await call('setSettings', { demo: true });
    expect(settings.ok, err).toBe(true);
    const demoRoot = settings.value.claudeRoot as string;
    const sessions = await call('listSessions', {});
    expect((sessions.value.sessions as unknown[]).length).toBe(3);
    // A browser's event stream is still open when the user presses Ctrl-C.
    const events = await fetch(`${url.origin}/api/events`, { headers: { 'x-rewind-token': token } });
    expect(events.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited, err).toBe(0);
    expect(existsSync(demoRoot)).toBe(false);
  });

  it('stopped the moment its URL is out, it still closes: code 0, no demo copy left in its TMPDIR', async () => {
    const home = await tempDir('rewind-serve-home-');
    const tmp = await tempDir('rewind-serve-tmp-');
    const env = { ...process.env, HOME: home, TMPDIR: tmp, TEMP: tmp, TMP: tmp, REWIND_SOCKET: join(home, 'rewind.sock') };
    const child = spawn(process.execPath, [CLI, 'serve', '--demo', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/running at /.test(out)) child.kill('SIGTERM');
    });
    expect(await exited).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
