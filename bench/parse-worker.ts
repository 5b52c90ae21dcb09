// One measurement per process, so peak memory is this run's own.
import { open } from 'node:fs/promises';
import { parseTranscriptFile } from '../src/engine/agents/claude/parse-transcript.js';

const [mode, path] = process.argv.slice(2) as [string, string];
let peak = process.memoryUsage().rss;
const base = peak;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 5);

async function bareLoop(p: string): Promise<number> {
  // The floor: read chunks, split at LF, JSON.parse every line, keep nothing.
  const fh = await open(p, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  let pos = 0;
  let rest: Buffer = Buffer.alloc(0);
  let n = 0;
  for (;;) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    let chunk = buf.subarray(0, bytesRead);
    if (rest.length) chunk = Buffer.concat([rest, chunk]);
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) break;
      JSON.parse(chunk.toString('utf8', start, nl));
      n++;
      start = nl + 1;
    }
    rest = Buffer.from(chunk.subarray(start));
  }
  await fh.close();
  return n;
}

const t0 = performance.now();
let detail: unknown;
if (mode === 'bare') detail = { lines: await bareLoop(path) };
else {
  const m = await parseTranscriptFile(path, { withSubagents: false });
  detail = { lines: m.lineCount, prompts: m.prompts.length, active: m.active.size, issues: m.issues.length };
}
const ms = performance.now() - t0;
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
process.stdout.write(JSON.stringify({ mode, ms, peakRss: peak, baseRss: base, detail }));
