import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdir, rm, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { generatePrompts } from './generate-transcript.js';
import { generateRewound } from './generate-rewound.js';
import { type BenchContext, ROOT } from './lib.js';

/**
 * The window in Chromium on a first visit (a fresh browser context each time: nothing cached):
 * - ready: navigation start to the session list shown (`.app[data-ready]`);
 * - session text: a click on a 10,000-message session (275 native rewinds) to its rows' text on screen.
 * Each beside an empty page loaded from a local server in the same run (navigation start to its load
 * event), interleaved, medians of `runs`; idle, then beside two busy loops.
 */
export async function measureBrowserSpeed(dir: string, root: string, runs = 7) {
  const { chromium } = await import('@playwright/test');
  const home = join(dir, 'browser-speed');
  await rm(home, { recursive: true, force: true });
  const projects = join(home, 'claude', 'projects', '-home-dev-project');
  await mkdir(projects, { recursive: true });
  const big = join(projects, '00000000-0000-4000-8000-0000000b1600.jsonl');
  const small = join(projects, '00000000-0000-4000-8000-00000005a411.jsonl');
  await generateRewound(big, { messages: 10_000, rewinds: 275 });
  await generatePrompts(small, 3, { sessionId: '00000000-0000-4000-8000-00000005a411' });
  // The small one is newest: opened first, so the big one's open is the click measured.
  const now = Date.now() / 1000;
  await utimes(big, now - 60, now - 60);
  await utimes(small, now, now);

  const child = spawn(process.execPath, [join(root, 'out', 'cli', 'rewind-app.mjs'), 'serve', '--port', '0'], {
    env: { ...process.env, HOME: home, CLAUDE_CONFIG_DIR: join(home, 'claude'), CODEX_HOME: join(home, 'codex'), REWIND_SOCKET: join(home, 'rewind.sock'), REWIND_CACHE_DIR: join(home, 'cache') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolveUrl) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /running at (\S+)/.exec(out);
      if (m) resolveUrl(m[1]!);
    });
  });
  const empty = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end('<!doctype html><html><head><meta charset="utf-8"><title>empty</title></head><body><p>empty</p></body></html>');
  });
  await new Promise<void>((r) => empty.listen(0, '127.0.0.1', r));
  const emptyUrl = `http://127.0.0.1:${(empty.address() as AddressInfo).port}/`;
  const browser = await chromium.launch({ executablePath: process.env.REWIND_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  let firstOfServer: number | undefined;
  let scriptKiB = 0;
  const round = async () => {
    const ready: number[] = [];
    const text: number[] = [];
    const emptyLoad: number[] = [];
    // One warm-up of each (the server's first list, Chromium's first process), not counted.
    for (let i = 0; i <= runs; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await ctx.newPage();
      // Before any script of the page: the moment the list is shown, on the page's own clock.
      await page.addInitScript(() => {
        const w = window as unknown as { __readyAt?: number };
        new MutationObserver((_m, obs) => {
          if (document.querySelector('.app[data-ready="true"]')) {
            w.__readyAt = performance.now();
            obs.disconnect();
          }
        }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-ready'] });
      });
      await page.goto(url);
      await page.waitForFunction(() => (window as unknown as { __readyAt?: number }).__readyAt !== undefined, null, { timeout: 60_000 });
      const readyAt = await page.evaluate(() => (window as unknown as { __readyAt: number }).__readyAt);
      // The script the page had fetched by then (the first screen's chunk and what it preloads).
      scriptKiB = await page.evaluate((at) => performance.getEntriesByType('resource').filter((r) => r.name.endsWith('.js') && (r as PerformanceResourceTiming).responseEnd <= at).reduce((n, r) => n + (r as PerformanceResourceTiming).decodedBodySize, 0) / 1024, readyAt);
      await page.locator('.session').nth(1).waitFor();
      // The click and the wait for text both in the page: no round trip to this process is timed.
      const textMs = await page.evaluate(async () => {
        const target = [...document.querySelectorAll<HTMLElement>('.session')].find((el) => !el.classList.contains('selected'))!;
        const t0 = performance.now();
        target.click();
        for (;;) {
          await new Promise((r) => requestAnimationFrame(r));
          const list = document.querySelector('.rows')?.getBoundingClientRect();
          const shown = list && document.querySelector('.session.selected') === target && [...document.querySelectorAll('.rows .prompt-row .prompt-text')].some((t) => (t.textContent ?? '').trim() && t.getBoundingClientRect().top < list.bottom && t.getBoundingClientRect().bottom > list.top);
          if (shown) return performance.now() - t0;
          if (performance.now() - t0 > 60_000) return Number.NaN;
        }
      });
      await ctx.close();
      const ectx = await browser.newContext();
      const epage = await ectx.newPage();
      await epage.goto(emptyUrl, { waitUntil: 'load' });
      const emptyMs = await epage.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd);
      await ectx.close();
      if (i === 0) {
        // The server's very first list (its index built from nothing) is its own figure.
        firstOfServer ??= readyAt;
        continue;
      }
      ready.push(readyAt);
      text.push(textMs);
      emptyLoad.push(emptyMs);
    }
    return {
      readyMs: Math.round(median(ready)),
      readyBestMs: Math.round(Math.min(...ready)),
      sessionTextMs: Math.round(median(text)),
      sessionTextBestMs: Math.round(Math.min(...text)),
      emptyPageMs: Math.round(median(emptyLoad)),
    };
  };
  try {
    const idle = await round();
    // As on a machine doing other work: two busy loops beside it (this bench's machine has two cores).
    const busy = [0, 1].map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
    const twoBusyLoops = await round().finally(() => busy.forEach((b) => b.kill()));
    return { idle, twoBusyLoops, firstVisitOfServerMs: Math.round(firstOfServer!), scriptBeforeReadyKiB: Math.round(scriptKiB), runs, targets: { readyMs: '< 1000', sessionTextMs: '< 500' } };
  } finally {
    await browser.close();
    empty.close();
    child.kill('SIGTERM');
  }
}

/** `npm run bench -- browser`: the figures above (BROWSER_RUNS contexts each, 7 by default), printed. */
export async function benchBrowser({ dir }: BenchContext) {
  const r = await measureBrowserSpeed(dir, ROOT, Number(process.env.BROWSER_RUNS ?? 7));
  for (const [label, x] of [['idle', r.idle], ['beside two busy loops', r.twoBusyLoops]] as const)
    console.log(`browser (${label}): first visit to ready ${x.readyMs} ms (best ${x.readyBestMs}; target < 1000); a 10,000-message session's text on screen ${x.sessionTextMs} ms after the click (best ${x.sessionTextBestMs}; target < 500); an empty page ${x.emptyPageMs} ms; medians of ${r.runs} fresh contexts`);
  console.log(`browser: the server's very first visit (its index built from nothing) to ready ${r.firstVisitOfServerMs} ms; script fetched before ready ${r.scriptBeforeReadyKiB} KiB`);
  return r;
}
