import { readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentAdapter } from '../../../src/engine/agents/adapter.js';
import { ensureCliBuilt, keepRecording, rewindApp } from '../harness.js';
import { tempDir } from '../../temp.js';

/** A scripted model server: what each request told the model happened, one line per message. */
export interface ModelApi {
  url: string;
  /** Every model request so far, as `user: words` / `assistant: text` / `call: tool` / `tool: result` lines. */
  histories(): string[][];
  close(): Promise<void>;
}

/** What a rewind's `--json` statement says of the prompts (the parts every conformance check reads). */
export interface Said {
  keptEnd: { text: string } | null;
  droppedLive: { text: string }[];
  droppedBranch: { text: string }[];
  droppedOther: { text: string }[];
  handedBack: { text: string }[];
}

/** How one real CLI is driven: set up a home, run a prompt (new or resumed session). */
export interface AgentUnderTest {
  name: string;
  adapter: AgentAdapter;
  startApi(): Promise<ModelApi>;
  /** Environment for every run of the CLI (and of rewind-app, so it finds the sessions). */
  env(home: string, api: ModelApi): NodeJS.ProcessEnv;
  setup(home: string, project: string, api: ModelApi): Promise<void>;
  /** Runs one prompt; resumes `sessionId` when given. Returns the session id it ran under. */
  run(home: string, project: string, api: ModelApi, sessionId: string | null, prompt: string): Promise<string>;
  prompts: string[];
  /** Tool names each prompt's turn shows in our timeline. */
  tools: string[][];
}

/**
 * The conformance suite every agent gets: the real CLI records a session; every fork and in-place
 * rewrite `rewind-app back` makes, resumed by that CLI, must send the model exactly the history it
 * sent when the cut prompt was first sent (the kept prompts, their turns, nothing after).
 */
export function agentConformance(a: AgentUnderTest): void {
  let api: ModelApi;
  let home: string;
  let project: string;
  let id: string;
  let path: string;
  const firstSent: string[][] = [];

  /** Runs a prompt and returns the history of the first request that carried it. */
  async function send(sessionId: string | null, prompt: string): Promise<{ id: string; history: string[] }> {
    const before = api.histories().length;
    const sid = await a.run(home, project, api, sessionId, prompt);
    const h = api.histories().slice(before).find((x) => x[x.length - 1] === `user: ${prompt}`);
    expect(h, `a model request carrying "${prompt}"`).toBeTruthy();
    return { id: sid, history: h! };
  }

  const before = (h: string[], prompt: string) => h.slice(0, h.lastIndexOf(`user: ${prompt}`));

  /**
   * The statement against the real CLI and the file: (a) its live list is what the resume no longer
   * sends, (b) its kept end is the last prompt the resume sends, (c) every prompt the written file
   * no longer holds (read back with the adapter's timeline) is named.
   */
  async function statementHolds(said: Said, sent: string[], file: string, beforeTexts: string[], liveBefore: string[], what: string): Promise<void> {
    const received = sent.filter((l) => l.startsWith('user: ')).map((l) => l.slice(6)).filter((t) => beforeTexts.includes(t));
    expect(said.droppedLive.map((p) => p.text), `${what}: (a) the live prompts named are the ones no longer sent`).toEqual(liveBefore.filter((t) => !received.includes(t)));
    expect(said.keptEnd?.text ?? null, `${what}: (b) the kept end is the last prompt sent`).toBe(received[received.length - 1] ?? null);
    const after = new Set((await a.adapter.timeline(file)).prompts.map((p) => p.text));
    const named = new Set([...said.droppedLive, ...said.droppedBranch, ...said.droppedOther, ...said.handedBack].map((p) => p.text));
    for (const t of beforeTexts) if (!after.has(t)) expect(named.has(t), `${what}: (c) "${t}" left the file and is named`).toBe(true);
  }

  describe(`conformance with the real ${a.name} CLI`, () => {
    beforeAll(async () => {
      ensureCliBuilt();
      api = await a.startApi();
      home = await tempDir(`${a.adapter.id}-conf-`);
      project = join(home, 'proj');
      await a.setup(home, project, api);
      let sid: string | null = null;
      for (const p of a.prompts) {
        const r = await send(sid, p);
        sid ??= r.id;
        firstSent.push(r.history);
      }
      id = sid!;
      path = (await a.adapter.find(id, a.adapter.root(a.env(home, api))))!;
      await keepRecording(a.adapter.id, home);
    });
    afterAll(async () => {
      await api?.close();
    });

    it(`the engine reads what ${a.name} wrote: the prompts in order with their tools`, async () => {
      expect(path, 'the session file the CLI wrote').toBeTruthy();
      const t = await a.adapter.timeline(path);
      expect(t.prompts.map((p) => p.text)).toEqual(a.prompts);
      expect(t.prompts.map((p) => p.turn.toolCalls.map((c) => c.name))).toEqual(a.tools);
      const list = await a.adapter.summarize(a.adapter.root(a.env(home, api)));
      expect(list.map((s) => [s.id, s.promptCount])).toEqual([[id, a.prompts.length]]);
    });

    // Every prompt but the first (nothing would be left before it).
    for (const n of a.prompts.slice(1).map((_, i) => i + 1)) {
      it(`back ${n} (fork): resuming the fork sends the history sent before that prompt; the original is untouched`, async () => {
        const original = await readFile(path);
        const r = rewindApp(['back', String(n), '--transcript', path, '--project', project, '--json'], a.env(home, api));
        expect(r.code, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout) as { forkSessionId: string; forkPath: string; prompts: { text: string }[]; resumeCommand: string; statement: Said };
        expect(out.prompts.map((p) => p.text)).toEqual(a.prompts.slice(a.prompts.length - n));
        expect(out.resumeCommand).toBe(a.adapter.resumeCommand(out.forkSessionId));
        const cut = a.prompts[a.prompts.length - n]!;
        const expected = before(firstSent[a.prompts.length - n]!, cut);
        expect(expected.length, 'a non-empty expected history').toBeGreaterThan(0);
        const next = `NEXT after fork ${n}`;
        const resumed = await send(out.forkSessionId, next);
        expect(resumed.id).toBe(out.forkSessionId);
        expect(before(resumed.history, next)).toEqual(expected);
        expect(await readFile(path)).toEqual(original);
        await statementHolds(out.statement, before(resumed.history, next), out.forkPath, a.prompts, a.prompts, `back ${n} (fork)`);
      });
    }

    // On a fork holding all but the last prompt: every prompt of it but the first.
    for (const n of a.prompts.slice(2).map((_, i) => i + 1)) {
      it(`back ${n} --in-place: resuming the same id sends the kept history; undo puts the file back`, async () => {
        // Each check rewrites its own copy: a fork of the whole session (back 1 keeps prompts 1..k-1).
        const f = rewindApp(['back', '1', '--transcript', path, '--project', project, '--json'], a.env(home, api));
        expect(f.code, f.stderr).toBe(0);
        const copy = JSON.parse(f.stdout) as { forkSessionId: string; forkPath: string };
        const past = new Date(Date.now() - 60_000);
        await utimes(copy.forkPath, past, past);
        const original = await readFile(copy.forkPath);
        const kept = (await a.adapter.timeline(copy.forkPath)).prompts.map((p) => p.text);
        const r = rewindApp(['back', String(n), '--in-place', '--transcript', copy.forkPath, '--project', project, '--json'], a.env(home, api));
        expect(r.code, r.stderr).toBe(0);
        const said = (JSON.parse(r.stdout) as { statement: Said }).statement;
        // Read the written file before the resume appends to it.
        const written = await a.adapter.timeline(copy.forkPath);
        const k = a.prompts.length - 1 - n;
        const expected = before(firstSent[k]!, a.prompts[k]!);
        const next = `NEXT after in-place ${n}`;
        const resumed = await send(copy.forkSessionId, next);
        expect(before(resumed.history, next)).toEqual(expected);
        const received = before(resumed.history, next).filter((l) => l.startsWith('user: ')).map((l) => l.slice(6)).filter((t) => kept.includes(t));
        expect(said.droppedLive.map((p) => p.text), `back ${n} --in-place: (a)`).toEqual(kept.filter((t) => !received.includes(t)));
        expect(said.keptEnd?.text ?? null, `back ${n} --in-place: (b)`).toBe(received[received.length - 1] ?? null);
        const held = new Set(written.prompts.map((p) => p.text));
        const named = new Set([...said.droppedLive, ...said.droppedBranch, ...said.droppedOther, ...said.handedBack].map((p) => p.text));
        for (const t of kept) if (!held.has(t)) expect(named.has(t), `back ${n} --in-place: (c) "${t}"`).toBe(true);
        // The resume wrote to the rewritten file: undo refuses without --force, then puts the backup back.
        expect(rewindApp(['undo', '--project', project], a.env(home, api)).code).toBe(1);
        const u = rewindApp(['undo', '--force', '--project', project], a.env(home, api));
        expect(u.code, u.stderr).toBe(0);
        expect(await readFile(copy.forkPath)).toEqual(original);
      });
    }
  });
}
