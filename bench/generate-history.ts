import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateTranscript } from './generate-transcript.js';

/**
 * A heavy user's Claude Code history, after the issue's: 2,500 sessions in 60 projects, most of
 * 0.1-2 MB, five of 100-600 MB with big tool results, one of about 10,000 messages with 275 native
 * rewinds, one 12 MB line; 3.9 GB at scale 1. Planted words with known answers:
 *   - PLANT_MANY in 11 prompts of 11 sessions (old and new, small and big);
 *   - PLANT_BIG once, in the biggest session;
 *   - PLANT_PHRASE ("quartz ledger") in 3 prompts;
 *   - PLANT_ACCENT ("Zqxcafé") in 2 prompts, searched as "ZQXCAFE";
 *   - PLANT_COMMON ("refactor", the common word) in the first prompt of 95% of the sessions
 *     and every sixth prompt after it: in about 2,375 sessions, as in the history.
 * Planted words are never in tool results, so `grep -rlF` finds exactly the planted sessions.
 */
export const PLANT_MANY = 'zqxplantmany';
export const PLANT_BIG = 'zqxplantbig';
export const PLANT_PHRASE = 'quartz ledger';
export const PLANT_ACCENT = 'Zqxcafé';
export const PLANT_COMMON = 'refactor';
/** The history's shape: a marker of another version is made again. */
const VERSION = 2;

export interface History {
  root: string;
  sessions: number;
  bytes: number;
  tenK: string;
  small: string;
  biggest: string[];
  planted: Record<string, number>;
}

export async function generateHistory(root: string, scale: number): Promise<History> {
  const marker = join(root, 'history.json');
  const done = await readFile(marker, 'utf8').catch(() => null);
  if (done) {
    const h = JSON.parse(done) as History & { scale: number; version?: number };
    if (h.scale === scale && h.version === VERSION) return h;
  }
  let seed = 99;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const N = 2500;
  const now = Date.now();
  const plantMany = new Set([3, 250, 600, 900, 1200, 1500, 1800, 2100, 2400, 0, 1]); // 0, 1: two of the big ones
  const phrase = new Set([10, 1000, 2000]);
  const accent = new Set([20, 2020]);
  // Sessions 0-4: big (100-600 MB at scale 1); 5: ~10k messages, 275 rewinds; 6: the 12 MB line.
  const bigSizes = [600, 450, 300, 200, 100].map((m) => m * 1024 * 1024 * scale);
  const restBudget = 3.9 * 1024 ** 3 * scale - bigSizes.reduce((a, b) => a + b, 0) - 30 * 1024 * 1024;
  const smallAvg = restBudget / (N - 6);
  let bytes = 0;
  const out: History = { root, sessions: N, bytes: 0, tenK: '', small: '', biggest: [], planted: { [PLANT_MANY]: 11, [PLANT_BIG]: 1, [PLANT_PHRASE]: 3, [PLANT_ACCENT.toUpperCase()]: 2 } };
  for (let i = 0; i < N; i++) {
    const project = `-home-dev-p${String(i % 60).padStart(2, '0')}`;
    const dir = join(root, 'projects', project);
    await mkdir(dir, { recursive: true });
    const id = `${String(i).padStart(8, '0')}-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const file = join(dir, `${id}.jsonl`);
    let size: number;
    if (i < 5) size = bigSizes[i]!;
    else if (i === 5) size = 30 * 1024 * 1024;
    else size = Math.max(100 * 1024, smallAvg * (0.2 + rand() * 1.6));
    const plant = (n: number): string | null => {
      const words: string[] = [];
      if (n === 2 && plantMany.has(i)) words.push(PLANT_MANY);
      if (n === 3 && i === 0) words.push(PLANT_BIG);
      if (n === 1 && phrase.has(i)) words.push(`the ${PLANT_PHRASE} is off`);
      if (n === 1 && accent.has(i)) words.push(PLANT_ACCENT);
      if ((n === 0 && i % 20 !== 7) || n % 6 === 5) words.push(PLANT_COMMON);
      return words.length ? words.join(' ') : null;
    };
    const g = await generateTranscript(file, size, {
      seed: i + 1,
      sessionId: id,
      cwd: `/home/dev/p${String(i % 60).padStart(2, '0')}`,
      plant,
      branchEvery: i === 5 ? 4 : 50,
      bigChance: i < 5 ? 0.03 : 0.002,
      hugeLine: i === 6 ? 12 * 1024 * 1024 : undefined,
    });
    // Session i was last active i hours ago... spread over about 100 days.
    const t = new Date(now - (i + 1) * 3600_000);
    await utimes(file, t, t);
    bytes += size;
    if (i < 5) out.biggest.push(file);
    if (i === 5) out.tenK = file;
    if (i === 100) out.small = file;
    if (i === 5 && g.lines < 1) throw new Error('generator failed');
  }
  out.bytes = bytes;
  await writeFile(marker, JSON.stringify({ ...out, scale, version: VERSION }));
  return out;
}
