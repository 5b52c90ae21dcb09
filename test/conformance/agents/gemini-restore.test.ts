import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../fixtures.js';
import { restoreFromAgent, treeOf } from '../../agent-store.js';
import { geminiModelApi } from './gemini-api.js';
import { ensureNpmCli, orSkip } from './npm-cli.js';
import type { ModelApi } from './suite.js';

/**
 * Gemini writes its checkpoints only from its interactive (Ink) terminal UI: `-p` and the ACP mode
 * never call processRestorableToolCalls. This runs that UI on a pseudo-terminal (Python's `pty`:
 * the project takes no native Node module), types the prompts, records the project before each,
 * then restores from Gemini's own checkpoints (read from its shadow git) to before each prompt.
 */
const GEMINI = orSkip(
  'Gemini CLI',
  ensureNpmCli({ dir: 'gemini-cli-0.61.0', packages: ['@google/gemini-cli@0.61.0'], bin: join('node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js'), node: true, version: '0.61.0' }),
);
const tool = (cmd: string, args: string[]): boolean => {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const PTY = tool('python3', ['-c', 'import pty']) && tool('git', ['--version']);
if (GEMINI && !PTY) console.warn('Skipping the Gemini checkpoint conformance: it needs python3 (its pty module drives the interactive UI) and git');

/** Runs argv on a pty; each line written to its stdin is typed into the UI followed by Enter. */
const DRIVER = `
import os, pty, sys, select, time, fcntl, termios, struct
pid, fd = pty.fork()
if pid == 0:
    os.execvpe(sys.argv[1], sys.argv[1:], os.environ)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 50, 140, 0, 0))
log = open(os.environ['PTY_LOG'], 'ab')
buf = b''
while True:
    r, _, _ = select.select([fd, 0], [], [], 0.1)
    if fd in r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        log.write(data); log.flush()
    if 0 in r:
        line = os.read(0, 65536)
        if not line:
            break
        buf += line
        while b'\\n' in buf:
            text, buf = buf.split(b'\\n', 1)
            for ch in text:
                os.write(fd, bytes([ch])); time.sleep(0.005)
            time.sleep(0.8)
            os.write(fd, b'\\r')
`;

async function waitFor<T>(what: string, f: () => Promise<T | null>, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f().catch(() => null);
    if (v !== null && v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

// Terminal control sequences, stripped to read the screen's text.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[a-zA-Z]`, 'g');

const PROMPTS = ['WRITE a.txt version one', 'WRITE a.txt version two', 'WRITE b.txt bee'];

describe.runIf(GEMINI && PTY)("Gemini CLI's own checkpoints, recorded by its interactive UI", () => {
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
    const env = { PATH: process.env.PATH, HOME: home, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_CLI_TRUST_WORKSPACE: 'true', TERM: 'xterm-256color', PTY_LOG: join(home, 'pty.log') };
    const screen = async () => (await readFile(env.PTY_LOG, 'utf8').catch(() => '')).replace(ANSI, '');
    // Not yolo: Gemini checkpoints a file edit while it waits for the user's approval.
    child = spawn('python3', ['-c', DRIVER, ...GEMINI!.cmd], { cwd: project, env, stdio: 'pipe' });

    const chats = async () => {
      const tmp = join(home, '.gemini', 'tmp');
      for (const slug of await readdir(tmp)) for (const f of await readdir(join(tmp, slug, 'chats')).catch(() => [] as string[])) if (f.endsWith('.jsonl')) return join(tmp, slug, 'chats', f);
      return null;
    };
    // The UI is up when it says so in the terminal's title.
    await waitFor('the interactive UI', async () => (/Ready \(proj\)/.test(await screen()) ? true : null));
    await new Promise((r) => setTimeout(r, 1500));
    for (const [i, p] of PROMPTS.entries()) {
      before.push(await treeOf(project));
      const seen = (await screen()).length;
      child.stdin.write(`${p}\n`);
      // The approval question: Enter takes its first choice, "Allow once". An Enter the UI swallowed
      // while it was still drawing the typed text is pressed again.
      const asked = Date.now();
      await waitFor(`the approval question of "${p}"`, async () => {
        if (/Allow once/.test((await screen()).slice(seen))) return true;
        if (Date.now() - asked > 5000) child.stdin.write('\n');
        await new Promise((r) => setTimeout(r, 1000));
        return null;
      });
      child.stdin.write('\n');
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
    child.stdin.end();
    child.kill();
  }, 300_000);

  afterAll(async () => {
    child?.kill();
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
