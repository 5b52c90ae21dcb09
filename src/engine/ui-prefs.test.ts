import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/temp.js';
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

  it('an invalid file reads as empty and is replaced by a valid one on write', async () => {
    const file = await fresh();
    await renameSession(file, 'a', 'x');
    await writeFile(file, '{"names": 3');
    expect(await readPrefs(file)).toEqual({ names: {}, hiddenHooksNotice: [] });
    await renameSession(file, 'b', 'y');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ names: { b: 'y' }, hiddenHooksNotice: [] });
  });
});
