import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { RewindError } from '../../errors.js';
import type { HookPlace } from '../../hooks/agent-hooks.js';
import { isRewindHook } from '../../hooks/hook-config.js';
import { tomlEol, tomlHeaders } from '../mcp-toml.js';

/**
 * Codex keeps a hook's trust as `[hooks.state."<key>"] trusted_hash = "<hash>"` in
 * `$CODEX_HOME/config.toml`; the key and the hash are Codex's own, so they are asked of Codex
 * itself: `codex app-server` (JSON-RPC on stdio) answers `hooks/list` with each hook's `key`,
 * `currentHash` and `trustStatus`.
 */

interface ListedHook {
  key?: string;
  currentHash?: string;
  trustStatus?: string;
  command?: string;
  eventName?: string;
  sourcePath?: string;
}

/** `REWIND_CODEX_BIN` (a path; a .js entry runs under node), else `codex` on PATH. */
function codexCommand(env: NodeJS.ProcessEnv): string[] | null {
  const bin = env.REWIND_CODEX_BIN;
  if (bin) return /\.[cm]?js$/.test(bin) ? [process.execPath, bin] : [bin];
  const names = process.platform === 'win32' ? ['codex.cmd', 'codex.exe'] : ['codex'];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    for (const n of names) if (dir && existsSync(join(dir, n))) return [join(dir, n)];
  }
  return null;
}

async function listHooks(place: HookPlace, env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<ListedHook[] | null> {
  const cmd = codexCommand(env);
  if (!cmd) return null;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd[0]!, [...cmd.slice(1), 'app-server'], {
      cwd: place.projectRoot,
      env: { ...env, CODEX_HOME: place.agentHome },
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      shell: process.platform === 'win32' && /\.cmd$/i.test(cmd[0]!),
    });
    let buf = '';
    let err = '';
    const done = (v: ListedHook[] | Error) => {
      clearTimeout(timer);
      child.kill();
      if (v instanceof Error) reject(v);
      else resolve(v);
    };
    const timer = setTimeout(() => done(new RewindError('IO', `codex app-server did not answer hooks/list in ${timeoutMs / 1000} s`)), timeoutMs);
    const send = (o: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...o })}\n`);
    child.on('error', (e) => done(new RewindError('IO', `cannot run codex: ${e.message}`)));
    child.stdin.on('error', () => undefined);
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-400)));
    child.on('close', (code) => done(new RewindError('IO', `codex app-server exited (${code}) before answering: ${err.trim().split('\n').pop() ?? ''}`)));
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) !== -1) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        let m: { id?: number; result?: { data?: { hooks?: ListedHook[] }[] }; error?: { message?: string } };
        try {
          m = JSON.parse(line) as typeof m;
        } catch {
          continue;
        }
        if (m.id === 1) {
          send({ method: 'initialized', params: {} });
          send({ id: 2, method: 'hooks/list', params: { cwds: [place.projectRoot] } });
        } else if (m.id === 2) {
          if (m.error) return done(new RewindError('IO', `codex hooks/list: ${m.error.message ?? 'failed'}`));
          return done((m.result?.data ?? []).flatMap((d) => d.hooks ?? []));
        }
      }
    });
    send({ id: 1, method: 'initialize', params: { clientInfo: { name: 'rewind-app', version: '1' } } });
  });
}

/**
 * Rewind's own hooks among those Codex lists: exactly the command Rewind installed. Codex asks for
 * trust so that a cloned project's hooks never run unasked; matching Rewind's by their look
 * (`… rewind-app hook --agent codex` at the end) trusted a project's `.codex/hooks.json` entry that
 * ran anything before it.
 */
const ours = (hooks: ListedHook[], command: string | null) => hooks.filter((h) => !!h.key && (command !== null ? h.command === command : isRewindHook(h.command, 'codex')));

export async function codexTrustStatus(place: HookPlace, env: NodeJS.ProcessEnv, command: string | null = null): Promise<{ trusted: boolean; detail: string } | null> {
  const hooks = await listHooks(place, env).catch(() => null);
  if (!hooks) return null;
  const mine = ours(hooks, command);
  if (!mine.length) return { trusted: false, detail: 'Codex does not list Rewind hooks' };
  const untrusted = mine.filter((h) => h.trustStatus !== 'trusted' && h.trustStatus !== 'managed');
  return untrusted.length ? { trusted: false, detail: `${untrusted.length} of ${mine.length} not trusted` } : { trusted: true, detail: `all ${mine.length} trusted` };
}

/**
 * Sets `trusted_hash` under `[hooks.state."<key>"]`, leaving the rest of the file as it was (its
 * line ends too; a header-like line inside a multi-line string is not a table). Pure.
 */
export function withTrust(toml: string, key: string, hash: string): string {
  const header = `[hooks.state.${JSON.stringify(key)}]`;
  const eol = tomlEol(toml);
  const cr = eol === '\r\n' ? '\r' : '';
  const lines = toml.split('\n');
  const headers = tomlHeaders(lines);
  // The header as written (the key holds dots: a path), on a line that is a header, not text in a string.
  const at = lines.findIndex((l, n) => !!headers[n] && (l.trim() === header || l.trim() === `[hooks.state.'${key}']`));
  const value = `trusted_hash = ${JSON.stringify(hash)}`;
  if (at === -1) return `${toml}${toml && !toml.endsWith('\n') ? eol : ''}${eol}${header}${eol}${value}${eol}`;
  let end = at + 1;
  while (end < lines.length && !headers[end]) end++;
  const i = lines.slice(at + 1, end).findIndex((l) => /^\s*trusted_hash\s*=/.test(l));
  if (i === -1) lines.splice(at + 1, 0, value + cr);
  else lines[at + 1 + i] = value + cr;
  return lines.join('\n');
}

export async function codexTrustRecord(place: HookPlace, env: NodeJS.ProcessEnv, command: string): Promise<string[]> {
  const hooks = await listHooks(place, env);
  if (!hooks) throw new RewindError('NOT_FOUND', 'codex is not on PATH (set REWIND_CODEX_BIN to its path): trust the hooks in Codex with /hooks instead');
  const mine = ours(hooks, command).filter((h) => h.currentHash);
  if (!mine.length) throw new RewindError('NOT_FOUND', 'Codex does not list the Rewind hooks: install them first');
  const file = join(place.agentHome, 'config.toml');
  // The same locked, no-link edit as `mcp install` of config.toml: neither loses the other's change.
  const { editAgentConfig } = await import('../../io/config-edit.js');
  await editAgentConfig(file, { allowedRoot: null }, (raw) => {
    let next = raw ?? '';
    for (const h of mine) next = withTrust(next, h.key!, h.currentHash!);
    return { next: next === (raw ?? '') ? undefined : next, result: null };
  });
  return mine.map((h) => `trusted ${h.eventName ?? h.key} (${file})`);
}
