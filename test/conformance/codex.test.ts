import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCodexSession } from '../../src/engine/agents/codex/discover.js';
import { parseRollout } from '../../src/engine/agents/codex/rollout.js';
import { startCodexApi, userText, type CodexApi } from './codex-api.js';
import { resumedTurns } from './codex-app-server.js';
import { CODEX_VERSION, codexHome, ensureCodex, runCodex, type CodexEnv } from './codex-cli.js';
import { ensureCliBuilt, keepRecording, rewindApp } from './harness.js';
import { tempDir } from '../temp.js';
import type { Said } from './agents/suite.js';

/**
 * The real, pinned Codex CLI (codex-cli.ts) judges Codex rewinds: each fork and in-place rewrite Rewind makes is
 * resumed with `codex exec resume <id> "probe"`; the model must receive exactly the kept prompts,
 * and the resumed turn must land under the fork's id.
 */

const codex = ensureCodex();
const run = 'bin' in codex;
if (!run) {
  const banner = `\n${'!'.repeat(78)}\n!! CODEX CONFORMANCE SKIPPED: ${codex.skip}\n${'!'.repeat(78)}\n`;
  if (process.platform === 'linux' && process.arch === 'x64') throw new Error(`the Codex conformance tier must run on linux-x64: ${codex.skip}`);
  console.warn(banner);
}

const LINEAR = ['WRITE notes/a.txt alpha-one', 'WRITE b.txt beta-two', 'BASH echo gamma-three >> notes/a.txt', 'plain question four'];

let api: CodexApi;
let base: string;

interface Recorded {
  env: CodexEnv;
  cwd: string;
  threadId: string;
  rollout: string;
  /** For each prompt, the user messages of the request that first sent it to the model. */
  sent: string[][];
}

/** A fresh `$CODEX_HOME` and project, and a session of `prompts` recorded by the real CLI. */
async function record(name: string, prompts: string[]): Promise<Recorded> {
  const env: CodexEnv = { bin: (codex as { bin: string }).bin, apiUrl: api.url, home: await codexHome(join(base, name, 'codex-home'), api.url) };
  const cwd = join(base, name, 'project');
  await mkdir(cwd, { recursive: true });
  let threadId: string | null = null;
  const sent: string[][] = [];
  for (const p of prompts) {
    const from = api.requests.length;
    const r = await runCodex(env, cwd, threadId ? ['resume', threadId, p] : [p]);
    expect(r.code, r.stderr).toBe(0);
    threadId ??= r.threadId;
    // A compaction request may come first: the prompt's own request is the first that ends with it.
    const own = api.requests.slice(from).map((q) => q.input.map(userText).filter((t): t is string => t !== null)).find((u) => u[u.length - 1] === p);
    expect(own, `a request sent "${p}"`).toBeDefined();
    sent.push(own!);
  }
  expect(threadId).not.toBeNull();
  const rollout = (await findCodexSession(threadId!, env.home))!;
  // Codex has exited: the session is idle, as it is when a user rewinds.
  const past = new Date(Date.now() - 60_000);
  await utimes(rollout, past, past);
  return { env, cwd, threadId: threadId!, rollout, sent };
}

/** The user prompts of the last request the model got. */
function lastPrompts(): string[] {
  return api.requests[api.requests.length - 1]!.input.map(userText).filter((t): t is string => t !== null);
}

/** Resumes `id` with a probe: the history the model received, and the thread the turn landed in. */
async function probe(r: Recorded, id: string): Promise<{ prompts: string[]; threadId: string | null }> {
  const first = api.requests.length;
  const res = await runCodex(r.env, r.cwd, ['resume', id, 'probe']);
  expect(res.code, res.stderr).toBe(0);
  // Codex may compact first (a thread resumed where its context was full): the probe's own request counts.
  const own = api.requests.slice(first).map((q) => q.input.map(userText).filter((t): t is string => t !== null)).find((u) => u[u.length - 1] === 'probe');
  return { prompts: own ?? [], threadId: res.threadId };
}


/**
 * The statement against the resume and the file: (a) its live list is what the model no longer
 * gets, (b) its kept end is the last prompt it gets, (c) every prompt the written rollout lost is named.
 */
function statementHolds(said: Said, got: string[], all: string[], held: string[], what: string): void {
  const sent = got.filter((t) => all.includes(t));
  expect(said.droppedLive.map((p) => p.text), `${what} (a)`).toEqual(all.filter((t) => !sent.includes(t)));
  expect(said.keptEnd?.text ?? null, `${what} (b)`).toBe(sent[sent.length - 1] ?? null);
  const named = new Set([...said.droppedLive, ...said.droppedBranch, ...said.droppedOther, ...said.handedBack].map((p) => p.text));
  for (const t of all) if (!held.includes(t)) expect(named.has(t), `${what} (c) "${t}"`).toBe(true);
}

function back(r: Recorded, args: string[]) {
  return rewindApp(['back', ...args, '--transcript', r.rollout, '--project', r.cwd], { CODEX_HOME: r.env.home, HOME: r.env.home });
}

describe.runIf(run)(`conformance with the real Codex CLI ${CODEX_VERSION}`, () => {
  let linear: Recorded;
  beforeAll(async () => {
    ensureCliBuilt();
    api = await startCodexApi();
    base = await tempDir('rewind-codex-conf-');
    linear = await record('linear', LINEAR);
    await keepRecording('codex', linear.env.home);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('the engine reads what the CLI wrote: four prompts, their shell calls, no injected context', async () => {
    const t = await parseRollout(linear.rollout);
    expect(t.session.id).toBe(linear.threadId);
    expect(t.prompts.map((p) => p.text)).toEqual(LINEAR);
    expect(t.prompts.map((p) => p.turn.toolCalls.map((c) => c.name))).toEqual([['exec_command'], ['exec_command'], ['exec_command'], []]);
    expect(lastPrompts()).toEqual(LINEAR);
  });

  it('fork at every turn: resumed, the model gets exactly the kept prompts and the turn lands under the fork', async () => {
    const original = await readFile(linear.rollout);
    for (let n = 1; n <= LINEAR.length; n++) {
      const r = back(linear, [String(n), '--json']);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { forkSessionId: string; forkPath: string; resumeCommand: string; statement: Said };
      const id = out.forkSessionId;
      expect(out.resumeCommand).toBe(`codex resume ${id}`);
      const held = (await parseRollout(out.forkPath)).prompts.map((p) => p.text);
      if (n === 2) expect((await resumedTurns(linear.env, linear.cwd, id)).map((t) => t.join(' ')), "the fork's turns in the TUI").toEqual(LINEAR.slice(0, LINEAR.length - n));
      const seen = await probe(linear, id);
      statementHolds(out.statement, seen.prompts, LINEAR, held, `back ${n}`);
      expect(seen.prompts, `back ${n}`).toEqual([...LINEAR.slice(0, LINEAR.length - n), 'probe']);
      expect(seen.threadId).toBe(id);
      const fork = await parseRollout((await findCodexSession(id, linear.env.home))!);
      expect(fork.prompts.map((p) => p.text)).toEqual([...LINEAR.slice(0, LINEAR.length - n), 'probe']);
    }
    expect(await readFile(linear.rollout)).toEqual(original);
  });

  it('in place at a turn: resumed under the same id with the kept prompts; undo puts the rollout back', async () => {
    for (const n of [1, 3]) {
      const r = await record(`in-place-${n}`, LINEAR);
      const before = await readFile(r.rollout);
      const res = back(r, [String(n), '--in-place', '--json']);
      expect(res.code, res.stderr).toBe(0);
      const out = JSON.parse(res.stdout) as { backupPath: string; statement: Said };
      expect(out.backupPath).toBeTruthy();
      const held = (await parseRollout(r.rollout)).prompts.map((p) => p.text);
      // What the TUI shows on resume (the app-server's turns, from thread_history_1.sqlite): the kept prompts.
      expect((await resumedTurns(r.env, r.cwd, r.threadId)).map((t) => t.join(' ')), `back ${n} --in-place, the TUI's turns`).toEqual(LINEAR.slice(0, LINEAR.length - n));
      const seen = await probe(r, r.threadId);
      statementHolds(out.statement, seen.prompts, LINEAR, held, `back ${n} --in-place`);
      expect(seen.prompts, `back ${n} --in-place`).toEqual([...LINEAR.slice(0, LINEAR.length - n), 'probe']);
      expect(seen.threadId).toBe(r.threadId);
      expect((await parseRollout(r.rollout)).prompts.map((p) => p.text)).toEqual([...LINEAR.slice(0, LINEAR.length - n), 'probe']);
      // The resumed session went on: undo needs --force, and keeps what it replaces.
      const undo = rewindApp(['undo', '--force', '--project', r.cwd], { CODEX_HOME: r.env.home });
      expect(undo.code, undo.stderr).toBe(0);
      expect(await readFile(r.rollout)).toEqual(before);
    }
  });

  it("a fork of Codex's own reference fork carries the parent's prefix and resumes right", async () => {
    const r = await record('codex-fork', LINEAR.slice(0, 2));
    const f = await runCodex(r.env, r.cwd, ['fork', r.threadId, 'after codex fork']);
    expect(f.code, f.stderr).toBe(0);
    const forkRollout = (await findCodexSession(f.threadId!, r.env.home))!;
    expect((await parseRollout(forkRollout)).prompts.map((p) => p.text)).toEqual([...LINEAR.slice(0, 2), 'after codex fork']);
    const res = rewindApp(['back', '1', '--transcript', forkRollout, '--project', r.cwd], { CODEX_HOME: r.env.home });
    expect(res.code, res.stderr).toBe(0);
    const id = /^Fork created: (\S+)$/m.exec(res.stdout)![1]!;
    const seen = await probe(r, id);
    expect(seen.prompts).toEqual([...LINEAR.slice(0, 2), 'probe']);
    expect(seen.threadId).toBe(id);
    expect((await readdir(join(r.env.home, 'sessions'))).length).toBeGreaterThan(0);
  });

  it('in place is refused while Codex holds the thread (its writer lock), before anything is written', async () => {
    const r = await record('held', LINEAR.slice(0, 1));
    const running = runCodex(r.env, r.cwd, ['resume', r.threadId, 'BASH sleep 4']);
    const lock = join(r.env.home, 'thread-writer-locks', `${r.threadId}.lock`);
    for (let i = 0; i < 50 && !(await readdir(join(r.env.home, 'thread-writer-locks')).catch(() => [] as string[])).includes(`${r.threadId}.lock`); i++) await new Promise((res) => setTimeout(res, 100));
    const before = await readFile(r.rollout);
    const res = back(r, ['1', '--in-place']);
    expect(res.code, res.stderr).toBe(5);
    // Its lock is held (FORMATS.md §2d): the open-session refusal, naming Codex and the holder's pid.
    expect(existsSync(lock)).toBe(true);
    expect(res.stderr).toMatch(/refused: this session is open in Codex CLI \(pid \d+\)/);
    expect((await readFile(r.rollout)).subarray(0, before.length)).toEqual(before);
    expect((await running).code).toBe(0);
  });

  it('across an automatic compaction: every fork resumes with the history the model had when that prompt was first sent', async () => {
    const prompts = ['WRITE c1.txt comp-one', 'BIGUSAGE comp-two', 'plain comp three', 'plain comp four'];
    const r = await record('compacted', prompts);
    const t = await parseRollout(r.rollout);
    expect(t.prompts.map((p) => p.text)).toEqual(prompts);
    expect(t.compactions.length).toBeGreaterThan(0);
    for (let n = 1; n <= prompts.length; n++) {
      const res = back(r, [String(n)]);
      expect(res.code, res.stderr).toBe(0);
      const id = /^Fork created: (\S+)$/m.exec(res.stdout)![1]!;
      const before = r.sent[prompts.length - n]!;
      const seen = await probe(r, id);
      expect(seen.prompts, `back ${n}`).toEqual([...before.slice(0, -1), 'probe']);
      expect(seen.threadId).toBe(id);
    }
  });
});
