import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PRICE_BOOK, priceOf } from '../../shared/insight/prices.js';
import { loadPrices } from './load-prices.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rewind-prices-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const bounded = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, no) => setTimeout(() => no(new Error('blocked')), 3000))]);

describe('loadPrices', () => {
  it.skipIf(process.platform === 'win32')('never hangs on a FIFO named prices.json: built-in prices, one notice', async () => {
    const file = join(dir, 'prices.json');
    execFileSync('mkfifo', [file]);
    const r = await bounded(loadPrices({ REWIND_PRICES: file }));
    expect(r.book).toBe(DEFAULT_PRICE_BOOK);
    expect(r.notice).toMatch(/was not read \(it is not a regular file\); using the built-in prices$/);
  });

  it('refuses a file too big to be a price table', async () => {
    const file = join(dir, 'prices.json');
    await writeFile(file, `{"models": {}, "pad": "${'x'.repeat(5 * 1024 * 1024)}"}`);
    expect((await loadPrices({ REWIND_PRICES: file })).notice).toMatch(/larger than/);
  });

  it('models named as object members are prices like any other, and unknown ones have none (never $NaN)', async () => {
    for (const m of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(priceOf(m, DEFAULT_PRICE_BOOK), m).toBeNull();
    }
    const file = join(dir, 'prices.json');
    await writeFile(file, JSON.stringify({ models: { constructor: { input: 1, output: 2 }, toString: { input: 3, output: 4 } } }));
    const { book, notice } = await loadPrices({ REWIND_PRICES: file });
    expect(notice).toBeNull();
    expect(priceOf('constructor', book)).toEqual({ input: 1, output: 2, cacheRead: 1, cacheWrite: 1 });
    expect(priceOf('tostring', book)).toEqual({ input: 3, output: 4, cacheRead: 3, cacheWrite: 3 });
    expect(priceOf('__proto__', book)).toBeNull();
    expect(priceOf('valueOf', book)).toBeNull();
  });
});
