import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { readConfigFile } from '../io/config-file.js';
import { DEFAULT_PRICE_BOOK, normalizeModel, type PriceBook } from '../../shared/insight/prices.js';

const PriceSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative().optional(),
  cacheWrite: z.number().nonnegative().optional(),
});
const FileSchema = z.object({ models: z.record(z.string(), PriceSchema) });

/** Where a user keeps their own prices: `$REWIND_PRICES`, else prices.json in Rewind's config folder. */
export function pricesPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.REWIND_PRICES) return env.REWIND_PRICES;
  const home = env.HOME || homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'Rewind', 'prices.json');
  if (process.platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'Rewind', 'prices.json');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'rewind', 'prices.json');
}

/**
 * The built-in table plus the user's prices.json (`{"models": {"my-model": {"input": 1, "output": 2}}}`,
 * dollars per million tokens; cache prices default to the input price). A file that is not valid
 * is reported in `notice` and ignored: prices never come from a file we could not read right.
 */
export async function loadPrices(env: NodeJS.ProcessEnv = process.env): Promise<{ book: PriceBook; notice: string | null }> {
  const path = pricesPath(env);
  // Read only as a regular file of bounded size: a FIFO named prices.json must not hang a timeline.
  const read = await readConfigFile(path);
  if (read.kind === 'missing') return { book: DEFAULT_PRICE_BOOK, notice: null };
  if (read.kind === 'refused') return { book: DEFAULT_PRICE_BOOK, notice: `${path} was not read (${read.why}); using the built-in prices` };
  const raw = read.text;
  let parsed: z.infer<typeof FileSchema>;
  try {
    parsed = FileSchema.parse(JSON.parse(raw));
  } catch (e) {
    const why = e instanceof z.ZodError ? (e.issues[0] ? `${e.issues[0].path.join('.')}: ${e.issues[0].message}` : 'invalid') : (e as Error).message;
    return { book: DEFAULT_PRICE_BOOK, notice: `${path} is not a valid price table (${why}); using the built-in prices` };
  }
  // No prototype: a model named `constructor` or `__proto__` is a key like any other.
  const overrides: PriceBook['overrides'] = Object.create(null) as PriceBook['overrides'];
  for (const [id, p] of Object.entries(parsed.models)) overrides[normalizeModel(id)] = { input: p.input, output: p.output, cacheRead: p.cacheRead ?? p.input, cacheWrite: p.cacheWrite ?? p.input };
  return { book: { ...DEFAULT_PRICE_BOOK, overrides, source: `${DEFAULT_PRICE_BOOK.source}, with ${path}` }, notice: null };
}
