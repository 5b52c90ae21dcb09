import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/temp.js';
import { handleAgentHook, logHookError } from '../hooks/handle-hook.js';
import { appendJournal } from '../journal/append.js';
import { ensureStore } from '../project.js';
import { takeCheckpoint } from '../store/checkpoint.js';
import { appendOwnFile, createOwnFileIfMissing, ensureOwnDir } from './own-file.js';

/**
 * A project cloned from someone else ships links where Rewind keeps its own files (issue #34,
 * findings 1-3): nothing Rewind writes may go through them. Each case puts a file "outside" (a
 * stand-in for ~/.bashrc, in a temp dir: never the real one) and checks it is untouched.
 */

const BASHRC = 'export PATH=$PATH:/usr/local/bin\n';

async function hostile(prefix: string) {
  const base = await tempDir(prefix);
  const project = join(base, 'proj');
  const outside = join(base, 'home');
  await mkdir(project);
  await mkdir(outside);
  const bashrc = join(outside, '.bashrc');
  await writeFile(bashrc, BASHRC);
  await writeFile(join(project, 'a.txt'), 'v0\n');
  return { base, project, outside, bashrc };
}

const store = (project: string) => join(project, '.agent', 'rewind');

describe('the io layer writes its own files without following links', () => {
  it('appendOwnFile refuses a link, a FIFO and a hard-linked file; appends to its own file', async () => {
    const h = await hostile('own-append-');
    const link = join(h.project, 'log');
    await symlink(h.bashrc, link);
    await expect(appendOwnFile(link, 'x\n')).rejects.toMatchObject({ code: 'UNSAFE_PATH', message: expect.stringMatching(/is a link/) });
    const hard = join(h.project, 'hard');
    const { link: hardLink } = await import('node:fs/promises');
    await hardLink(h.bashrc, hard);
    await expect(appendOwnFile(hard, 'x\n')).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await readFile(h.bashrc, 'utf8')).toBe(BASHRC);
    if (process.platform !== 'win32') {
      const fifo = join(h.project, 'fifo');
      execFileSync('mkfifo', [fifo]);
      await expect(appendOwnFile(fifo, 'x\n')).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    }
    const own = join(h.project, 'own.log');
    await appendOwnFile(own, 'a\n');
    await appendOwnFile(own, 'b\n');
    expect(await readFile(own, 'utf8')).toBe('a\nb\n');
  });

  it('createOwnFileIfMissing never writes through a dangling link; ensureOwnDir refuses a linked folder', async () => {
    const h = await hostile('own-create-');
    const target = join(h.outside, 'made-by-link');
    await symlink(target, join(h.project, '.gitignore'));
    expect(await createOwnFileIfMissing(join(h.project, '.gitignore'), '*\n')).toBe(false);
    await expect(lstat(target)).rejects.toMatchObject({ code: 'ENOENT' });
    await symlink(h.outside, join(h.project, 'linked'));
    await expect(ensureOwnDir(h.project, 'linked/sub')).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await readdir(h.outside)).toEqual(['.bashrc']);
  });
});

describe('a hostile project cannot make the store or the hook write outside it', () => {
  it('the hook never appends through a shipped .agent/rewind/agent-writes.jsonl link (finding 2)', async () => {
    const h = await hostile('hostile-writes-');
    await mkdir(store(h.project), { recursive: true });
    await symlink(h.bashrc, join(store(h.project), 'agent-writes.jsonl'));
    const evil = join(h.project, '$(echo PWNED>marker)');
    await writeFile(evil, 'x\n');
    const payload = { session_id: 's', cwd: h.project, hook_event_name: 'PostToolUse', tool_name: 'write_file', tool_input: { file_path: evil } };
    await expect(handleAgentHook('qwen', payload, {})).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await readFile(h.bashrc, 'utf8')).toBe(BASHRC);
  });

  it("a failing hook's log line never goes through a shipped hook.log link (finding 2)", async () => {
    const h = await hostile('hostile-log-');
    await mkdir(store(h.project), { recursive: true });
    const profile = join(h.outside, '.profile');
    await writeFile(profile, 'umask 022\n');
    await symlink(profile, join(store(h.project), 'hook.log'));
    const cache = join(h.base, 'cache');
    const was = process.env.REWIND_CACHE_DIR;
    process.env.REWIND_CACHE_DIR = cache;
    try {
      await logHookError(h.project, 'boom: the hook failed');
    } finally {
      if (was === undefined) delete process.env.REWIND_CACHE_DIR;
      else process.env.REWIND_CACHE_DIR = was;
    }
    expect(await readFile(profile, 'utf8')).toBe('umask 022\n');
    // The line is not lost: it goes to Rewind's own cache folder instead.
    expect(await readFile(join(cache, 'hook.log'), 'utf8')).toMatch(/boom: the hook failed/);
  });

  it('the journal refuses a shipped journal.jsonl link', async () => {
    const h = await hostile('hostile-journal-');
    await mkdir(store(h.project), { recursive: true });
    await symlink(h.bashrc, join(store(h.project), 'journal.jsonl'));
    await expect(appendJournal(h.project, { kind: 'intent-end', id: 'x', time: new Date().toISOString(), intent: 'x', outcome: 'completed' } as never)).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await readFile(h.bashrc, 'utf8')).toBe(BASHRC);
  });

  it('a store whose .agent, .agent/rewind or objects folder is a link out of the project gets nothing (finding 3)', async () => {
    for (const linked of ['.agent', '.agent/rewind', '.agent/rewind/objects', '.agent/rewind/checkpoints']) {
      const h = await hostile('hostile-store-');
      const out = join(h.outside, 'store');
      await mkdir(out);
      const at = join(h.project, linked);
      await mkdir(join(at, '..'), { recursive: true });
      await symlink(out, at);
      await expect(takeCheckpoint({ projectRoot: h.project, trigger: 'manual', transcript: null, touched: null })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
      expect(await readdir(out)).toEqual([]);
    }
  });

  it("an objects fan-out folder shipped as a link out of the project receives no blob", async () => {
    const h = await hostile('hostile-fanout-');
    await ensureStore(h.project);
    const out = join(h.outside, 'blobs');
    await mkdir(out);
    await mkdir(join(store(h.project), 'objects'), { recursive: true });
    // a.txt holds "v0\n": its blob goes under objects/<first two hex of its sha256>/.
    const { createHash } = await import('node:crypto');
    const fan = createHash('sha256').update('v0\n').digest('hex').slice(0, 2);
    await symlink(out, join(store(h.project), 'objects', fan));
    await expect(takeCheckpoint({ projectRoot: h.project, trigger: 'manual', transcript: null, touched: null })).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(await readdir(out)).toEqual([]);
  });

  it('a dangling .gitignore link in the store is not followed', async () => {
    const h = await hostile('hostile-gitignore-');
    await mkdir(store(h.project), { recursive: true });
    const target = join(h.outside, '.ssh-config');
    await symlink(target, join(store(h.project), '.gitignore'));
    await ensureStore(h.project);
    await expect(lstat(target)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.skipIf(process.platform === 'win32')("the hook does not hang on FIFOs shipped as the store's own files", async () => {
    const h = await hostile('hostile-store-fifo-');
    await mkdir(join(store(h.project), 'checkpoints'), { recursive: true });
    for (const f of ['hook-qwen.json', 'touched.json', 'config.json', 'agent-writes.jsonl']) execFileSync('mkfifo', [join(store(h.project), f)]);
    execFileSync('mkfifo', [join(store(h.project), 'checkpoints', 'index.jsonl')]);
    const p = { session_id: 's', cwd: h.project };
    const t0 = Date.now();
    // The index is a FIFO: the checkpoint is refused in one line, never waited on.
    await expect(handleAgentHook('qwen', { ...p, hook_event_name: 'UserPromptSubmit', prompt: 'go', submitted_prompt: 'go' }, {})).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    await handleAgentHook('qwen', { ...p, hook_event_name: 'PreToolUse', tool_name: 'write_file', tool_input: { file_path: join(h.project, 'a.txt') } }, {});
    await expect(handleAgentHook('qwen', { ...p, hook_event_name: 'PostToolUse', tool_name: 'write_file', tool_input: { file_path: join(h.project, 'a.txt') } }, {})).rejects.toMatchObject({ code: 'UNSAFE_PATH' });
    expect(Date.now() - t0).toBeLessThan(8_000);
  }, 15_000);

  it.skipIf(process.platform === 'win32')('the hook does not hang on a FIFO named as the transcript (finding 4)', async () => {
    const h = await hostile('hostile-fifo-');
    const fifo = join(h.base, 'session.jsonl');
    execFileSync('mkfifo', [fifo]);
    const p = { session_id: 's', transcript_path: fifo, cwd: h.project };
    const t0 = Date.now();
    await handleAgentHook('qwen', { ...p, hook_event_name: 'UserPromptSubmit', prompt: 'go', submitted_prompt: 'go' }, {});
    await handleAgentHook('qwen', { ...p, hook_event_name: 'Stop' }, {});
    await handleAgentHook('claude', { ...p, hook_event_name: 'UserPromptSubmit', prompt_id: 'p1', prompt: 'go' }, {});
    expect(Date.now() - t0).toBeLessThan(8_000);
  }, 15_000);
});
