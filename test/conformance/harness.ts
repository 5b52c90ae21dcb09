import { execFileSync, spawnSync } from 'node:child_process';
import { copyFile, cp, utimes } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { ensureClaude } from './claude-cli.js';
import { startScriptedApi, type ScriptedApi } from './scripted-api.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'out', 'cli', 'rewind-app.mjs');

/** The pinned CLI, or a loud skip where it cannot run (never on linux-x64, where CI runs). */
export function claudeOrSkip(): { bin: string } | { skip: string } {
  const c = ensureClaude();
  if ('skip' in c) {
    const mustRun = process.platform === 'linux' && process.arch === 'x64';
    const banner = `\n${'!'.repeat(78)}\n!! CONFORMANCE TIER SKIPPED: ${c.skip}\n${'!'.repeat(78)}\n`;
    if (mustRun) throw new Error(`the conformance tier must run on linux-x64: ${c.skip}`);
    console.warn(banner);
  }
  return c;
}

export async function withApi(): Promise<ScriptedApi> {
  return startScriptedApi();
}

export function ensureCliBuilt(): void {
  if (!existsSync(CLI)) execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-cli.mjs')], { cwd: ROOT, stdio: 'inherit' });
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs our CLI as a user would, in its own process. */
export function rewindApp(args: string[], env: NodeJS.ProcessEnv = {}, cwd = ROOT): CliRun {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * With REWIND_CONFORMANCE_RECORDINGS set (`npm run conformance -- --latest`), a copy of the folder a
 * real CLI wrote its session into, under `<that dir>/<agent>/`: the format-change report compares it
 * with the last judged recording. Bundled packages (Codex's 400 MB app-server daemon) are left out.
 */
export async function keepRecording(agent: string, home: string): Promise<void> {
  const to = process.env.REWIND_CONFORMANCE_RECORDINGS;
  if (!to) return;
  await cp(home, join(to, agent), { recursive: true, force: true, filter: (src) => !/[/\\](packages|node_modules|tmp|\.cache)$/.test(src) });
}

/** A copy of a session under a new id, next to it: each check works on its own copy. */
export async function copySession(transcript: string): Promise<{ id: string; path: string }> {
  const id = randomUUID();
  const path = join(transcript, '..', `${id}.jsonl`);
  await copyFile(transcript, path);
  const past = new Date(Date.now() - 60_000);
  await utimes(path, past, past);
  return { id, path };
}
