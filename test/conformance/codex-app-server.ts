import { spawn } from 'node:child_process';
import { tempEnv } from '../temp.js';
import type { CodexEnv } from './codex-cli.js';

/**
 * What the Codex TUI shows when it resumes a thread: `codex app-server` (JSON-RPC over stdio, the
 * server the TUI talks to) loads the thread with `thread/resume` and answers with its turns, which
 * 0.169/0.171 take from their projection in `thread_history_1.sqlite`, not from the rollout. Returns
 * the user prompts of each turn, oldest first.
 */
export async function resumedTurns(e: CodexEnv, cwd: string, threadId: string, timeoutMs = 60_000): Promise<string[][]> {
  const env = { PATH: process.env.PATH, ...tempEnv(), HOME: e.home, CODEX_HOME: e.home, FAKE_OPENAI_KEY: 'sk-test', TERM: 'dumb', NO_COLOR: '1' };
  const p = spawn(process.execPath, [e.bin, 'app-server'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map<number, (m: { result?: unknown; error?: { message: string } }) => void>();
  let buf = '';
  p.stdout.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        const m = JSON.parse(line) as { id?: number; result?: unknown; error?: { message: string } };
        if (typeof m.id === 'number') waiting.get(m.id)?.(m);
      } catch {
        // a log line
      }
    }
  });
  let n = 0;
  const call = (method: string, params: unknown) =>
    new Promise<{ result?: unknown; error?: { message: string } }>((resolve) => {
      const id = ++n;
      waiting.set(id, resolve);
      p.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
  try {
    await call('initialize', { clientInfo: { name: 'rewind-conformance', version: '0' } });
    p.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'initialized' })}\n`);
    const r = await call('thread/resume', { threadId });
    if (r.error) throw new Error(`thread/resume: ${r.error.message}`);
    const turns = (r.result as { thread: { turns: { items: { type: string; content?: { text?: string }[] }[] }[] } }).thread.turns;
    return turns.map((t) => t.items.filter((i) => i.type === 'userMessage').map((i) => i.content?.[0]?.text ?? ''));
  } finally {
    clearTimeout(timer);
    p.stdin.end();
    p.kill();
    await new Promise((resolve) => (p.exitCode !== null ? resolve(null) : p.once('exit', resolve)));
  }
}
