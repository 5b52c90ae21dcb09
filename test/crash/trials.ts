/**
 * Kill -9 at random moments of `back --in-place`, `restore`, `revert` and `undo` (the built CLI), with an
 * agent appending to the transcript, then check: the old state or the new one (or rolled back by
 * the next run), zero appended lines lost, nothing written outside the allowed folders, no temp
 * files left once the next run has started. Shared by the crash tier of `npm test` (a few trials)
 * and `npm run bench -- crash` (100+ each).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BUILT_CLI, CC_HOME, FIXTURES, LINEAR, tempDir } from '../fixtures.js';
import { snapshotTree } from '../tree.js';
import { latestUndoable, readJournal } from '../../src/engine/journal/record.js';
import { tempEnv } from '../temp.js';

export interface TrialResult {
  outcome: string;
  problems: string[];
  /** Lines the stand-in agent appended during the trial (each must be found again). */
  appended?: number;
}

interface Sandbox {
  top: string;
  claude: string;
  transcript: string;
  project: string;
  env: NodeJS.ProcessEnv;
}

/** The agents whose in-place writer the tier judges; each gets its real session under `$HOME`. */
export type CrashAgent = 'claude' | 'droid' | 'qwen' | 'gemini' | 'codex';

/** A real session of each other agent: its fixture, and where the agent keeps it under `$HOME`. */
const AGENT_SESSIONS: Record<Exclude<CrashAgent, 'claude'>, { fixture: string; at: string }> = {
  droid: { fixture: join(FIXTURES, 'droid-real', '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e.jsonl'), at: join('.factory', 'sessions', '-home-dev-projects-linear', '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e.jsonl') },
  qwen: { fixture: join(FIXTURES, 'qwen-real', 'ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl'), at: join('.qwen', 'projects', '-home-dev-projects-linear', 'chats', 'ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl') },
  gemini: { fixture: join(FIXTURES, 'gemini-real', 'session-2026-11-23T11-33-f2a3037a.jsonl'), at: join('.gemini', 'tmp', 'linear', 'chats', 'session-2026-11-23T11-33-f2a3037a.jsonl') },
  codex: {
    fixture: join(FIXTURES, 'codex-0.169', 'sessions', '2026', '11', '23', 'rollout-2026-11-23T11-36-01-01a20831-0a9b-7362-9657-fdd051b67f43.jsonl'),
    at: join('.codex', 'sessions', '2026', '11', '23', 'rollout-2026-11-23T11-36-01-01a20831-0a9b-7362-9657-fdd051b67f43.jsonl'),
  },
};

/** Sandboxes are named by this process: a later run sweeps those of a run that was killed. */
const SANDBOX_PREFIX = 'rewind-crash-';

async function sandbox(agent: CrashAgent = 'claude'): Promise<Sandbox> {
  const top = await tempDir(`${SANDBOX_PREFIX}${process.pid}-`);
  const claude = join(top, '.claude');
  await cp(CC_HOME, claude, { recursive: true });
  let transcript = join(claude, LINEAR.slice(CC_HOME.length + 1));
  if (agent !== 'claude') {
    const { fixture, at } = AGENT_SESSIONS[agent];
    transcript = join(top, 'home', at);
    await mkdir(join(transcript, '..'), { recursive: true });
    await cp(fixture, transcript);
  }
  const past = new Date(Date.now() - 3600_000);
  await utimes(transcript, past, past);
  const project = join(top, 'project');
  await mkdir(project);
  await mkdir(join(top, 'outside'));
  const env = { PATH: process.env.PATH, ...tempEnv(), HOME: join(top, 'home'), CLAUDE_CONFIG_DIR: claude, REWIND_NO_FORWARD: '1', REWIND_SOCKET: join(top, 'no.sock') };
  return { top, claude, transcript, project, env };
}

function runCli(args: string[], env: NodeJS.ProcessEnv, killAfterMs: number | null): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = killAfterMs === null ? null : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

/**
 * A stand-in agent: appends numbered lines to the transcript in bursts, each by path (as Claude
 * Code does) or through one handle it keeps open (the old file after a rename), and logs each
 * line once its append returned.
 */
function startAppender(transcript: string, log: string, stop: string, mode: 'path' | 'fd'): ChildProcess {
  const src = `
    const fs = require('node:fs');
    const [t, log, stop, mode] = process.argv.slice(1);
    let n = 0;
    const fd = mode === 'fd' ? fs.openSync(t, 'a') : null;
    const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    while (!fs.existsSync(stop)) {
      const burst = 1 + Math.floor(Math.random() * 4);
      for (let i = 0; i < burst; i++) {
        const line = JSON.stringify({ type: 'crash-probe', probe: 'p' + (++n), pad: 'x'.repeat(100) }) + '\\n';
        if (fd !== null) fs.writeSync(fd, line); else fs.appendFileSync(t, line);
        fs.appendFileSync(log, 'p' + n + '\\n');
      }
      sleep(Math.random() < 0.5 ? 2 : 40 + Math.random() * 150);
    }
  `;
  return spawn(process.execPath, ['-e', src, transcript, log, stop, mode], { stdio: 'ignore' });
}

async function stopAppender(child: ChildProcess, stop: string): Promise<void> {
  const done = new Promise((r) => child.once('exit', r));
  await writeFile(stop, '');
  await done;
}

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true }).catch(() => [] as string[])).map(String);
}

/** Nothing but the project, the agent root and the CLI's home may have changed in the sandbox. */
async function outsideProblems(s: Sandbox): Promise<string[]> {
  const top = (await readdir(s.top)).sort();
  const extra = top.filter((n) => !['.claude', 'project', 'outside', 'home', 'appended.log', 'stop'].includes(n));
  const outside = await filesUnder(join(s.top, 'outside'));
  return [...extra.map((n) => `unexpected ${n} in the sandbox`), ...outside.map((n) => `wrote outside: ${n}`)];
}

/** Removes the sandboxes of earlier runs whose process is gone (a run killed before its `finally`). */
export async function sweepStaleSandboxes(): Promise<number> {
  const { tmpdir } = await import('node:os');
  const { processAlive } = await import('../../src/engine/io/process-alive.js');
  let n = 0;
  for (const name of await readdir(tmpdir()).catch(() => [] as string[])) {
    const m = new RegExp(`^${SANDBOX_PREFIX}(\\d+)-`).exec(name);
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    await rm(join(tmpdir(), name), { recursive: true, force: true }).then(() => n++, () => undefined);
  }
  return n;
}

/**
 * Lines of the transcript before the first appended probe: the original's lines, in order, some
 * left out (a cut; Qwen leaves dead branches out). Codex writes its `session_meta` anew: its first
 * line is not compared.
 */
function isRewriteOf(original: Buffer, head: Buffer, agent: CrashAgent): boolean {
  if (head.length === 0 || head[head.length - 1] !== 10) return false;
  const mine = head.toString('utf8').split('\n').slice(0, -1);
  const theirs = original.toString('utf8').split('\n');
  let j = 0;
  for (const line of agent === 'codex' ? mine.slice(1) : mine) {
    while (j < theirs.length && theirs[j] !== line) j++;
    if (j === theirs.length) return false;
    j++;
  }
  return true;
}

/** How long one `back 1 --in-place` of the agent's session takes here (no appender, not killed): where the kills are aimed. */
export async function inPlaceRunMs(agent: CrashAgent): Promise<number> {
  const s = await sandbox(agent);
  try {
    const t0 = Date.now();
    const r = await runCli(['back', '1', '--in-place', '--force', '--transcript', s.transcript, '--project', s.project], s.env, null);
    if (r.code !== 0) throw new Error(`the timing run failed: exit ${r.code}: ${r.stderr.trim()}`);
    return Date.now() - t0;
  } finally {
    await rm(s.top, { recursive: true, force: true });
  }
}

/** `twin`: a second rewrite of the same transcript runs at the same time (never killed). */
export async function inPlaceTrial(killAfterMs: number | null, mode: 'path' | 'fd', twin = false, agent: CrashAgent = 'claude'): Promise<TrialResult> {
  const s = await sandbox(agent);
  const problems: string[] = [];
  try {
    const original = await readFile(s.transcript);
    const log = join(s.top, 'appended.log');
    const stop = join(s.top, 'stop');
    const appender = startAppender(s.transcript, log, stop, mode);
    await new Promise((r) => setTimeout(r, 20));
    const args = ['back', '1', '--in-place', '--force', '--transcript', s.transcript, '--project', s.project];
    const [r, t] = await Promise.all([runCli(args, s.env, killAfterMs), twin ? runCli(args, s.env, null) : null]);
    await stopAppender(appender, stop);
    const outcome = `${r.signal ? 'killed' : `exit ${r.code}`}${t ? ` + twin exit ${t.code}` : ''}`;
    if (!r.signal && r.code !== 0 && r.code !== 5) problems.push(`unexpected exit ${r.code}: ${r.stderr.trim()}`);
    if (t && t.code !== 0 && t.code !== 5) problems.push(`twin: unexpected exit ${t.code}: ${t.stderr.trim()}`);
    // Every line the agent appended is in the transcript or a backup: never dropped.
    const dir = join(s.transcript, '..');
    const backups = join(s.project, '.agent', 'rewind', 'transcript-backup');
    const texts = [await readFile(s.transcript, 'utf8')];
    for (const b of await filesUnder(backups)) texts.push(await readFile(join(backups, b), 'utf8'));
    const all = texts.join('\n');
    const appended = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);
    const lost = appended.filter((p) => !all.includes(`"probe":"${p}"`));
    if (lost.length) problems.push(`${lost.length} of ${appended.length} appended lines lost (${lost.slice(0, 3).join(', ')})`);
    // The transcript is the original (plus appends) or the rewrite (plus appends): never torn.
    const now = await readFile(s.transcript);
    const isOriginal = now.subarray(0, original.length).equals(original);
    const firstProbe = now.indexOf('{"type":"crash-probe"');
    const head = firstProbe === -1 ? now : now.subarray(0, firstProbe);
    const isRewrite = agent === 'claude' ? head.length < original.length && original.subarray(0, head.length).equals(head) && head[head.length - 1] === 10 : isRewriteOf(original, head, agent);
    if (!isOriginal && !isRewrite) problems.push('transcript is neither the original nor a rewrite of it');
    problems.push(...(await outsideProblems(s)));
    // The next run starts clean: a stale lock is taken over, temp files beside the transcript go.
    const next = await runCli(['back', '1', '--in-place', '--force', '--transcript', s.transcript, '--project', s.project], s.env, null);
    if (next.code !== 0 && next.code !== 3) problems.push(`the next run failed: exit ${next.code}: ${next.stderr.trim()}`);
    const left = (await readdir(dir)).filter((n) => n.endsWith('.tmp') || n.endsWith('.rewind-lock'));
    if (left.length) problems.push(`left beside the transcript after the next run: ${left.join(', ')}`);
    return { outcome, problems, appended: appended.length };
  } finally {
    await rm(s.top, { recursive: true, force: true });
  }
}

/** `asPrompt`: state A is the checkpoint before a prompt (`p1`), B what its turn left (for a revert). */
async function treeProject(s: Sandbox, files: number, asPrompt = false) {
  const { takeCheckpoint } = await import('../../src/engine/store/checkpoint.js');
  for (let i = 0; i < files; i++) {
    const d = join(s.project, `d${i % 10}`);
    await mkdir(d, { recursive: true });
    await writeFile(join(d, `f${i}.txt`), `version A of ${i}\n`.repeat(50));
  }
  await writeFile(join(s.project, 'was-file'), 'A\n');
  const a = await takeCheckpoint(
    asPrompt
      ? { projectRoot: s.project, trigger: 'prompt', transcript: { transcript_path: s.transcript, session_id: null, agent: 'claude', prompt_uuid: 'p1', prompt_id: null, byte_offset_end: 0, prefix_sha256: '' } }
      : { projectRoot: s.project, trigger: 'manual' },
  );
  const stateA = await snapshotTree(s.project);
  for (let i = 0; i < files; i++) {
    if (i % 7 === 0) await rm(join(s.project, `d${i % 10}`, `f${i}.txt`));
    else await writeFile(join(s.project, `d${i % 10}`, `f${i}.txt`), `version B of ${i}\n`.repeat(60));
  }
  await writeFile(join(s.project, 'new-in-b.txt'), 'B\n');
  await rm(join(s.project, 'was-file'));
  await mkdir(join(s.project, 'was-file'));
  await writeFile(join(s.project, 'was-file', 'inside.txt'), 'B\n');
  const stateB = await snapshotTree(s.project);
  return { id: a.manifest.id, stateA, stateB };
}

async function treeProblems(s: Sandbox, states: Record<string, Record<string, string>>): Promise<{ which: string | null; problems: string[] }> {
  const problems: string[] = [];
  const now = await snapshotTree(s.project);
  const which = Object.keys(states).find((k) => JSON.stringify(states[k]) === JSON.stringify(now)) ?? null;
  if (!which) {
    const [a] = Object.values(states);
    const diff = Object.keys({ ...a, ...now }).filter((k) => a![k] !== now[k]);
    problems.push(`tree is half-way: ${diff.length} paths differ from the first state (${diff.slice(0, 3).join(', ')})`);
  }
  const temps = (await filesUnder(s.project)).filter((n) => n.endsWith('.rewind-tmp') || (/\.tmp$/.test(n) && !n.includes('objects')));
  if (temps.length) problems.push(`temp files left: ${temps.slice(0, 3).join(', ')}`);
  const pending = await filesUnder(join(s.project, '.agent', 'rewind', 'pending'));
  if (pending.length) problems.push(`intent left pending: ${pending.join(', ')}`);
  problems.push(...(await outsideProblems(s)));
  return { which, problems };
}

export async function restoreTrial(killAfterMs: number | null, files = 150): Promise<TrialResult> {
  const s = await sandbox();
  try {
    const { id, stateA, stateB } = await treeProject(s, files);
    const r = await runCli(['restore', id, '--force', '--project', s.project], s.env, killAfterMs);
    const problems: string[] = [];
    if (!r.signal && r.code !== 0) problems.push(`unexpected exit ${r.code}: ${r.stderr.trim()}`);
    // Any next command finishes or rolls back what the killed one left.
    const next = await runCli(['checkpoints', '--project', s.project], s.env, null);
    if (next.code !== 0) problems.push(`the next run failed: ${next.stderr.trim()}`);
    const t = await treeProblems(s, { restored: stateA, before: stateB });
    problems.push(...t.problems);
    // The journal agrees with the tree: a restored tree can be undone, a rolled back one has nothing to undo.
    const latest = latestUndoable(await readJournal(s.project));
    if (t.which === 'restored' && latest?.kind !== 'restore') problems.push('restored, but no restore in the journal');
    if (t.which === 'before' && latest?.kind === 'restore') problems.push('rolled back, but the journal has the restore');
    const recovered = /interrupted/.test(next.stderr) ? ' (finished by the next run)' : '';
    return { outcome: `${r.signal ? 'killed' : `exit ${r.code}`}${recovered} -> ${t.which ?? 'half'}`, problems };
  } finally {
    await rm(s.top, { recursive: true, force: true });
  }
}

export async function undoTrial(killAfterMs: number | null, files = 150): Promise<TrialResult> {
  const s = await sandbox();
  try {
    const { id, stateA, stateB } = await treeProject(s, files);
    const first = await runCli(['restore', id, '--force', '--project', s.project], s.env, null);
    if (first.code !== 0) return { outcome: 'setup failed', problems: [`restore failed: ${first.stderr.trim()}`] };
    const r = await runCli(['undo', '--force', '--project', s.project], s.env, killAfterMs);
    const problems: string[] = [];
    if (!r.signal && r.code !== 0) problems.push(`unexpected exit ${r.code}: ${r.stderr.trim()}`);
    const next = await runCli(['checkpoints', '--project', s.project], s.env, null);
    if (next.code !== 0) problems.push(`the next run failed: ${next.stderr.trim()}`);
    const t = await treeProblems(s, { undone: stateB, restored: stateA });
    problems.push(...t.problems);
    const latest = latestUndoable(await readJournal(s.project));
    if (t.which === 'undone' && latest?.kind === 'restore') problems.push('undone, but the journal still offers the restore');
    if (t.which === 'restored' && latest?.kind !== 'restore') problems.push('still restored, but the journal lost the restore');
    const recovered = /interrupted/.test(next.stderr) ? ' (finished by the next run)' : '';
    return { outcome: `${r.signal ? 'killed' : `exit ${r.code}`}${recovered} -> ${t.which ?? 'half'}`, problems };
  } finally {
    await rm(s.top, { recursive: true, force: true });
  }
}

/** Reverting the last prompt (its turn is everything since its checkpoint): the same checks as a restore. */
export async function revertTrial(killAfterMs: number | null, files = 150): Promise<TrialResult> {
  const s = await sandbox();
  try {
    const { stateA, stateB } = await treeProject(s, files, true);
    const r = await runCli(['revert', 'p1', '--take', 'before', '--project', s.project], s.env, killAfterMs);
    const problems: string[] = [];
    if (!r.signal && r.code !== 0) problems.push(`unexpected exit ${r.code}: ${r.stderr.trim()}`);
    const next = await runCli(['checkpoints', '--project', s.project], s.env, null);
    if (next.code !== 0) problems.push(`the next run failed: ${next.stderr.trim()}`);
    const t = await treeProblems(s, { reverted: stateA, before: stateB });
    problems.push(...t.problems);
    const latest = latestUndoable(await readJournal(s.project));
    if (t.which === 'reverted' && latest?.kind !== 'revert') problems.push('reverted, but no revert in the journal');
    if (t.which === 'before' && latest?.kind === 'revert') problems.push('rolled back, but the journal has the revert');
    const recovered = /interrupted/.test(next.stderr) ? ' (finished by the next run)' : '';
    return { outcome: `${r.signal ? 'killed' : `exit ${r.code}`}${recovered} -> ${t.which ?? 'half'}`, problems };
  } finally {
    await rm(s.top, { recursive: true, force: true });
  }
}
