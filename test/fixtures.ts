import { execFile } from 'node:child_process';
import { cp, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from './temp.js';

export const ROOT = resolve(import.meta.dirname, '..');
/** The built CLI (npm run build). */
export const BUILT_CLI = join(ROOT, 'out', 'cli', 'rewind-app.mjs');

/**
 * Runs the built CLI in its own process. Async on purpose: a test may host the socket door the CLI
 * talks to, and a blocking spawn would deadlock it.
 */
export async function runBuiltCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [BUILT_CLI, ...args], { env, encoding: 'utf8' });
    return { status: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof x.code === 'number' ? x.code : 1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

export const FIXTURES = resolve(import.meta.dirname, 'fixtures');
export const CC = join(FIXTURES, 'claude-code-2.1.330');
export const CC_HOME = join(CC, 'home', '.claude');

export const LINEAR = join(CC_HOME, 'projects', '-home-dev-projects-linear', '2ea8980a-26fe-4928-aab5-4ebf6074b664.jsonl');
export const BRANCHED = join(CC_HOME, 'projects', '-home-dev-projects-branched', '9ee005d2-71bf-404d-813f-f64902d8df5f.jsonl');
export const CODEX_SYNTHETIC = join(FIXTURES, 'public', 'codex-SYNTHETIC-tool-calls.jsonl');
export const SUBAGENT = join(CC_HOME, 'projects', '-home-dev-projects-subagent', 'ec33f68b-d266-42d6-b76a-6c2b9bb6c0ae.jsonl');

/** A temp dir removed once the test file is done (test/temp.ts). */
export { tempDir };

/** A writable copy of the 2.1.330 Claude config dir; returns its root. */
export async function copyClaudeHome(): Promise<string> {
  const dir = await tempDir();
  const root = join(dir, '.claude');
  await cp(CC_HOME, root, { recursive: true });
  return root;
}

export function inCopy(root: string, fixturePath: string): string {
  return join(root, fixturePath.slice(CC_HOME.length + 1));
}

export async function allFixtureTranscripts(): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name.endsWith('.jsonl')) out.push(p);
    }
  };
  // Claude Code's and the public transcripts; the other agents' real files have their own tests.
  await walk(CC);
  await walk(join(FIXTURES, 'public'));
  return out.sort();
}
