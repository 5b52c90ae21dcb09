import { mkdir, mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeOf } from '../../agent-store.js';
import { ensureCliBuilt, rewindApp } from '../harness.js';
import type { AgentUnderTest, ModelApi } from './suite.js';

/** How one real CLI records a session for the code suite. */
export interface CodeAgentUnderTest extends Omit<AgentUnderTest, 'prompts' | 'tools'> {
  /** Extra `hooks install` options (Codex: --trust). */
  installArgs?: string[];
  /** Its file tools take absolute paths only (Qwen): the WRITE prompts name the file by one. */
  absolutePaths?: boolean;
  /** Other prompts than CODE_PROMPTS (`{p}`: the project folder, with a slash, for agents that take absolute paths). */
  prompts?: string[];
  /** The edit prompt, when the agent's write tool will not overwrite a file it has not read (Qwen): a shell edit. */
  editPrompt?: string;
}

/**
 * A file write, a shell-made file, an edit, a shell deletion and a chat prompt: what every agent's
 * code restore must put back (FORMATS.md §2c). The edit rewrites the file the first prompt wrote.
 */
export const CODE_PROMPTS = ['WRITE {p}a.txt version one', 'BASH echo bashmade > c.txt', 'WRITE {p}a.txt version two', 'BASH rm c.txt keep.txt', 'just chatting'];

/**
 * The user's own edits between prompts, to files no prompt touches (no hook sees them): before #2 a
 * change, before #3 a new file in new folders, before #4 a deletion, before #5 a rename. Every
 * prompt's checkpoint must hold them (the whole tree as it was when the prompt was sent).
 */
export async function handEdit(project: string, beforePrompt: number): Promise<void> {
  if (beforePrompt === 0) await writeFile(join(project, 'hand.txt'), "the user's own file\n");
  if (beforePrompt === 1) await writeFile(join(project, 'hand.txt'), 'changed by hand\n');
  if (beforePrompt === 2) {
    await mkdir(join(project, 'notes', 'deep'), { recursive: true });
    await writeFile(join(project, 'notes', 'deep', 'new.md'), 'made by hand\n');
  }
  if (beforePrompt === 3) await unlink(join(project, 'hand.txt'));
  if (beforePrompt === 4) await rename(join(project, 'notes', 'deep', 'new.md'), join(project, 'notes', 'renamed.md'));
}
export const HAND_PATHS = (t: Record<string, string>) => Object.fromEntries(Object.entries(t).filter(([p]) => p === 'hand.txt' || p.startsWith('notes/')));

/**
 * The code suite every agent gets: with Rewind's hooks installed by `rewind-app hooks install
 * --agent <id>`, the real CLI records a session (each prompt a separate run resuming it by id),
 * the project's tree is recorded before each prompt, and `rewind-app restore <prompt id>` must give
 * exactly that tree back, shell-made files and deletions included; `undo` gives the final tree.
 */
export function codeConformance(a: CodeAgentUnderTest): void {
  let api: ModelApi;
  let home: string;
  let project: string;
  let path: string;
  const before: Record<string, string>[] = [];
  let final: Record<string, string>;
  const env = () => ({ ...a.env(home, api), REWIND_NO_FORWARD: '1' });
  let prompts: string[] = [];

  describe(`code restore with the real ${a.name} CLI and Rewind's hooks`, () => {
    beforeAll(async () => {
      ensureCliBuilt();
      api = await a.startApi();
      home = await mkdtemp(join(tmpdir(), `${a.adapter.id}-code-`));
      project = join(home, 'proj');
      await a.setup(home, project, api);
      await writeFile(join(project, 'keep.txt'), 'there before the session\n');
      const inst = rewindApp(['hooks', 'install', '--agent', a.adapter.id, '--scope', 'user', ...(a.installArgs ?? [])], env(), project);
      expect(inst.code, inst.stderr).toBe(0);
      prompts = (a.prompts ?? CODE_PROMPTS).map((p, i) => (i === 2 && a.editPrompt && !a.prompts ? a.editPrompt : p).replace('{p}', a.absolutePaths ? `${project}/` : ''));
      let sid: string | null = null;
      for (const [i, p] of prompts.entries()) {
        await handEdit(project, i);
        before.push(await treeOf(project));
        sid = await a.run(home, project, api, sid, p);
      }
      final = await treeOf(project);
      path = (await a.adapter.find(sid!, a.adapter.root(a.env(home, api))))!;
    });
    afterAll(async () => {
      await api?.close();
      if (home) await rm(home, { recursive: true, force: true });
    });

    it('the hooks are installed where the agent reads them, and status says it will run them', () => {
      const s = rewindApp(['hooks', 'status', '--agent', a.adapter.id, '--json'], env(), project);
      expect(s.code, s.stderr).toBe(0);
      const st = JSON.parse(s.stdout) as { agents: { scopes: { scope: string; events: string[]; willRun: boolean | null }[] }[] };
      const user = st.agents[0]!.scopes.find((x) => x.scope === 'user')!;
      expect(user.events.length).toBeGreaterThan(0);
      expect(user.willRun).toBe(true);
      // Every prompt but a chat one changed the tree: the trees recorded before them all differ.
      expect(new Set(before.map((t) => JSON.stringify(t))).size).toBe(before.length);
    });

    it.skipIf(!!a.prompts)('the session did what the prompts asked (the trees differ at every step)', async () => {
      expect(path, 'the session file').toBeTruthy();
      const t = await a.adapter.timeline(path);
      expect(t.prompts.map((p) => p.text)).toEqual(prompts);
      expect(before[1]!['a.txt']).toBe('version one\n');
      expect(before[2]!['c.txt']).toBe('bashmade\n');
      expect(before[3]!['a.txt']).toBe('version two\n');
      expect(final).toEqual({ 'a.txt': 'version two\n', 'notes/renamed.md': 'made by hand\n' });
      expect(before[2]!['hand.txt']).toBe('changed by hand\n');
      // Every prompt is marked as having a Rewind checkpoint.
      const tl = rewindApp(['timeline', path, '--json'], env(), project);
      expect(tl.code, tl.stderr).toBe(0);
      const marks = (JSON.parse(tl.stdout) as { prompts: { checkpoint: unknown }[] }).prompts.map((p) => !!p.checkpoint);
      expect(marks).toEqual(CODE_PROMPTS.map(() => true));
      // Taken by the hook's detached child (the first one and the later prompts' alike: the tools waited
      // for them), none with a note that a tool ran before it was complete.
      const cps = rewindApp(['checkpoints', '--project', project, '--json'], env(), project);
      const list = (JSON.parse(cps.stdout) as { checkpoints: { trigger: string; background?: { note?: string } }[] }).checkpoints.filter((c) => c.trigger === 'prompt');
      expect(list.filter((c) => c.background).length, cps.stdout).toBeGreaterThanOrEqual(2);
      expect(list.filter((c) => c.background?.note)).toEqual([]);
    });

    it('back --both --to #3 forks before the edit and puts the code as it was then; one undo reverts both', async () => {
      const r = rewindApp(['back', '--both', '--to', '#3', '--transcript', path, '--project', project, '--json'], env(), project);
      expect(r.code, r.stderr).toBe(0);
      expect(await treeOf(project)).toEqual(before[2]);
      const u = rewindApp(['undo', '--project', project], env(), project);
      expect(u.code, u.stderr).toBe(0);
      expect(await treeOf(project)).toEqual(final);
    });

    it("revert of each prompt takes back only that prompt's changes: the user's own edits before and after it stay; undo gives the final tree", async () => {
      const t = await a.adapter.timeline(path);
      for (const [i, p] of t.prompts.entries()) {
        const r = rewindApp(['revert', p.uuid, '--transcript', path, '--project', project, '--take', 'before', '--force', '--json'], env(), project);
        expect(r.code, `revert ${i + 1}: ${r.stderr}`).toBe(0);
        expect(HAND_PATHS(await treeOf(project)), `revert of prompt ${i + 1}`).toEqual(HAND_PATHS(final));
        if (JSON.parse(r.stdout).applied) {
          const u = rewindApp(['undo', '--project', project], env(), project);
          expect(u.code, u.stderr).toBe(0);
        }
        expect(await treeOf(project)).toEqual(final);
      }
    });

    const list = a.prompts ?? CODE_PROMPTS;
    for (let i = list.length - 1; i >= 0; i--) {
      it(`restore to before prompt ${i + 1} ("${list[i]!.replace('{p}', '')}") gives the tree as it was then; undo gives the final tree back`, async () => {
        const t = await a.adapter.timeline(path);
        const id = t.prompts[i]!.uuid;
        const dry = rewindApp(['restore', id, '--transcript', path, '--project', project, '--dry-run', '--json'], env(), project);
        expect(dry.code, dry.stderr).toBe(0);
        expect(dry.stderr).toMatch(/Source: Rewind checkpoint/);
        const r = rewindApp(['restore', id, '--transcript', path, '--project', project, '--json'], env(), project);
        expect(r.code, r.stderr).toBe(0);
        expect(await treeOf(project)).toEqual(before[i]);
        const u = rewindApp(['undo', '--project', project], env(), project);
        expect(u.code, u.stderr).toBe(0);
        expect(await treeOf(project)).toEqual(final);
      });
    }
  });
}
