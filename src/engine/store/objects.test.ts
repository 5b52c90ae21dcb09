import { createHash } from 'node:crypto';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/fixtures.js';
import { ObjectStore, hashFile } from './objects.js';

describe('object store', () => {
  it('stores a large file by streaming it once, named by its sha256, no temp left behind', async () => {
    const dir = await tempDir();
    const big = Buffer.alloc(9 * 1024 * 1024 + 123, 7);
    big[5_000_000] = 1;
    await writeFile(join(dir, 'big.bin'), big);
    const store = new ObjectStore(join(dir, 'objects'));
    const hash = await store.putFile(join(dir, 'big.bin'), big.length);
    expect(hash).toBe(createHash('sha256').update(big).digest('hex'));
    expect(await hashFile(join(dir, 'big.bin'))).toBe(hash);
    expect((await store.read(hash)).equals(big)).toBe(true);
    // Stored once: a second put finds it and leaves no temp file.
    expect(await store.putFile(join(dir, 'big.bin'), big.length)).toBe(hash);
    expect((await readdir(join(dir, 'objects'))).filter((n) => n.startsWith('tmp-'))).toEqual([]);
  });
});
