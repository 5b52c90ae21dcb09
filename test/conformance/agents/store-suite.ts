import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentAdapter } from '../../../src/engine/agents/adapter.js';
import { ensureCliBuilt, rewindApp } from '../harness.js';
import { treeOf } from '../../agent-store.js';
import { tempDir } from '../../temp.js';
import { chatHistory, startChatApi, type ChatApi } from './chat-api.js';
import type { Said } from './suite.js';
import { runStore, setupStore, storeEnv, type StoreCli } from './store-cli.js';

/**
 * The conformance of an agent whose sessions live in a SQLite store (OpenCode, Kilo), judged by its
 * own CLI: the real CLI records one session; a fork and an in-place rewind made by `rewind-app
 * back` are resumed with `run -s ID`, and the model must be sent exactly the history it was sent
 * when the cut prompt first went out. Undo is checked against the store. One session for the
 * file: each CLI start costs seconds.
 */
export function storeConformance(s: StoreCli, adapter: AgentAdapter, bin: string): void {
  const PROMPTS = ['WRITE a.txt version one', 'BASH echo bashmade > c.txt', 'say three'];
  let api: ChatApi;
  let home: string;
  let project: string;
  let env: NodeJS.ProcessEnv;
  let id: string;
  let path: string;
  const firstSent: string[][] = [];

  const histories = () => api.requests.filter((r) => (r.tools ?? []).length > 0).map(chatHistory);
  async function send(sessionId: string | null, prompt: string): Promise<{ id: string; history: string[] }> {
    const before = histories().length;
    const sid = await runStore(bin, env, project, sessionId, prompt);
    const h = histories().slice(before).find((x) => x[x.length - 1] === `user: ${prompt}`);
    expect(h, `a model request carrying "${prompt}"`).toBeTruthy();
    return { id: sid, history: h! };
  }
  const before = (h: string[], prompt: string) => h.slice(0, h.lastIndexOf(`user: ${prompt}`));
  const back = (args: string[]) => rewindApp(['back', ...args, '--project', project, '--json'], env);
  /**
   * A rewind or undo the agent's server refuses with its own 5xx, asked again as a user would, up to
   * twice, 20 s apart. Kilo 7.7.7's server gives up a snapshot of the folder after 10 s ("snapshot
   * track slow; skipping for this service scope", its log) now and then on this 2-core machine, and
   * then fails the revert or unrevert; Rewind changed nothing (it already asks a fresh server once).
   * Any other failure, or the same one three times, fails the test.
   */
  const asUserWould = async (run: () => ReturnType<typeof rewindApp>) => {
    let r = run();
    for (let again = 0; again < 2 && r.code !== 0 && /refused POST \/session\/\S+\/(revert|unrevert): .*Unexpected server error/.test(r.stderr); again++) {
      await new Promise((ok) => setTimeout(ok, 20_000));
      r = run();
    }
    return r;
  };

  describe(`conformance with the real ${adapter.displayName} CLI`, () => {
    beforeAll(async () => {
      ensureCliBuilt();
      api = await startChatApi();
      home = await tempDir(`${adapter.id}-conf-`);
      project = join(home, 'proj');
      env = storeEnv(s, bin, home);
      await setupStore(s, home, project, api.url);
      let sid: string | null = null;
      for (const p of PROMPTS) {
        const r = await send(sid, p);
        sid ??= r.id;
        firstSent.push(r.history);
      }
      id = sid!;
      path = (await adapter.find(id, adapter.root(env)))!;
    }, 600_000);
    afterAll(async () => {
      await api?.close();
    });

    it(`the engine reads what ${adapter.displayName} wrote: the prompts in order with their tools`, async () => {
      expect(path).toBe(`${join(adapter.root(env), `${s.command}.db`)}#${id}`);
      const t = await adapter.timeline(path);
      expect(t.prompts.map((p) => p.text)).toEqual(PROMPTS);
      expect(t.prompts.map((p) => p.turn.toolCalls.map((c) => c.name))).toEqual([['write'], ['bash'], []]);
      const list = await adapter.summarize(adapter.root(env));
      expect(list.map((x) => [x.id, x.promptCount])).toEqual([[id, 3]]);
      // The app's list and search (the index) show it with the same counts, its prompts found.
      const l = rewindApp(['sessions', '--json'], env);
      expect(l.code, l.stderr).toBe(0);
      const listed = (JSON.parse(l.stdout) as { sessions: { id: string; agent: string; promptCount: number }[] }).sessions;
      expect(listed.filter((x) => x.id === id).map((x) => [x.agent, x.promptCount])).toEqual([[adapter.id, 3]]);
      const found = rewindApp(['search', 'bashmade', '--json'], env);
      expect(found.code, found.stderr).toBe(0);
      expect(found.stdout).toContain(id);
    });

    it(`without Rewind's hooks, restore falls back to ${adapter.displayName}'s own snapshots, labelled so; undo gives the tree back`, async () => {
      const files = async () => Object.fromEntries(Object.entries(await treeOf(project)).filter(([p]) => !p.startsWith('.git/')));
      const final = await files();
      expect(final).toEqual({ 'a.txt': 'version one\n', 'c.txt': 'bashmade\n' });
      const prompt2 = (await adapter.timeline(path)).prompts[1]!.uuid;
      const dry = rewindApp(['restore', prompt2, '--transcript', path, '--project', project, '--dry-run', '--json'], env, project);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stderr).toContain(`Source: ${adapter.displayName}'s own snapshots`);
      const r = rewindApp(['restore', prompt2, '--transcript', path, '--project', project, '--json'], env, project);
      expect(r.code, r.stderr).toBe(0);
      expect(await files()).toEqual({ 'a.txt': 'version one\n' });
      const u = rewindApp(['undo', '--project', project], env, project);
      expect(u.code, u.stderr).toBe(0);
      expect(await files()).toEqual(final);
    });

    it(`a running ${adapter.displayName} server of the user's in the project holds the session open: an in-place rewind is refused, a fork says how to go on`, async () => {
      // `serve` of the user's own (not the one Rewind starts for a rewind): it holds the store open.
      const served = spawn(bin, ['serve', '--hostname', '127.0.0.1', '--port', '0'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
      try {
        await new Promise<void>((ok, fail) => {
          const t = setTimeout(() => fail(new Error('the server did not start in 120 s')), 120_000);
          served.stdout.on('data', (b: Buffer) => {
            if (/listening on/.test(b.toString())) {
              clearTimeout(t);
              ok();
            }
          });
          served.once('exit', (c) => fail(new Error(`serve exited ${c}`)));
        });
        const r = back(['1', '--in-place', '--force', '--transcript', path]);
        expect(r.code).not.toBe(0);
        expect(r.stderr).toMatch(new RegExp(`open in ${adapter.displayName} \\(pid ${served.pid}\\)`));
        const f = back(['1', '--dry-run', '--transcript', path]);
        expect(f.code, f.stderr).toBe(0);
        expect((JSON.parse(f.stdout) as { open: { pid: number } | null }).open?.pid).toBe(served.pid);
      } finally {
        // Stopped as a user stops it, and waited for.
        const exited = new Promise((r) => served.once('exit', r));
        served.kill('SIGTERM');
        const late = setTimeout(() => served.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(late);
      }
      expect((JSON.parse(back(['1', '--dry-run', '--transcript', path]).stdout) as { open: unknown }).open ?? null).toBeNull();
    }, 300_000);

    it('back 1 (fork): the agent forks, resuming the fork sends the history sent before the last prompt; undo deletes the fork', async () => {
      const r = back(['1', '--transcript', path]);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { forkSessionId: string; forkPath: string; prompts: { text: string }[]; resumeCommand: string; statement: Said };
      expect(out.prompts.map((p) => p.text)).toEqual(['say three']);
      expect(out.statement.droppedLive.map((p) => p.text)).toEqual(['say three']);
      expect(out.statement.keptEnd?.text).toBe('BASH echo bashmade > c.txt');
      expect(out.resumeCommand).toBe(adapter.resumeCommand(out.forkSessionId));
      expect((await adapter.timeline(out.forkPath)).prompts.map((p) => p.text)).toEqual(PROMPTS.slice(0, 2));
      // Undo before the fork is used: the agent deletes it.
      const u = rewindApp(['undo', '--project', project], env);
      expect(u.code, u.stderr).toBe(0);
      expect(await adapter.find(out.forkSessionId, adapter.root(env))).toBeNull();
      // A second fork, resumed by the real CLI.
      const again = JSON.parse(back(['1', '--transcript', path]).stdout) as { forkSessionId: string };
      const next = 'NEXT after fork';
      const resumed = await send(again.forkSessionId, next);
      expect(resumed.id).toBe(again.forkSessionId);
      expect(before(resumed.history, next)).toEqual(before(firstSent[2]!, 'say three'));
      expect((await adapter.timeline(path)).prompts.map((p) => p.text)).toEqual(PROMPTS);
    }, 600_000);

    it('back 2 --in-place: the agent takes the prompts back (its own undo); undo puts them back; resuming sends the kept history', async () => {
      const r = await asUserWould(() => back(['2', '--in-place', '--force', '--transcript', path]));
      expect(r.code, r.stderr).toBe(0);
      const said = (JSON.parse(r.stdout) as { statement: Said }).statement;
      expect(said.droppedLive.map((p) => p.text)).toEqual(PROMPTS.slice(1));
      expect(said.keptEnd?.text).toBe(PROMPTS[0]);
      const t = await adapter.timeline(path);
      expect(t.prompts.filter((p) => p.active).map((p) => p.text)).toEqual(PROMPTS.slice(0, 1));
      // The agent's own revert puts back the files of the turns it takes back (c.txt was made by the shell).
      expect(existsSync(join(project, 'c.txt'))).toBe(false);
      const u = await asUserWould(() => rewindApp(['undo', '--project', project], env));
      expect(u.code, u.stderr).toBe(0);
      expect((await adapter.timeline(path)).prompts.filter((p) => p.active).map((p) => p.text)).toEqual(PROMPTS);
      expect(await readFile(join(project, 'c.txt'), 'utf8')).toBe('bashmade\n');
      // Again, and resumed: the model is sent what it was sent before prompt 2.
      const again = await asUserWould(() => back(['2', '--in-place', '--force', '--transcript', path]));
      expect(again.code, again.stderr).toBe(0);
      const next = 'NEXT after in-place';
      const resumed = await send(id, next);
      expect(before(resumed.history, next)).toEqual(before(firstSent[1]!, PROMPTS[1]!));
      // The agent deleted the messages at that prompt: undo can no longer put them back, and says so.
      const late = rewindApp(['undo', '--project', project], env);
      expect(late.code).not.toBe(0);
      expect(late.stderr).toMatch(/deleted the taken-back messages/);
      expect((await adapter.timeline(path)).prompts.map((p) => p.text)).toEqual([PROMPTS[0], next]);
    }, 600_000);
  });
}
