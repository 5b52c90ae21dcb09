import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { hasGit, restoreFromAgent, treeOf } from '../../../../test/agent-store.js';
import { undoLatest } from '../../journal/undo.js';
import { readGeminiTimeline } from './discover.js';

const REC = join(FIXTURES, 'gemini-real', 'interactive-checkpoints');
const SESSION = 'session-2026-11-23T11-46-22573b10.jsonl';
const HAS_GIT = hasGit();

/** Writes `files` as the whole project and commits it into the shadow repository the way Gemini's checkpointing does. */
function commitTree(gitDir: string, project: string, files: Record<string, string>): string {
  const run = (args: string[]) => execFileSync('git', ['--git-dir', gitDir, '--work-tree', project, '-c', 'user.name=Gemini CLI', '-c', 'user.email=gemini-cli@google.com', ...args], { encoding: 'utf8' }).trim();
  for (const e of execFileSync('ls', ['-A', project], { encoding: 'utf8' }).split('\n').filter(Boolean)) execFileSync('rm', ['-rf', join(project, e)]);
  for (const [p, c] of Object.entries(files)) execFileSync('sh', ['-c', 'mkdir -p "$(dirname "$1")" && printf %s "$2" > "$1"', 'sh', join(project, p), c]);
  run(['add', '-A']);
  run(['commit', '-q', '--allow-empty', '-m', 'checkpoint']);
  return run(['rev-parse', 'HEAD']);
}

/**
 * Gemini's real interactive session and its two real checkpoint records (one per write_file turn),
 * with a shadow repository made here by git as Gemini makes it (the recorded one was not kept): the
 * project before #1 held a.txt "v0" and gone.txt; before #2 a.txt "version one". Now: a.txt "version
 * two" and new.txt, made after #1; gone.txt was deleted.
 */
async function geminiHome() {
  const home = await tempDir('gemini-code-');
  const project = join(home, 'proj');
  await mkdir(project);
  const root = join(home, '.gemini');
  const slug = join(root, 'tmp', 'proj');
  await mkdir(join(slug, 'chats'), { recursive: true });
  await mkdir(join(slug, 'checkpoints'), { recursive: true });
  await writeFile(join(root, 'projects.json'), JSON.stringify({ projects: { [project]: 'proj' } }));
  await cp(join(REC, SESSION), join(slug, 'chats', SESSION));
  const gitDir = join(root, 'history', 'proj', '.git');
  await mkdir(gitDir, { recursive: true });
  execFileSync('git', ['init', '-q', '--bare', gitDir]);
  const c1 = commitTree(gitDir, project, { 'a.txt': 'v0\n', 'gone.txt': 'old\n', 'src/x.js': 'x\n' });
  const c2 = commitTree(gitDir, project, { 'a.txt': 'version one\n', 'new.txt': 'made in #1\n', 'src/x.js': 'x\n' });
  const names = (await readdir(REC)).filter((n) => n.endsWith('.json')).sort();
  for (const [name, commit] of [[names[0]!, c1], [names[1]!, c2]] as const) {
    const v = JSON.parse(await readFile(join(REC, name), 'utf8'));
    await writeFile(join(slug, 'checkpoints', name), JSON.stringify({ ...v, commitHash: commit }));
  }
  for (const e of await readdir(project)) await rm(join(project, e), { recursive: true });
  await mkdir(join(project, 'src'));
  await writeFile(join(project, 'a.txt'), 'version two\n');
  await writeFile(join(project, 'new.txt'), 'made in #1\n');
  await writeFile(join(project, 'src', 'x.js'), 'x\n');
  const transcript = join(slug, 'chats', SESSION);
  const prompts = (await readGeminiTimeline(transcript)).prompts;
  return { root, project, transcript, gitDir, checkpoints: join(slug, 'checkpoints'), names, p1: prompts[0]!.uuid, p2: prompts[1]!.uuid };
}

describe.skipIf(!HAS_GIT)("Gemini's checkpoints (its shadow git) as the code store", () => {
  it('before #1: a.txt modified, new.txt (created after) deleted, gone.txt (deleted since) restored; undo puts all back; the shadow repo is not written', async () => {
    const h = await geminiHome();
    const refsBefore = execFileSync('git', ['--git-dir', h.gitDir, 'count-objects', '-v'], { encoding: 'utf8' });
    const dry = await restoreFromAgent(h.project, h.transcript, h.p1, { dryRun: true });
    expect(dry.preview.target).toMatchObject({ source: 'agent', agent: 'gemini' });
    expect(dry.preview.plan.changes.map((c) => [c.action, c.path])).toEqual([['modify', 'a.txt'], ['create', 'gone.txt'], ['delete', 'new.txt']]);
    await restoreFromAgent(h.project, h.transcript, h.p1);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'v0\n', 'gone.txt': 'old\n', 'src/x.js': 'x\n' });
    await undoLatest(h.project);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'new.txt': 'made in #1\n', 'src/x.js': 'x\n' });
    await restoreFromAgent(h.project, h.transcript, h.p2, { force: true });
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n', 'new.txt': 'made in #1\n', 'src/x.js': 'x\n' });
    expect(execFileSync('git', ['--git-dir', h.gitDir, 'count-objects', '-v'], { encoding: 'utf8' })).toBe(refsBefore);
  });

  it('a missing commit is one line and nothing is written; a commitHash that is not one is refused', async () => {
    const h = await geminiHome();
    const file = join(h.checkpoints, h.names[0]!);
    const v = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify({ ...v, commitHash: 'f'.repeat(40) }));
    const err = await restoreFromAgent(h.project, h.transcript, h.p1).catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'NOT_FOUND' });
    expect((err as Error).message).toMatch(/^Gemini's checkpoint ffffffffffff is missing from .*: nothing was changed$/);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'new.txt': 'made in #1\n', 'src/x.js': 'x\n' });
    await writeFile(file, JSON.stringify({ ...v, commitHash: '--output=/tmp/x' }));
    await expect(restoreFromAgent(h.project, h.transcript, h.p1)).rejects.toMatchObject({ code: 'INVALID_TRANSCRIPT' });
  });

  it('a project that is a subfolder of where Gemini ran: paths outside it are named, left alone, and nothing there is deleted', async () => {
    const h = await geminiHome();
    const r = await restoreFromAgent(join(h.project, 'src'), h.transcript, h.p1, { dryRun: true });
    expect(r.preview.outside.map((p) => p.slice(h.project.length + 1)).sort()).toEqual(['a.txt', 'gone.txt']);
    expect(r.preview.plan.changes).toEqual([]);
    expect(r.preview.unknown!.join('\n')).toContain('only the files its checkpoint holds are restored');
  });

  it('no checkpoint after the prompt: the store has nothing (the caller falls back to Rewind checkpoints)', async () => {
    const h = await geminiHome();
    await rm(h.checkpoints, { recursive: true });
    const err = await restoreFromAgent(h.project, h.transcript, h.p2).catch((e: Error) => e);
    expect(err).toMatchObject({ code: 'NO_CHECKPOINT', message: expect.stringContaining("Gemini's own checkpoints: nothing for that prompt, and no Rewind checkpoint") });
  });
});
