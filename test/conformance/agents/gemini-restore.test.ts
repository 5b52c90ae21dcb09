import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { killTree } from './kill-tree.js';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../fixtures.js';
import { hasGit, restoreFromAgent, treeOf } from '../../agent-store.js';
import { geminiModelApi } from './gemini-api.js';
import { GEMINI_CLI, ensureNpmCli, orSkip } from './npm-cli.js';
import type { ModelApi } from './suite.js';
import { tempEnv } from '../../temp.js';

/**
 * Gemini writes its checkpoints only from its interactive (Ink) terminal UI: `-p` and the ACP mode
 * never call processRestorableToolCalls. This runs that UI under util-linux `script` (a terminal,
 * as the /rewind check in gemini.test.ts does), types the prompts and approves each edit, records
 * the project before each, then restores from Gemini's own checkpoints (read from its shadow git)
 * to before each prompt.
 */
const GEMINI = orSkip(
  'Gemini CLI',
  ensureNpmCli(GEMINI_CLI),
);
const HAS_GIT = hasGit();
// util-linux `script` gives the CLI its terminal (macOS's takes other arguments); Gemini's checkpoints need git.
const TERMINAL = process.platform === 'linux' && HAS_GIT;
if (GEMINI && !TERMINAL) console.warn("\n!! Gemini CLI: the checkpoint restore check runs on Linux with git only (util-linux script gives the interactive UI its terminal)\n");

async function waitFor<T>(what: string, f: () => Promise<T | null>, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => null);
    if (v !== null && v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const PROMPTS = ['WRITE a.txt version one', 'WRITE a.txt version two', 'WRITE b.txt bee'];

describe.runIf(GEMINI && TERMINAL)("Gemini CLI's own checkpoints, recorded by its interactive UI", () => {
  let api: ModelApi;
  let home: string;
  let project: string;
  let child: ChildProcessWithoutNullStreams;
  const before: Record<string, string>[] = [];
  let transcript: string;

  beforeAll(async () => {
    api = await geminiModelApi();
    home = await tempDir('gemini-tui-home-');
    project = join(home, 'proj');
    await mkdir(join(home, '.gemini'), { recursive: true });
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'a.txt'), 'v0\n');
    await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, general: { checkpointing: { enabled: true } } }));
    const env = { PATH: process.env.PATH, ...tempEnv(), HOME: home, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_CLI_TRUST_WORKSPACE: 'true', TERM: 'xterm-256color' };
    const quote = (x: string) => `'${x.replace(/'/g, `'\\''`)}'`;
    // Not yolo: Gemini checkpoints a file edit while it waits for the user's approval.
    child = spawn('script', ['-qfc', `stty cols 140 rows 50; exec ${GEMINI!.cmd.map(quote).join(' ')}`, '/dev/null'], { cwd: project, env, stdio: 'pipe' });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += stripVTControlCharacters(d.toString('utf8'))));
    const screen = async () => text;
    const type = async (line: string) => {
      for (const ch of line) {
        child.stdin.write(ch);
        await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, 800));
      child.stdin.write('\r');
    };
    const chats = async () => {
      const tmp = join(home, '.gemini', 'tmp');
      for (const slug of await readdir(tmp)) for (const f of await readdir(join(tmp, slug, 'chats')).catch(() => [] as string[])) if (f.endsWith('.jsonl')) return join(tmp, slug, 'chats', f);
      return null;
    };
    // The UI is up when it says so in the terminal's title.
    await waitFor('the interactive UI', async () => ((await screen()).includes('Type your message') ? true : null));
    await new Promise((r) => setTimeout(r, 1500));
    for (const [i, p] of PROMPTS.entries()) {
      before.push(await treeOf(project));
      const seen = (await screen()).length;
      await type(p);
      // The approval question: Enter takes its first choice, "Allow once". An Enter the UI swallowed
      // while it was still drawing the typed text is pressed again.
      const asked = Date.now();
      await waitFor(`the approval question of "${p}"`, async () => {
        if (/Allow once/.test((await screen()).slice(seen))) return true;
        if (Date.now() - asked > 5000) child.stdin.write('\r');
        await new Promise((r) => setTimeout(r, 1000));
        return null;
      });
      child.stdin.write('\r');
      // Done when the model's closing reply of this turn is in the session file.
      await waitFor(`"${p}" to finish`, async () => {
        const f = await chats();
        if (!f) return null;
        const replies = (await readFile(f, 'utf8')).split('\n').filter((l) => l.includes('"OK: [tool_result]"')).map((l) => JSON.parse(l).id as string);
        return new Set(replies).size > i ? f : null;
      });
      await new Promise((r) => setTimeout(r, 1500));
    }
    transcript = (await chats())!;
    killTree(child);
  }, 300_000);

  afterAll(async () => {
    if (child) killTree(child);
    await api?.close();
  });

  it('restoring from its checkpoints to before each prompt gives the tree the real CLI saw then', async () => {
    const { readGeminiTimeline } = await import('../../../src/engine/agents/gemini/discover.js');
    const t = await readGeminiTimeline(transcript);
    expect(t.prompts.map((p) => p.text)).toEqual(PROMPTS);
    expect(await treeOf(project)).toEqual({ 'a.txt': 'version two\n', 'b.txt': 'bee\n' });
    for (let i = PROMPTS.length - 1; i >= 0; i--) {
      const r = await restoreFromAgent(project, transcript, t.prompts[i]!.uuid, { force: true });
      expect(await treeOf(project), `before "${PROMPTS[i]}" (${r.preview.target.note})`).toEqual(before[i]);
    }
  });
});
