import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../fixtures.js';
import { restoreFromAgent, treeOf } from '../../agent-store.js';
import { chatModelApi } from './chat-model.js';
import { DROID_CLI, ensureNpmCli, orSkip } from './npm-cli.js';
import type { ModelApi } from './suite.js';
import { tempEnv } from '../../temp.js';

/**
 * Droid writes its file snapshots only in its TUI and stream-jsonrpc modes (not `droid exec`):
 * this drives `droid exec --input-format stream-jsonrpc` against the scripted model, records the
 * project before every prompt, then restores from Droid's own snapshots to before each prompt and
 * compares with the tree the real CLI saw.
 */
const DROID = orSkip(
  'Factory Droid',
  ensureNpmCli(DROID_CLI),
);

type Msg = { type?: string; id?: string | null; method?: string; result?: unknown; error?: { message: string }; params?: { notification?: { type?: string; newState?: string } } };

/** One droid process spoken to in JSON-RPC lines. */
class JsonRpcDroid {
  private buf = '';
  private seen: Msg[] = [];
  private waiters: (() => void)[] = [];
  private n = 0;
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (b: Buffer) => {
      this.buf += b.toString('utf8');
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) !== -1) {
        const line = this.buf.slice(0, nl).trim();
        this.buf = this.buf.slice(nl + 1);
        if (!line) continue;
        try {
          this.seen.push(JSON.parse(line) as Msg);
        } catch {
          continue;
        }
        for (const w of this.waiters.splice(0)) w();
      }
    });
  }
  private async until<T>(pick: (m: Msg, i: number) => T | null, from: number, ms = 60_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      for (let i = from; i < this.seen.length; i++) {
        const v = pick(this.seen[i]!, i);
        if (v !== null) return v;
      }
      if (Date.now() > end) throw new Error(`droid did not answer in time; last lines: ${JSON.stringify(this.seen.slice(-5)).slice(0, 2000)}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 200);
      });
    }
  }
  async call(method: string, params: object): Promise<unknown> {
    const id = String(++this.n);
    const from = this.seen.length;
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', type: 'request', factoryApiVersion: '1.0.0', id, method, params })}\n`);
    const m = await this.until((x) => (x.type === 'response' && x.id === id ? x : null), from);
    if (m.error) throw new Error(`${method}: ${m.error.message}`);
    return m.result;
  }
  /** Sends a prompt and waits until droid is idle again after working on it. */
  async prompt(text: string): Promise<void> {
    const from = this.seen.length;
    await this.call('droid.add_user_message', { text });
    const busy = await this.until((m, i) => (m.params?.notification?.type === 'droid_working_state_changed' && m.params.notification.newState !== 'idle' ? i : null), from);
    await this.until((m) => (m.params?.notification?.type === 'droid_working_state_changed' && m.params.notification.newState === 'idle' ? true : null), busy + 1);
  }
}

const PROMPTS = ['WRITE a.txt version one', 'WRITE a.txt version two', 'WRITE b.txt bee', 'just chatting'];

/** `droid exec` in stream-jsonrpc mode outlives a SIGTERM: then SIGKILL, and wait for it to be gone. */
async function stopDroid(c: ChildProcessWithoutNullStreams): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const gone = new Promise((r) => c.once('exit', r));
  c.kill('SIGTERM');
  const hard = setTimeout(() => c.kill('SIGKILL'), 2000);
  await gone;
  clearTimeout(hard);
}

describe.runIf(DROID)("Factory Droid's own snapshots, recorded by the real CLI (stream-jsonrpc)", () => {
  let api: ModelApi;
  let home: string;
  let project: string;
  let child: ChildProcessWithoutNullStreams;
  let sessionId: string;
  const before: Record<string, string>[] = [];

  beforeAll(async () => {
    api = await chatModelApi();
    home = await tempDir('droid-rpc-home-');
    project = join(home, 'proj');
    await mkdir(join(home, '.factory'), { recursive: true });
    await mkdir(project, { recursive: true });
    const model = { model: 'fake-model', displayName: 'Fake', baseUrl: `${api.url}/v1`, apiKey: 'sk-test', provider: 'generic-chat-completion-api', maxOutputTokens: 4096 };
    await writeFile(join(home, '.factory', 'settings.json'), JSON.stringify({ customModels: [model] }));
    await writeFile(join(project, 'a.txt'), 'v0\n');
    await writeFile(join(project, 'gone.txt'), 'deleted by hand later\n');
    const env = { PATH: process.env.PATH, ...tempEnv(), HOME: home, FACTORY_API_BASE_URL: api.url, TERM: 'dumb', CI: '1', NO_COLOR: '1' };
    child = spawn(DROID!.cmd[0]!, [...DROID!.cmd.slice(1), 'exec', '--input-format', 'stream-jsonrpc', '--output-format', 'stream-jsonrpc', '--auto', 'high', '-m', 'custom:Fake-0'], { cwd: project, env, stdio: 'pipe' });
    const rpc = new JsonRpcDroid(child);
    const init = (await rpc.call('droid.initialize_session', { machineId: 'rewind-test', cwd: project })) as { sessionId: string };
    sessionId = init.sessionId;
    await rpc.call('droid.update_session_settings', { modelId: 'custom:Fake-0', autonomyLevel: 'high' });
    for (const p of PROMPTS) {
      before.push(await treeOf(project));
      await rpc.prompt(p);
    }
    await stopDroid(child);
    // Deleted by hand after the session: restoring before any prompt puts it back.
    await rm(join(project, 'gone.txt'));
  }, 240_000);

  afterAll(async () => {
    if (child) await stopDroid(child);
    await api?.close();
  });

  it('restoring from its snapshots to before each prompt gives the tree the real CLI saw then', async () => {
    const sessions = join(home, '.factory', 'sessions');
    const dirs = await readdir(sessions);
    const transcript = join(sessions, dirs[0]!, `${sessionId}.jsonl`);
    const { readDroidTimeline } = await import('../../../src/engine/agents/droid/discover.js');
    const t = await readDroidTimeline(transcript);
    expect(t.prompts.map((p) => p.text)).toEqual(PROMPTS);
    const final = await treeOf(project);
    // After the last prompt nothing was edited: Droid's store has nothing for it (the one-line answer), and nothing changed since.
    await expect(restoreFromAgent(project, transcript, t.prompts[3]!.uuid)).rejects.toMatchObject({ code: 'NO_CHECKPOINT' });
    expect({ ...before[3]!, 'gone.txt': undefined }).toEqual({ ...final, 'gone.txt': undefined });
    for (let i = PROMPTS.length - 2; i >= 0; i--) {
      const r = await restoreFromAgent(project, transcript, t.prompts[i]!.uuid, { force: true });
      const want = { ...before[i]! };
      // Droid never saw gone.txt change: its snapshots do not speak for it.
      if (!('gone.txt' in final)) delete want['gone.txt'];
      const got = await treeOf(project);
      delete got['gone.txt'];
      expect(got, `before "${PROMPTS[i]}" (${r.preview.target.note})`).toEqual(want);
    }
  });
});
