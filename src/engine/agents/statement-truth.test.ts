import { appendFile, cp, readFile, readdir, rm, utimes } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BRANCHED, CC_HOME, FIXTURES, LINEAR, SUBAGENT, tempDir } from '../../../test/fixtures.js';
import { checkTruth, type TruthResult } from '../../../test/statement-truth.js';
import { generateRewound } from '../../../bench/generate-rewound.js';
import type { AgentAdapter, RewindMode } from './adapter.js';
import { ADAPTERS } from './registry.js';

/**
 * Every agent, every recorded session (branched ones included), every prompt, both modes: the
 * preview's statement names every prompt the written result no longer holds (read back with the
 * adapter's own timeline, not from the plan), its live list is exactly the live prompts the result
 * no longer resumes with, and its kept end is the last one it does.
 */

interface Source {
  agent: AgentAdapter;
  /** Fixture folder copied whole for each case (a Codex thread reads the files it continues). */
  dir: string;
  /** Session files inside it. */
  files: string[];
  /** The copy's agent root, when the adapter wants one (Claude's file history). */
  root?: (copy: string) => string;
  /** Writes the session into an empty folder (instead of `dir`). */
  generate?: (dir: string) => Promise<void>;
  /** Turns a copy of the session into another shape first (a Gemini session rewound once). */
  prepare?: (path: string) => Promise<void>;
}

const codexDay = join('sessions', '2026', '11', '23');
const SOURCES: Record<string, Source[]> = {
  claude: [
    { agent: ADAPTERS.claude, dir: CC_HOME, files: [LINEAR, BRANCHED, SUBAGENT].map((f) => relative(CC_HOME, f)), root: (c) => c },
    // A generated session rewound natively 6 times: abandoned branches before and after every cut.
    { agent: ADAPTERS.claude, dir: '', files: ['rewound.jsonl'], generate: (dir) => generateRewound(join(dir, 'rewound.jsonl'), { messages: 160, rewinds: 6, seed: 3 }).then(() => undefined) },
  ],
  qwen: [
    {
      agent: ADAPTERS.qwen,
      dir: join(FIXTURES, 'qwen-real'),
      files: ['3bdbd358-530a-423f-975a-65a14b180033.jsonl', 'ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl', 'inplace-branch-ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl', join('native-rewind', 'e217908e-90f9-463a-8526-e6d70c1a6d5c.jsonl')],
    },
  ],
  droid: [{ agent: ADAPTERS.droid, dir: join(FIXTURES, 'droid-real'), files: ['16dfb43e-fda1-4b63-b9a3-2342bcc6d24e.jsonl', '4ff43fa7-7b7f-4da8-afc9-f88d5dd279bd.jsonl', join('native-rewind', '6051d471-5227-4553-b05b-88838ef014de.jsonl')] }],
  gemini: [
    { agent: ADAPTERS.gemini, dir: join(FIXTURES, 'gemini-real'), files: ['session-2026-11-23T11-33-f2a3037a.jsonl'] },
    {
      // A rewound session: its dropped prompts are a dead branch the file still holds.
      agent: ADAPTERS.gemini,
      dir: join(FIXTURES, 'gemini-real'),
      files: ['session-2026-11-23T11-33-f2a3037a.jsonl'],
      prepare: async (path) => {
        const t = await ADAPTERS.gemini.timeline(path);
        const live = t.prompts.filter((p) => p.active);
        await appendFile(path, `${JSON.stringify({ $rewindTo: live[live.length - 2]!.uuid })}\n`);
      },
    },
  ],
  codex: [
    {
      agent: ADAPTERS.codex,
      dir: join(FIXTURES, 'codex-0.169'),
      files: ['01a20831-0a9b-7362-9657-fdd051b67f43', '01a20831-139a-7673-bbc8-99f840ec37ff', '01a20831-1b9e-7022-895f-ab9622012353'],
    },
  ],
};

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((d) => rm(d, { recursive: true, force: true })));
});

async function fresh(src: Source, file: string): Promise<{ copy: string; path: string; project: string }> {
  const copy = await tempDir('rewind-truth-');
  const project = await tempDir('rewind-truth-project-');
  made.push(copy, project);
  await cp(src.dir, copy, { recursive: true });
  let path = join(copy, file);
  if (src.agent.id === 'codex') {
    const names = await readdir(join(copy, codexDay));
    path = join(copy, codexDay, names.find((n) => n.endsWith(`-${file}.jsonl`))!);
  }
  if (src.prepare) await src.prepare(path);
  // Recorded long ago: no rewrite is refused as live.
  const old = new Date(Date.now() - 3600_000);
  await utimes(path, old, old);
  return { copy, path, project };
}

async function runAgent(id: string): Promise<{ results: (TruthResult & { what: string })[] }> {
  const results: (TruthResult & { what: string })[] = [];
  for (const given of SOURCES[id]!) {
    const src = { ...given };
    if (src.generate) {
      src.dir = await tempDir('rewind-truth-gen-');
      made.push(src.dir);
      await src.generate(src.dir);
    }
    for (const file of src.files) {
      const first = await fresh(src, file);
      const prompts = (await src.agent.timeline(first.path)).prompts;
      for (const target of prompts) {
        for (const mode of ['fork', 'in-place'] as RewindMode[]) {
          const c = await fresh(src, file);
          const r = await checkTruth({ adapter: src.agent, path: c.path, target, mode, projectRoot: c.project, agentRoot: src.root?.(c.copy) ?? null });
          results.push({ ...r, what: `${file}${src.prepare ? ' (rewound once)' : ''} ${mode} at ${target.number ? `#${target.number}` : 'abandoned'} "${target.text.slice(0, 40)}"` });
        }
      }
    }
  }
  return { results };
}

describe.each(Object.keys(SOURCES))('%s: every preview names every prompt the result no longer holds', (id) => {
  it('every prompt of every recorded session, fork and in place', async () => {
    const { results } = await runAgent(id);
    const offered = results.filter((r) => !r.refused);
    const good = offered.filter((r) => r.namesEvery && r.liveExact && r.keptEndRight && r.sameAsWritten);
    const named = offered.filter((r) => r.namesEvery).length;
    const inPlace = offered.filter((r) => r.what.includes(' in-place at '));
    console.log(`${id} in place: ${inPlace.filter((r) => r.namesEvery).length} of ${inPlace.length}`);
    console.log(`${id}: ${named} of ${offered.length} previews name every removed prompt; ${good.length} also state the live list and kept end exactly (${results.length - offered.length} refused)`);
    for (const r of offered) {
      expect({ what: r.what, namesEvery: r.namesEvery, liveExact: r.liveExact, keptEndRight: r.keptEndRight, sameAsWritten: r.sameAsWritten, gone: r.gone.sort(), named: r.named.sort() }).toEqual({ what: r.what, namesEvery: true, liveExact: true, keptEndRight: true, sameAsWritten: true, gone: r.gone.sort(), named: r.gone.sort() });
    }
    expect(offered.length).toBeGreaterThan(4);
  }, 120_000);
});

it('the truth check can fail: a statement that leaves out what the file lost is caught', async () => {
  const src = SOURCES.claude![0]!;
  const c = await fresh(src, src.files[1]!);
  const t = await src.agent.timeline(c.path);
  const third = t.prompts.find((p) => p.number === 3)!;
  // The adapter with its statement cut back to the live prompts (what the window said before).
  const blind: AgentAdapter = { ...src.agent, rewind: async (req) => {
    const r = await src.agent.rewind!(req);
    return { ...r, statement: r.statement ? { ...r.statement, droppedOther: [] } : null };
  } };
  const r = await checkTruth({ adapter: blind, path: c.path, target: third, mode: 'in-place', projectRoot: c.project, agentRoot: c.copy });
  expect(r.namesEvery).toBe(false);
  expect(r.gone.sort()).toEqual(['BASH echo bashmade > c.txt', 'WRITE b.txt bee', 'WRITE d.txt branch two', 'WRITE e.txt after branch']);
  expect(await readFile(c.path, 'utf8')).not.toContain('bashmade');
});
