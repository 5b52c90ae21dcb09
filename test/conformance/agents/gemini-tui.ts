import { spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import { killTree } from './kill-tree.js';

/**
 * Gemini CLI's own `/rewind`, driven in its interactive UI: `script` (util-linux) gives it a
 * terminal, keys are typed as a user would (the command, Enter, ↑ to the prompt, Enter, Enter on
 * "Rewind conversation"), and the screen is read with escape codes stripped.
 */
export async function geminiNativeRewind(cmd: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; sessionId: string; up: number; ready: string; done: () => Promise<boolean> }): Promise<void> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const line = `stty cols 120 rows 40; exec ${[...cmd, '--resume', opts.sessionId, '--approval-mode', 'yolo'].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfc', line, '/dev/null'], { cwd: opts.cwd, env: { ...opts.env, TERM: 'xterm-256color', CI: undefined, NO_COLOR: undefined }, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  let resumingAt = Date.now();
  child.stdout.on('data', (d: Buffer) => {
    const text = stripVTControlCharacters(d.toString('utf8'));
    if (text.includes('Resuming session')) resumingAt = Date.now();
    screen += text;
  });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const waitFor = async (text: string, ms = 30_000) => {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (screen.includes(text)) return;
    throw new Error(`Gemini CLI's interactive UI never showed "${text}":\n${screen.slice(-2000)}`);
  };
  const key = async (k: string, pause = 600) => {
    child.stdin.write(k);
    await sleep(pause);
  };
  try {
    // Keys typed while it still says "Resuming session" are lost: wait for the history and a quiet second.
    await waitFor('Type your message', 60_000);
    await waitFor(opts.ready, 60_000);
    for (const end = Date.now() + 30_000; Date.now() - resumingAt < 1500 && Date.now() < end; ) await sleep(200);
    await sleep(500);
    for (const ch of '/rewind') await key(ch, 40);
    await sleep(1500);
    await key('\r', 1500);
    await waitFor('Use Enter to select');
    for (let i = 0; i < opts.up; i++) await key('\x1b[A');
    await key('\r');
    await waitFor('Confirm Rewind');
    await key('\r');
    for (const end = Date.now() + 20_000; !(await opts.done()); await sleep(200)) if (Date.now() > end) throw new Error(`the interactive /rewind wrote nothing:\n${screen.slice(-2000)}`);
  } finally {
    killTree(child);
  }
}
