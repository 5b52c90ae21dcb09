import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A source-like tree: `files` files in nested folders, `totalBytes` in all, some larger files. */
export async function generateTree(root: string, files: number, totalBytes: number): Promise<void> {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const avg = totalBytes / files;
  const chunk = Buffer.alloc(1 << 20);
  for (let i = 0; i < chunk.length; i++) chunk[i] = 32 + Math.floor(rand() * 90);
  for (let i = 0; i < chunk.length; i += 60 + Math.floor(rand() * 40)) chunk[i] = 10;
  await writeFile(join(root, '.gitignore'), 'node_modules/\n*.log\n');
  const batch: Promise<void>[] = [];
  for (let i = 0; i < files; i++) {
    const dir = join(root, `pkg${i % 40}`, `mod${i % 13}`, `d${i % 7}`);
    const size = Math.max(200, Math.floor(avg * (rand() < 0.01 ? 30 : 0.7 + rand() * 0.3)));
    const off = Math.floor(rand() * (chunk.length - Math.min(size, chunk.length)));
    const body = size <= chunk.length ? chunk.subarray(off, off + size) : Buffer.concat([chunk, chunk.subarray(0, size - chunk.length)]);
    batch.push(
      (async () => {
        await mkdir(dir, { recursive: true });
        await writeFile(join(dir, `file${i}.ts`), Buffer.concat([Buffer.from(`// file ${i}\n`), body]));
      })(),
    );
    if (batch.length >= 256) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
}
