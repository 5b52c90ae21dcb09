import { mkdir, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CC_HOME, FIXTURES, LINEAR, tempDir } from '../../../test/fixtures.js';
import { qwenHome, restoreFromAgent, treeOf } from '../../../test/agent-store.js';
import { undoLatest } from '../journal/undo.js';
import type { RewindRequest } from './adapter.js';
import { linkFileHistory } from './file-history-links.js';
import { ADAPTERS } from './registry.js';

/**
 * Finding #30.1-2: every agent's writer names files by the session id inside the file. An id that
 * is not one (`../../../../tmp/x`) is refused in one line before anything is written, for each
 * agent and each mode; an id of the agent's own grammar (not a uuid) still rewrites and undoes.
 */

const past = new Date(Date.now() - 3600_000);
const tops: string[] = [];
afterEach(async () => {
  for (const d of tops.splice(0)) await rm(d, { recursive: true, force: true });
});

type Agent = 'droid' | 'qwen' | 'gemini' | 'codex';
const SOURCES: Record<Agent, { file: string; id: string; at: (root: string, name: string) => string; root: string }> = {
  droid: { file: join(FIXTURES, 'droid-real', '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e.jsonl'), id: '16dfb43e-fda1-4b63-b9a3-2342bcc6d24e', root: '.factory', at: (r, n) => join(r, 'sessions', '-home-dev-projects-linear', n) },
  qwen: { file: join(FIXTURES, 'qwen-real', 'ee8dd990-90b0-403c-9263-0cdd0ce22216.jsonl'), id: 'ee8dd990-90b0-403c-9263-0cdd0ce22216', root: '.qwen', at: (r, n) => join(r, 'projects', '-home-dev-projects-linear', 'chats', n) },
  gemini: { file: join(FIXTURES, 'gemini-real', 'session-2026-11-23T11-33-f2a3037a.jsonl'), id: 'f2a3037a-dcde-407f-a7e7-e90c2f604c95', root: '.gemini', at: (r, n) => join(r, 'tmp', 'linear', 'chats', n) },
  codex: {
    file: join(FIXTURES, 'codex-0.169', 'sessions', '2026', '11', '23', 'rollout-2026-11-23T11-36-01-01a20831-0a9b-7362-9657-fdd051b67f43.jsonl'),
    id: '01a20831-0a9b-7362-9657-fdd051b67f43',
    root: '.codex',
    at: (r, n) => join(r, 'sessions', '2026', '11', '23', n),
  },
};

/** The agent's real session under a home of its own, with the id inside the file replaced by `id`. */
async function sandbox(agent: Agent, id: string) {
  const top = await tempDir(`rewind-ids-${agent}-`);
  tops.push(top);
  const src = SOURCES[agent];
  const root = join(top, src.root);
  const path = src.at(root, src.file.replace(/^.*[\\/]/, ''));
  await mkdir(join(path, '..'), { recursive: true });
  const text = (await readFile(src.file, 'utf8')).split(src.id).join(id);
  await writeFile(path, text);
  await utimes(path, past, past);
  const project = join(top, 'project');
  await mkdir(project);
  return { top, root, path, project, text };
}

async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

const rewind = (agent: Agent, req: RewindRequest) => ADAPTERS[agent].rewind!(req);

const HOSTILE = '../../../../tmp/x';

describe('every agent writer: the session id inside the file is validated as an id before any path is built', () => {
  for (const agent of ['droid', 'qwen', 'gemini', 'codex'] as const) {
    it(`${agent}: an id of ${HOSTILE} is one UNSAFE_PATH line in every mode, nothing written anywhere`, async () => {
      const s = await sandbox(agent, HOSTILE);
      const before = await tree(s.top);
      for (const req of [
        { mode: 'in-place' as const },
        { mode: 'in-place' as const, dryRun: true },
        { mode: 'fork' as const },
      ]) {
        await expect(rewind(agent, { transcriptPath: s.path, n: 1, projectRoot: s.project, agentRoot: s.root, ...req })).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringContaining('is not a valid id') });
      }
      expect(await readFile(s.path, 'utf8')).toBe(s.text);
      expect(await tree(s.top)).toEqual(before);
    });

    it(`${agent}: an id in the agent's own grammar (not a uuid) rewrites in place and undo puts the file back`, async () => {
      const s = await sandbox(agent, 'my_session-2');
      const r = await rewind(agent, { transcriptPath: s.path, n: 1, mode: 'in-place', projectRoot: s.project, agentRoot: s.root });
      expect(r.backupPath).toBe(join(s.project, '.agent', 'rewind', 'transcript-backup', r.backupPath!.replace(/^.*[\\/]/, '')));
      expect(r.backupPath!.replace(/^.*[\\/]/, '')).toMatch(/^my_session-2-/);
      expect(await readFile(s.path, 'utf8')).not.toBe(s.text);
      const u = await undoLatest(s.project, { agentRoots: [s.root] });
      expect(u.undone.kind).toBe('in-place');
      expect(await readFile(s.path, 'utf8')).toBe(s.text);
    });
  }
});

describe("Claude's writer: the same rule, its own fallback", () => {
  it(`a sessionId of ${HOSTILE} inside a Claude transcript never names a path: the backup is named by the file's own id, undo puts it back`, async () => {
    const top = await tempDir('rewind-ids-claude-');
    tops.push(top);
    const root = join(top, '.claude');
    const path = join(root, LINEAR.slice(CC_HOME.length + 1));
    await mkdir(join(path, '..'), { recursive: true });
    const text = (await readFile(LINEAR, 'utf8')).split('"sessionId":"2ea8980a-26fe-4928-aab5-4ebf6074b664"').join(`"sessionId":"${HOSTILE}"`);
    await writeFile(path, text);
    await utimes(path, past, past);
    const project = join(top, 'project');
    await mkdir(project);
    const r = await ADAPTERS.claude.rewind!({ transcriptPath: path, n: 1, mode: 'in-place', projectRoot: project, agentRoot: root });
    expect(r.backupPath!.startsWith(join(project, '.agent', 'rewind', 'transcript-backup', '2ea8980a-26fe-4928-aab5-4ebf6074b664-'))).toBe(true);
    expect((await readdir(top)).sort()).toEqual(['.claude', 'project']);
    await undoLatest(project, { agentRoots: [root] });
    expect(await readFile(path, 'utf8')).toBe(text);
  });
});

describe('the Qwen fork and the file-history linker', () => {
  it('a Qwen fork whose sessionId escapes (../../victim) links nothing from the victim folder: refused before anything is written', async () => {
    const s = await sandbox('qwen', '../../victim');
    await mkdir(join(s.top, 'victim'));
    await writeFile(join(s.top, 'victim', 'id_rsa'), 'PRIVATE KEY');
    const before = await tree(s.top);
    await expect(rewind('qwen', { transcriptPath: s.path, n: 1, mode: 'fork', projectRoot: s.project, agentRoot: s.root })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await tree(s.top)).toEqual(before);
    expect((await stat(join(s.top, 'victim', 'id_rsa'))).nlink).toBe(1);
  });

  it("a real Qwen fork still gets its session's file history, hard-linked under the fork's id", async () => {
    const s = await sandbox('qwen', SOURCES.qwen.id);
    const from = join(s.root, 'file-history', SOURCES.qwen.id);
    await mkdir(from, { recursive: true });
    await writeFile(join(from, 'abc@v1'), 'v1');
    const r = await rewind('qwen', { transcriptPath: s.path, n: 1, mode: 'fork', projectRoot: s.project, agentRoot: s.root });
    const to = join(s.root, 'file-history', r.forkSessionId!);
    expect(await readdir(to)).toEqual(['abc@v1']);
    expect((await stat(join(to, 'abc@v1'))).ino).toBe((await stat(join(from, 'abc@v1'))).ino);
  });

  it('the linker refuses ids that are not ids, and never follows a symlinked folder or file out of file-history/', async () => {
    const top = await tempDir('rewind-links-');
    tops.push(top);
    const root = join(top, '.qwen');
    await mkdir(join(root, 'file-history', 'real'), { recursive: true });
    await mkdir(join(top, 'victim'));
    await writeFile(join(top, 'victim', 'id_rsa'), 'PRIVATE KEY');
    await expect(linkFileHistory(root, '../../victim', 'fork1')).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    await expect(linkFileHistory(root, 'real', '../../x')).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    if (process.platform !== 'win32') {
      await symlink(join(top, 'victim'), join(root, 'file-history', 'linked'));
      expect(await linkFileHistory(root, 'linked', 'fork2')).toBeNull();
      await symlink(join(top, 'victim', 'id_rsa'), join(root, 'file-history', 'real', 'id_rsa'));
      await writeFile(join(root, 'file-history', 'real', 'ok@v1'), 'ok');
      const to = await linkFileHistory(root, 'real', 'fork3');
      expect(await readdir(to!)).toEqual(['ok@v1']);
    }
    expect(await readdir(join(root, 'file-history'))).not.toContain('fork1');
    expect(await readdir(join(root, 'file-history'))).not.toContain('fork2');
  });

  it("a Qwen code restore whose sessionId escapes reads no backup from outside file-history/: one UNSAFE_PATH line, the project untouched", async () => {
    const h = await qwenHome({ beforeNativeRewind: true });
    const top = join(h.root, '..');
    tops.push(top);
    const sid = h.backups.replace(/^.*[\\/]/, '');
    await mkdir(join(top, 'victim'));
    for (const n of await readdir(h.backups)) await writeFile(join(top, 'victim', n), 'STOLEN\n');
    await writeFile(h.transcript, (await readFile(h.transcript, 'utf8')).split(`"sessionId":"${sid}"`).join('"sessionId":"../../victim"'));
    const before = await treeOf(h.project);
    await expect(restoreFromAgent(h.project, h.transcript, 'f12463c2-8185-4fed-a450-ec0901460950')).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await treeOf(h.project)).toEqual(before);
  });
});
