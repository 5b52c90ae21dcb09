import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyWithProject, restoreFromAgent, treeOf } from '../../../../test/agent-store.js';
import { FIXTURES, tempDir } from '../../../../test/fixtures.js';
import { undoLatest } from '../../journal/undo.js';
import { copilot } from './adapter.js';
import { copilotCodeBefore } from './code-history.js';

const FIX = join(FIXTURES, 'copilot-1.0.102');
const SID = '2c141a1f-92c1-4df3-af25-28014492b79e';

/** The linear session's folder (with its snapshots) in a temp home, its project a temp folder as the session left it. */
async function linearHome() {
  const home = await tempDir('copilot-code-');
  const project = join(home, 'proj');
  await cp(join(FIX, 'projects', 'linear'), project, { recursive: true });
  const dir = join(home, '.copilot', 'session-state', SID);
  await mkdir(join(home, '.copilot', 'session-state'), { recursive: true });
  await copyWithProject(join(FIX, 'home', '.copilot', 'session-state', SID), dir, '/home/dev/projects/linear', project);
  const transcript = join(dir, 'events.jsonl');
  const prompts = (await copilot.timeline(transcript)).prompts.map((p) => p.uuid);
  return { project, transcript, dir, prompts };
}

describe("Copilot's own file snapshots as the code store", () => {
  it('the project before each prompt: edited files as the first later turn found them, a shell-made file deleted', async () => {
    const h = await linearHome();
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'c.txt': 'bashmade\n', 'notes.md': 'alpha beta\n' });
    await restoreFromAgent(h.project, h.transcript, h.prompts[2]!);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'notes.md': 'alpha beta\n' });
    await undoLatest(h.project);
    await restoreFromAgent(h.project, h.transcript, h.prompts[1]!);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version one\n', 'notes.md': 'alpha beta\n' });
    await undoLatest(h.project);
    const dry = await restoreFromAgent(h.project, h.transcript, h.prompts[0]!, { dryRun: true });
    expect(dry.preview.target).toMatchObject({ source: 'agent', agent: 'copilot' });
    await restoreFromAgent(h.project, h.transcript, h.prompts[0]!);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'v0\n', 'notes.md': 'alpha beta\n' });
    await undoLatest(h.project);
    expect(await treeOf(h.project)).toEqual({ 'a.txt': 'version two\n', 'c.txt': 'bashmade\n', 'notes.md': 'alpha beta\n' });
  });

  it('says nothing for a prompt no later turn changed a file in, or a session without snapshots; a damaged backup is refused', async () => {
    const h = await linearHome();
    expect(await copilotCodeBefore({ transcriptPath: h.transcript, promptUuid: h.prompts[3]!, projectRoot: h.project })).toBeNull();
    await expect(copilotCodeBefore({ transcriptPath: h.transcript, promptUuid: 'nope', projectRoot: h.project })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const backups = join(h.dir, 'rewind-file-snapshots', 'backups');
    const name = '84325551c170b6987edbe70faaec1cafb6a76ee10c13a77eb60705679dd7271a';
    expect(await readFile(join(backups, name), 'utf8')).toBe('v0\n');
    await writeFile(join(backups, name), 'tampered\n');
    await expect(copilotCodeBefore({ transcriptPath: h.transcript, promptUuid: h.prompts[0]!, projectRoot: h.project })).rejects.toThrow(/damaged/);
    const fork = join(await tempDir('copilot-nosnap-'), 'events.jsonl');
    await cp(h.transcript, fork);
    expect(await copilotCodeBefore({ transcriptPath: fork, promptUuid: h.prompts[0]!, projectRoot: h.project })).toBeNull();
  });
});
