/**
 * What models cost, in US dollars per million tokens: the one table Rewind prices turns with.
 *
 * Source: the API price lists Anthropic, OpenAI and Google publish for their models (standard tier,
 * prompts up to 200k tokens, 5-minute cache writes), as last checked on 2025-11-15. Prices change:
 * a user's own table (prices.json, see loadPrices) overrides any entry here, and a model that matches
 * nothing is shown with its tokens only, never with a guessed price.
 */
export const PRICES_AS_OF = '2025-11-15';
export const PRICES_SOURCE = "Anthropic, OpenAI and Google's published API price lists (standard tier)";

export interface ModelPrice {
  /** Uncached input. */
  input: number;
  output: number;
  /** Input read from the prompt cache. */
  cacheRead: number;
  /** Input written to the prompt cache (OpenAI and Google bill it as plain input). */
  cacheWrite: number;
}

/** Patterns over a normalized model id (see normalizeModel), most specific first. */
export const PRICE_TABLE: ReadonlyArray<{ match: RegExp; label: string; price: ModelPrice }> = [
  { match: /^claude-opus-4-[5-9]/, label: 'Claude Opus 4.5', price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 } },
  { match: /^claude-opus-4|^claude-3-opus/, label: 'Claude Opus 4', price: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 } },
  { match: /^claude-sonnet-4|^claude-3-[57]-sonnet|^claude-3-7-sonnet/, label: 'Claude Sonnet 4', price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
  { match: /^claude-haiku-4/, label: 'Claude Haiku 4.5', price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 } },
  { match: /^claude-3-5-haiku/, label: 'Claude Haiku 3.5', price: { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 } },
  { match: /^gpt-5(\.\d+)?-mini/, label: 'GPT-5 mini', price: { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 } },
  { match: /^gpt-5(\.\d+)?-nano/, label: 'GPT-5 nano', price: { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0.05 } },
  { match: /^gpt-5/, label: 'GPT-5', price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 } },
  { match: /^codex-mini/, label: 'codex-mini', price: { input: 1.5, output: 6, cacheRead: 0.375, cacheWrite: 1.5 } },
  { match: /^o4-mini/, label: 'o4-mini', price: { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1 } },
  { match: /^o3/, label: 'o3', price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 } },
  { match: /^gpt-4\.1/, label: 'GPT-4.1', price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 } },
  { match: /^gemini-2\.5-pro/, label: 'Gemini 2.5 Pro', price: { input: 1.25, output: 10, cacheRead: 0.31, cacheWrite: 1.25 } },
  { match: /^gemini-2\.5-flash-lite/, label: 'Gemini 2.5 Flash-Lite', price: { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0.1 } },
  { match: /^gemini-2\.5-flash/, label: 'Gemini 2.5 Flash', price: { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0.3 } },
];

/** Lower case, without a provider prefix (`anthropic/`, `models/`, `custom:`) or a date suffix. */
export function normalizeModel(id: string): string {
  return id
    .trim()
    .toLowerCase()
    .replace(/^(custom:|models\/|[a-z0-9_-]+\/)/, '')
    .replace(/[-@](\d{8}|\d{4}-\d{2}-\d{2})$/, '');
}

export interface PriceBook {
  /** The user's own prices by exact (normalized) model id: they win over the table. */
  overrides: Record<string, ModelPrice>;
  asOf: string;
  source: string;
}

export const DEFAULT_PRICE_BOOK: PriceBook = { overrides: {}, asOf: PRICES_AS_OF, source: PRICES_SOURCE };

/** The price of a model, or null when neither the user's table nor ours knows it. */
export function priceOf(model: string | null, book: PriceBook = DEFAULT_PRICE_BOOK): ModelPrice | null {
  if (!model) return null;
  const id = normalizeModel(model);
  // Own keys only: `constructor`, `toString` or `__proto__` as a model name must not find Object's members.
  const own = Object.hasOwn(book.overrides, id) ? book.overrides[id] : Object.hasOwn(book.overrides, model) ? book.overrides[model] : undefined;
  if (own) return own;
  return PRICE_TABLE.find((r) => r.match.test(id))?.price ?? null;
}
