import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../fixtures.js';
import { restoreFromAgent, treeOf } from '../../agent-store.js';
import { chatModelApi } from './chat-model.js';
import { QWEN_CLI, ensureNpmCli, orSkip } from './npm-cli.js';
import type { ModelApi } from './suite.js';
import { tempEnv } from '../../temp.js';

/**
 * Qwen writes its file history only in its interactive and daemon-like modes (not `qwen "P"`):
 * this drives `qwen --acp` (the Agent Client Protocol, JSON-RPC on stdio) against the scripted
 * model, records the project before every prompt, then restores from Qwen's own file history to
 * before each prompt and compares with the tree the real CLI saw.
 */
const QWEN = orSkip(
  'Qwen Code',
  ensureNpmCli(QWEN_CLI),
);

type Msg = { jsonrpc: '2.0'; id?: number | string; method?: string; params?: Record<string, unknown>; result?: unknown; error?: { message: string } };

class Acp {
  private buf = '';
  private pending = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
  private n = 0;
  readonly log: Msg[] = [];
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (b: Buffer) => {
      this.buf += b.toString('utf8');
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) !== -1) {
        const line = this.buf.slice(0, nl).trim();
        this.buf = this.buf.slice(nl + 1);
        if (!line.startsWith('{')) continue;
        const m = JSON.parse(line) as Msg;
        this.log.push(m);
        if (m.method && m.id !== undefined) this.answer(m);
        else if (m.id !== undefined && typeof m.id === 'number') {
          const p = this.pending.get(m.id);
          this.pending.delete(m.id);
          if (m.error) p?.fail(new Error(m.error.message));
          else p?.ok(m.result);
        }
      }
    });
  }
  /** The agent asks for permission (yolo should not): allow once. */
  private answer(m: Msg): void {
    const options = (m.params?.options as { optionId: string; kind: string }[] | undefined) ?? [];
    const allow = options.find((o) => o.kind.startsWith('allow')) ?? options[0];
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { outcome: { outcome: 'selected', optionId: allow?.optionId } } })}\n`);
  }
  call(method: string, params: object, ms = 120_000): Promise<unknown> {
    const id = ++this.n;
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return new Promise((ok, fail) => {
      this.pending.set(id, { ok, fail });
      setTimeout(() => fail(new Error(`${method}: no answer in ${ms} ms; last: ${JSON.stringify(this.log.slice(-3)).slice(0, 1500)}`)), ms).unref();
    });
  }
}

// Qwen's tools in ACP mode take absolute paths only (the scripted model writes what the prompt names).
const PROMPTS = ['WRITE {p}/a.txt version one', 'WRITE {p}/a.txt version two', 'WRITE {p}/b.txt bee'];

describe.runIf(QWEN)("Qwen Code's own file history, recorded by the real CLI (--acp)", () => {
  let api: ModelApi;
  let home: string;
  let project: string;
  let child: ChildProcessWithoutNullStreams;
  let sessionId: string;
  const before: Record<string, string>[] = [];

  beforeAll(async () => {
    api = await chatModelApi();
    home = await tempDir('qwen-acp-home-');
    project = join(home, 'proj');
    await mkdir(project, { recursive: true });
    // Qwen refuses to overwrite a file it has not read in the session (the scripted model does not
    // read first): the session creates a.txt, then overwrites its own file.
    await writeFile(join(project, 'keep.txt'), 'untouched\n');
    const env = { PATH: process.env.PATH, ...tempEnv(), HOME: home, OPENAI_BASE_URL: `${api.url}/v1`, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'fake-model', QWEN_CODE_SUPPRESS_YOLO_WARNING: '1', TERM: 'dumb', CI: '1', NO_COLOR: '1' };
    child = spawn(QWEN!.cmd[0]!, [...QWEN!.cmd.slice(1), '--acp', '--approval-mode', 'yolo'], { cwd: project, env, stdio: 'pipe' });
    const acp = new Acp(child);
    await acp.call('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
    const s = (await acp.call('session/new', { cwd: project, mcpServers: [] })) as { sessionId: string };
    sessionId = s.sessionId;
    for (const p of PROMPTS) {
      before.push(await treeOf(project));
      await acp.call('session/prompt', { sessionId, prompt: [{ type: 'text', text: p.replace('{p}', project) }] });
    }
    child.kill();
  }, 240_000);

  afterAll(async () => {
    child?.kill();
    await api?.close();
  });

  it('restoring from its file history to before each prompt gives the tree the real CLI saw then', async () => {
    const projects = join(home, '.qwen', 'projects');
    const dirs = await readdir(projects);
    const transcript = join(projects, dirs[0]!, 'chats', `${sessionId}.jsonl`);
    const { readQwenTimeline } = await import('../../../src/engine/agents/qwen/discover.js');
    const t = await readQwenTimeline(transcript);
    expect(t.prompts.map((p) => p.text)).toEqual(PROMPTS.map((p) => p.replace('{p}', project)));
    expect(await treeOf(project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n', 'keep.txt': 'untouched\n' });
    for (let i = PROMPTS.length - 1; i >= 0; i--) {
      const r = await restoreFromAgent(project, transcript, t.prompts[i]!.uuid, { force: true });
      expect(await treeOf(project), `before "${PROMPTS[i]}" (${r.preview.target.note})`).toEqual(before[i]);
    }
  });
});
