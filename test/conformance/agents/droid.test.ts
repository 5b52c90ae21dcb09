import { mkdir, mkdtemp, readFile, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { droid as adapter } from '../../../src/engine/agents/droid/adapter.js';
import { ensureCliBuilt, rewindApp } from '../harness.js';
import { chatHistory, startChatApi, type ChatApi } from './chat-api.js';
import { ensureNpmCli, orSkip, runCli } from './npm-cli.js';

/**
 * Factory Droid 0.225 as the judge (FORMATS.md §2b): it records a session against a scripted Chat
 * Completions server, then resumes every fork and in-place rewrite `rewind-app back` makes; the
 * history it sends the model must be the history it sent when the cut prompt was first sent.
 */
const DROID = orSkip(
  'Factory Droid',
  ensureNpmCli({
    dir: 'factory-cli-0.225.1',
    // 0.225.1's binary package is missing from the registry: the 0.225.2 one runs it.
    packages: ['@factory/cli@0.225.1', '@factory/cli-linux-x64@0.225.2'],
    bin: join('node_modules', '@factory', 'cli-linux-x64', 'bin', 'droid'),
    version: '0.225',
  }),
);

const PROMPTS = ['WRITE a.txt version one', 'WRITE b.txt bee', 'BASH echo bashmade > c.txt', 'just chatting'];

interface Recorded {
  home: string;
  project: string;
  path: string;
  id: string;
  /** The history (chatHistory) of the first request each prompt sent. */
  firstSent: string[][];
}

let api: ChatApi;
let rec: Recorded;

function env(home: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, FACTORY_API_BASE_URL: api.url, TERM: 'dumb', CI: '1', NO_COLOR: '1' };
}

async function droidRun(home: string, cwd: string, args: string[]): Promise<{ sessionId: string; requests: number }> {
  const before = api.requests.length;
  const r = await runCli(DROID!.cmd, ['exec', '-m', 'custom:Fake-0', '--auto', 'high', '-o', 'json', ...args], { cwd, env: env(home) });
  if (r.code !== 0) throw new Error(`droid ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)} ${r.stdout.slice(-1000)}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { session_id: string; is_error?: boolean };
  expect(out.is_error, r.stdout).toBeFalsy();
  return { sessionId: out.session_id, requests: before };
}

async function record(): Promise<Recorded> {
  const home = await mkdtemp(join(tmpdir(), 'droid-conf-'));
  const project = join(home, 'proj');
  await mkdir(join(home, '.factory'), { recursive: true });
  await mkdir(project);
  await writeFile(
    join(home, '.factory', 'settings.json'),
    JSON.stringify({ customModels: [{ model: 'fake-model', displayName: 'Fake', baseUrl: `${api.url}/v1`, apiKey: 'sk-test', provider: 'generic-chat-completion-api', maxOutputTokens: 4096 }] }),
  );
  const firstSent: string[][] = [];
  let id = '';
  for (const p of PROMPTS) {
    const r = await droidRun(home, project, id ? ['-s', id, p] : [p]);
    id ||= r.sessionId;
    firstSent.push(chatHistory(api.requests[r.requests]!));
  }
  const path = (await adapter.find(id, adapter.root(env(home))))!;
  expect(path, 'the session file Droid wrote').toBeTruthy();
  return { home, project, path, id, firstSent };
}

/** What the model must see before the resumed prompt after going back n. */
function expectedBefore(n: number): string[] {
  const h = rec.firstSent[PROMPTS.length - n]!;
  return h.slice(0, h.lastIndexOf(`user: ${PROMPTS[PROMPTS.length - n]}`));
}

async function resumedHistory(id: string, prompt: string): Promise<string[]> {
  const r = await droidRun(rec.home, rec.project, ['-s', id, prompt]);
  const h = chatHistory(api.requests[r.requests]!);
  expect(h[h.length - 1]).toBe(`user: ${prompt}`);
  return h.slice(0, -1);
}

describe.runIf(DROID)('conformance with the real Factory Droid CLI', () => {
  beforeAll(async () => {
    ensureCliBuilt();
    api = await startChatApi();
    rec = await record();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('the engine reads what Droid wrote: the prompts in order, the context message is not one', async () => {
    const t = await adapter.timeline(rec.path);
    expect(t.prompts.map((p) => p.text)).toEqual(PROMPTS);
    expect(t.prompts.map((p) => p.turn.toolCalls.map((c) => c.name))).toEqual([['Create'], ['Create'], ['Execute'], []]);
    expect(t.session.model).toBe('custom:Fake-0');
    const list = await adapter.summarize(adapter.root(env(rec.home)));
    expect(list.map((s) => [s.id, s.promptCount])).toEqual([[rec.id, 4]]);
    expect(expectedBefore(1).length).toBeGreaterThan(0);
  });

  for (const n of [1, 2, 3]) {
    it(`back ${n} (fork): droid exec -s <fork> sends the history it sent before that prompt; the original is untouched`, async () => {
      const before = await readFile(rec.path);
      const r = rewindApp(['back', String(n), '--transcript', rec.path, '--project', rec.project, '--json'], env(rec.home));
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { forkSessionId: string; prompts: { text: string }[]; resumeCommand: string };
      expect(out.prompts.map((p) => p.text)).toEqual(PROMPTS.slice(PROMPTS.length - n));
      expect(out.resumeCommand).toBe(`droid exec -s ${out.forkSessionId}`);
      expect(await resumedHistory(out.forkSessionId, `NEXT after fork ${n}`)).toEqual(expectedBefore(n));
      expect(await readFile(rec.path)).toEqual(before);
    });
  }

  for (const n of [1, 2]) {
    it(`back ${n} --in-place: droid exec -s <same id> sends the kept history; undo puts the file back`, async () => {
      // Each check rewrites its own copy: a fork of the original under a fresh id.
      const f = rewindApp(['back', '1', '--transcript', rec.path, '--project', rec.project, '--json'], env(rec.home));
      expect(f.code, f.stderr).toBe(0);
      const copy = JSON.parse(f.stdout) as { forkSessionId: string; forkPath: string };
      // The copy keeps prompts 1-3; going back n from it cuts before prompt 4-n.
      const past = new Date(Date.now() - 60_000);
      await utimes(copy.forkPath, past, past);
      const before = await readFile(copy.forkPath);
      const r = rewindApp(['back', String(n), '--in-place', '--transcript', copy.forkPath, '--project', rec.project, '--json'], env(rec.home));
      expect(r.code, r.stderr).toBe(0);
      const h = rec.firstSent[PROMPTS.length - 1 - n]!;
      const expected = h.slice(0, h.lastIndexOf(`user: ${PROMPTS[PROMPTS.length - 1 - n]}`));
      expect(await resumedHistory(copy.forkSessionId, `NEXT after in-place ${n}`)).toEqual(expected);
      // The resume appended to the rewritten file: undo refuses without --force, then puts the backup back.
      expect(rewindApp(['undo', '--project', rec.project], env(rec.home)).code).toBe(1);
      const u = rewindApp(['undo', '--force', '--project', rec.project], env(rec.home));
      expect(u.code, u.stderr).toBe(0);
      expect(await readFile(copy.forkPath)).toEqual(before);
    });
  }
});
