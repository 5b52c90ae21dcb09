import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTranscriptFile } from '../../src/engine/agents/claude/parse-transcript.js';
import { toTimeline } from '../../src/engine/agents/claude/timeline.js';
import type { ScriptedApi } from './scripted-api.js';
import { SCENARIOS, rewindFilesTree, runScenario, snapshotTree, type Scenario, type ScenarioSpec } from './scenario.js';
import { claudeOrSkip, ensureCliBuilt, rewindApp, withApi } from './harness.js';
import { HAND_PATHS, handEdit } from './agents/code-suite.js';
import { readAgentWrites } from '../../src/engine/store/agent-writes.js';

const claude = claudeOrSkip();
let api: ScriptedApi;
const s: Record<string, Scenario> = {};
/** The hooked session's tree at its end. */
let final: Record<string, string> = {};

/** Puts a working tree back to a snapshot: same files, same contents, nothing else (stores kept). */
async function resetTree(dir: string, snap: Record<string, string>): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.name === '.agent' || e.name === '.claude') continue;
    await rm(join(dir, e.name), { recursive: true, force: true });
  }
  for (const [p, c] of Object.entries(snap)) {
    await mkdir(dirname(join(dir, p)), { recursive: true });
    await writeFile(join(dir, p), c);
  }
}

const HOOKED: ScenarioSpec = { ...SCENARIOS.linear!, name: 'hooked' };

describe.runIf('bin' in claude)("code restore against the real CLI's own rewind", () => {
  beforeAll(async () => {
    if (!('bin' in claude)) return;
    ensureCliBuilt();
    api = await withApi();
    for (const name of ['linear', 'branched', 'subagent']) s[name] = await runScenario(SCENARIOS[name]!, { bin: claude.bin, apiUrl: api.url }, api);
    // The same linear session with our hooks installed in the project (local scope), as a user would.
    // The user edits files by hand between the prompts (handEdit: a change, new folders, a deletion, a rename).
    s.hooked = await runScenario(
      HOOKED,
      { bin: claude.bin, apiUrl: api.url },
      api,
      {},
      async (project) => {
        const r = rewindApp(['hooks', 'install', '--scope', 'local', '--project', project]);
        if (r.code !== 0) throw new Error(r.stderr);
      },
      handEdit,
    );
  });
  afterAll(async () => {
    await api?.close();
  });

  it('the hooks ran: one checkpoint before every prompt, tied to the session', async () => {
    const sc = s.hooked!;
    const r = rewindApp(['checkpoints', '--json', '--project', sc.project]);
    const cps = JSON.parse(r.stdout).checkpoints as { id: string; trigger: string; transcript: { session_id: string } | null }[];
    expect(cps.filter((c) => c.trigger === 'prompt')).toHaveLength(HOOKED.steps.length);
    expect(cps.every((c) => c.transcript?.session_id === sc.sessionId)).toBe(true);
    const hookLog = await readdir(join(sc.project, '.agent', 'rewind'));
    expect(hookLog).not.toContain('hook.log');
    // The tool hooks ran too (Claude Code tests the installed matcher, a regex, against each tool):
    // each Write the model made is recorded as the agent's.
    const writes = await readAgentWrites(sc.project, null);
    expect(writes.filter((w) => w.tool === 'Write').map((w) => w.path)).toContain('a.txt');
    // The timeline, in the terminal too, marks each prompt with the checkpoint taken before it.
    const t = rewindApp(['timeline', '--json', sc.transcript], { CLAUDE_CONFIG_DIR: sc.env.configDir });
    const prompts = JSON.parse(t.stdout).prompts as { checkpoint: { id: string } | null }[];
    expect(prompts.map((p) => p.checkpoint?.id)).toEqual(cps.filter((c) => c.trigger === 'prompt').map((c) => c.id));
    expect(rewindApp(['timeline', sc.transcript], { CLAUDE_CONFIG_DIR: sc.env.configDir }).stdout.match(/◆/g)).toHaveLength(HOOKED.steps.length);
  });

  it("restoring our checkpoint of each prompt gives the tree exactly as it was before it (Bash-made files and the user's own edits too)", async () => {
    const sc = s.hooked!;
    final = await snapshotTree(sc.project);
    const t = toTimeline(await parseTranscriptFile(sc.transcript));
    for (let i = t.prompts.length - 1; i >= 0; i--) {
      const p = t.prompts[i]!;
      const r = rewindApp(['restore', p.uuid, '--json', '--project', sc.project, '--transcript', sc.transcript]);
      expect(r.code, `${p.text}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).source).toBe('rewind');
      expect(await snapshotTree(sc.project), `tree before "${p.text}"`).toEqual(sc.steps[i]!.treeBefore);
    }
    // The Bash-made c.txt is gone before prompt 3 and back at prompt 4: Claude's own rewind cannot do that.
    expect(sc.steps[2]!.treeBefore['c.txt']).toBeUndefined();
    expect(sc.steps[3]!.treeBefore['c.txt']).toBe('bashmade\n');
    // The user's own edits are in each prompt's tree.
    expect(sc.steps[2]!.treeBefore['hand.txt']).toBe('changed by hand\n');
    expect(sc.steps[4]!.treeBefore['notes/renamed.md']).toBe('made by hand\n');
    await resetTree(sc.project, final);
  });

  it("revert of each prompt keeps the user's own edits before and after it; undo gives the final tree", async () => {
    const sc = s.hooked!;
    const t = toTimeline(await parseTranscriptFile(sc.transcript));
    await resetTree(sc.project, final);
    for (const [i, p] of t.prompts.entries()) {
      const r = rewindApp(['revert', p.uuid, '--take', 'before', '--force', '--json', '--project', sc.project, '--transcript', sc.transcript]);
      expect(r.code, `revert ${i + 1}: ${r.stderr}`).toBe(0);
      expect(HAND_PATHS(await snapshotTree(sc.project)), `revert of "${p.text}"`).toEqual(HAND_PATHS(final));
      if (JSON.parse(r.stdout).applied) expect(rewindApp(['undo', '--project', sc.project]).code).toBe(0);
      expect(await snapshotTree(sc.project)).toEqual(final);
    }
  });

  for (const name of ['linear', 'branched', 'subagent']) {
    it(`${name}: --source claude gives the same tree as claude --rewind-files, for every live prompt`, async () => {
      const sc = s[name]!;
      const final = await snapshotTree(sc.project);
      const t = toTimeline(await parseTranscriptFile(sc.transcript));
      const live = t.prompts.filter((p) => p.active);
      expect(live.length).toBeGreaterThan(2);
      let compared = 0;
      for (const p of live) {
        await resetTree(sc.project, final);
        let theirs: Record<string, string>;
        try {
          theirs = await rewindFilesTree(sc, sc.sessionId, p.uuid);
        } catch (e) {
          // Claude's resume path stops at a compaction: it cannot rewind files to prompts before one.
          if (name === 'subagent' && /is not a user message in this session/.test(String(e))) continue;
          throw e;
        }
        compared++;
        await resetTree(sc.project, final);
        const r = rewindApp(['restore', p.uuid, '--source', 'claude', '--force', '--json', '--project', sc.project, '--transcript', sc.transcript]);
        expect(r.code, r.stderr).toBe(0);
        expect(await snapshotTree(sc.project), `after restoring to before "${p.text}"`).toEqual(theirs);
      }
      expect(compared).toBeGreaterThanOrEqual(name === 'subagent' ? 1 : live.length);
      await resetTree(sc.project, final);
    });
  }
});
