import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/temp.js';
import { hideHooksNotice, readPrefs, renameSession } from './ui-prefs.js';

const fresh = async () => join(await tempDir('rewind-prefs-'), 'nested', 'prefs.json');

describe('ui prefs', () => {
  it('names a session, renames it, and clears the name with an empty one', async () => {
    const file = await fresh();
    expect((await readPrefs(file)).names).toEqual({});
    await renameSession(file, 'abc', '  my   fork\n');
    expect((await readPrefs(file)).names).toEqual({ abc: 'my fork' });
    await renameSession(file, 'abc', 'second');
    await renameSession(file, 'def', 'other');
    expect((await readPrefs(file)).names).toEqual({ abc: 'second', def: 'other' });
    await renameSession(file, 'abc', '   ');
    expect((await readPrefs(file)).names).toEqual({ def: 'other' });
  });

  it('remembers a dismissed notice per project, once', async () => {
    const file = await fresh();
    await hideHooksNotice(file, '/p/one');
    await hideHooksNotice(file, '/p/one');
    await hideHooksNotice(file, '/p/two');
    expect((await readPrefs(file)).hiddenHooksNotice).toEqual(['/p/one', '/p/two']);
  });

  it('concurrent updates are all kept', async () => {
    const file = await fresh();
    await Promise.all(Array.from({ length: 20 }, (_, i) => renameSession(file, `s${i}`, `n${i}`)));
    expect(Object.keys((await readPrefs(file)).names)).toHaveLength(20);
  });

  it('an invalid file reads as empty (said), and is kept aside with a timestamp, never written over', async () => {
    const file = await fresh();
    await renameSession(file, 'a', 'x');
    await writeFile(file, '{"names": {"a": "my precious name"}');
    const read = await readPrefs(file);
    expect(read).toMatchObject({ names: {}, hiddenHooksNotice: [] });
    expect(read.notice).toMatch(/is not valid/);
    const r = await renameSession(file, 'b', 'y');
    expect(r.notice).toMatch(/was not valid .*: kept as .*prefs\.json\.invalid-\d{4}-/);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ names: { b: 'y' }, hiddenHooksNotice: [] });
    const aside = (await readdir(dirname(file))).filter((n) => n.startsWith('prefs.json.invalid-'));
    expect(aside).toHaveLength(1);
    expect(await readFile(join(dirname(file), aside[0]!), 'utf8')).toBe('{"names": {"a": "my precious name"}');
  });

  it.skipIf(process.platform === 'win32')('a FIFO named prefs.json never hangs a read or a rename, and is left as it is', async () => {
    const file = await fresh();
    await mkdir(dirname(file), { recursive: true });
    execFileSync('mkfifo', [file]);
    const bounded = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, no) => setTimeout(() => no(new Error('blocked')), 3000))]);
    expect((await bounded(readPrefs(file))).notice).toMatch(/not a regular file/);
    await expect(bounded(renameSession(file, 'a', 'x'))).rejects.toThrow(/not a regular file\); nothing was changed/);
    expect((await stat(file)).isFIFO()).toBe(true);
  });
});
