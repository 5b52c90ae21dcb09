import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type BenchContext, median, ROOT } from './lib.js';

/**
 * One session in Chromium: first render after the data (median of 3 loads), then the first scroll
 * through it top to bottom (rows never drawn before), one step a frame, every frame timed; the floor
 * is the same scroll over an empty page of the same height, in the same browser and run.
 */
async function measureUi(dir: string, name: string, generate: (file: string) => Promise<unknown>) {
  const { chromium } = await import('@playwright/test');
  const { spawn } = await import('node:child_process');
  const root = join(dir, `ui-${name}`);
  const file = join(root, 'projects', '-home-dev-project', '00000000-0000-4000-8000-00000000beef.jsonl');
  await rm(root, { recursive: true, force: true });
  await mkdir(join(file, '..'), { recursive: true });
  await generate(file);
  const child = spawn(process.execPath, [join(ROOT, 'out', 'cli', 'rewind-app.mjs'), 'serve', '--port', '0'], { env: { ...process.env, CLAUDE_CONFIG_DIR: root, REWIND_SOCKET: join(dir, `ui-${name}.sock`), REWIND_CACHE_DIR: join(dir, `ui-${name}-cache`) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolvePromise) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /running at (\S+)/.exec(out);
      if (m) resolvePromise(m[1]!);
    });
  });
  const browser = await chromium.launch({ executablePath: process.env.REWIND_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const renders: number[] = [];
  for (let i = 0; i < 3; i++) {
    await page.goto(url);
    await page.waitForFunction(() => performance.getEntriesByName('rewind:timeline-render').length > 0, null, { timeout: 120_000 });
    renders.push(await page.evaluate(() => performance.getEntriesByName('rewind:timeline-render')[0]!.duration));
  }
  const rows = await page.locator('.prompt-row').count();
  const textless = await page.evaluate(() => [...document.querySelectorAll('.rows .prompt-text')].filter((t) => !(t.textContent ?? '').trim() || t.getBoundingClientRect().width < 100).length);
  const scrollFrames = () =>
    page.evaluate(async () => {
      const el = document.querySelector('.rows') as HTMLElement;
      el.scrollTop = 0;
      await new Promise((r) => requestAnimationFrame(r));
      const deltas: number[] = [];
      let last = performance.now();
      while (el.scrollTop + el.clientHeight < el.scrollHeight - 1) {
        el.scrollTop += 120;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        deltas.push(now - last);
        last = now;
        if (deltas.length > 6000) break;
      }
      return deltas;
    });
  const frames = await scrollFrames();
  const total = await page.evaluate(() => (document.querySelector('.rows') as HTMLElement).scrollHeight);
  await page.setContent(`<div class="rows" style="height:700px;overflow:auto"><div style="height:${total}px"></div></div>`);
  const floorFrames = await scrollFrames();
  await browser.close();
  child.kill('SIGTERM');
  const over = (fs: number[], ms: number) => fs.filter((d) => d > ms).length;
  const p95 = (fs: number[]) => +[...fs].sort((a, b) => a - b)[Math.floor(fs.length * 0.95)]!.toFixed(1);
  return {
    firstRenderMs: +median(renders).toFixed(0),
    renderedRows: rows,
    rowsWithoutText: textless,
    scrollFrames: frames.length,
    droppedFrames: over(frames, 1.5 * (1000 / 60)),
    framesOver50ms: over(frames, 50),
    p95FrameMs: p95(frames),
    maxFrameMs: +Math.max(...frames).toFixed(1),
    emptyPageFrames: floorFrames.length,
    emptyPageDropped: over(floorFrames, 1.5 * (1000 / 60)),
    emptyPageOver50ms: over(floorFrames, 50),
    emptyPageMaxFrameMs: +Math.max(...floorFrames).toFixed(1),
    targets: { firstRenderMs: '< 500', framesOver50ms: '0' },
  };
}

/** The first screen's script budget: index.html's entry and the chunks it preloads (kB of 1,000 bytes, as Vite prints them). */
export const FIRST_SCREEN_BUDGET_KB = 337;

/** What a first visit must fetch before the window can draw: the script index.html names, in kB. */
export async function firstScreenScriptKb(root = ROOT): Promise<{ kb: number; files: string[] }> {
  const html = await readFile(join(root, 'out', 'renderer', 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  let bytes = 0;
  for (const f of files) bytes += (await stat(join(root, 'out', 'renderer', f))).size;
  return { kb: +(bytes / 1000).toFixed(1), files };
}

/**
 * A 10,000-prompt timeline and a 10,000-message session with 275 native rewinds in Chromium: first
 * render and first scroll, next to an empty page's scroll.
 */
export async function benchUi({ dir }: BenchContext) {
  // 10,000 prompts: small turns, so the transcript stays a few hundred MB at most.
  const { generatePrompts } = await import('./generate-transcript.js');
  const { generateRewound } = await import('./generate-rewound.js');
  const flat = { prompts: 10_000, ...(await measureUi(dir, 'flat', (f) => generatePrompts(f, 10_000))) };
  const rewound = { messages: 10_000, rewinds: 275, ...(await measureUi(dir, 'rewound', (f) => generateRewound(f, { messages: 10_000, rewinds: 275 }))) };
  const script = await firstScreenScriptKb();
  console.log(`ui: the first screen's script (index.html's entry and preloads): ${script.kb} kB (budget ${FIRST_SCREEN_BUDGET_KB} kB: ${script.kb <= FIRST_SCREEN_BUDGET_KB ? 'met' : 'MISSED'})`);
  for (const [label, r] of [['10,000-prompt timeline', flat], ['10,000 messages, 275 native rewinds', rewound]] as const) {
    console.log(
      `ui: ${label}: first render ${r.firstRenderMs} ms after the data (target < 500 ms; ${r.renderedRows} rows in the DOM, ${r.rowsWithoutText} without visible text); first scroll over ${r.scrollFrames} frames: ${r.framesOver50ms} over 50 ms, ${r.droppedFrames} over 25 ms (longest ${r.maxFrameMs} ms, p95 ${r.p95FrameMs} ms); the same scroll of an empty page: ${r.emptyPageOver50ms} over 50 ms, ${r.emptyPageDropped} of ${r.emptyPageFrames} over 25 ms (longest ${r.emptyPageMaxFrameMs} ms)`,
    );
  }
  return { ...flat, rewound, firstScreenScriptKb: script.kb, firstScreenBudgetKb: FIRST_SCREEN_BUDGET_KB };
}
