// Renders resources/icons/icon.svg (the source) to the PNG sizes the platforms want, and packs the
// Windows .ico and macOS .icns from those PNGs (both formats may hold PNG data as is). Run by hand
// after changing the SVG: `node scripts/make-icons.mjs` (needs Chromium; the outputs are committed).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const dir = resolve(import.meta.dirname, '..', 'resources', 'icons');
const chromium = process.env.REWIND_CHROMIUM ?? '/usr/bin/chromium';
const svg = readFileSync(join(dir, 'icon.svg'), 'utf8');
const sizes = [16, 32, 48, 64, 128, 256, 512, 1024];
const png = {};
const tmp = mkdtempSync(join(tmpdir(), 'rewind-icons-'));
for (const n of sizes) {
  const html = join(tmp, `${n}.html`);
  writeFileSync(html, `<html><body style="margin:0;background:transparent">${svg.replace('width="1024" height="1024"', `width="${n}" height="${n}"`)}</body></html>`);
  const out = n === 1024 ? join(dir, 'icon.png') : join(dir, `${n}x${n}.png`);
  execFileSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', '--default-background-color=00000000', `--window-size=${n},${n}`, `--screenshot=${out}`, `file://${html}`], { stdio: 'ignore' });
  png[n] = readFileSync(out);
}
rmSync(tmp, { recursive: true, force: true });

// ICO: a 6-byte header, a 16-byte entry per image, then the PNGs.
const ico = [16, 32, 48, 64, 128, 256];
const head = Buffer.alloc(6 + 16 * ico.length);
head.writeUInt16LE(0, 0);
head.writeUInt16LE(1, 2);
head.writeUInt16LE(ico.length, 4);
let offset = head.length;
ico.forEach((n, i) => {
  const e = 6 + 16 * i;
  head.writeUInt8(n === 256 ? 0 : n, e);
  head.writeUInt8(n === 256 ? 0 : n, e + 1);
  head.writeUInt16LE(1, e + 4);
  head.writeUInt16LE(32, e + 6);
  head.writeUInt32LE(png[n].length, e + 8);
  head.writeUInt32LE(offset, e + 12);
  offset += png[n].length;
});
writeFileSync(join(dir, 'icon.ico'), Buffer.concat([head, ...ico.map((n) => png[n])]));

// ICNS: 'icns' + total length, then (type, length incl. its 8-byte header, PNG) per image.
const types = [['icp4', 16], ['icp5', 32], ['icp6', 64], ['ic07', 128], ['ic08', 256], ['ic09', 512], ['ic10', 1024]];
const parts = types.map(([t, n]) => {
  const h = Buffer.alloc(8);
  h.write(t, 0, 'ascii');
  h.writeUInt32BE(png[n].length + 8, 4);
  return Buffer.concat([h, png[n]]);
});
const total = 8 + parts.reduce((s, p) => s + p.length, 0);
const icnsHead = Buffer.alloc(8);
icnsHead.write('icns', 0, 'ascii');
icnsHead.writeUInt32BE(total, 4);
writeFileSync(join(dir, 'icon.icns'), Buffer.concat([icnsHead, ...parts]));
console.log(`icons written to ${dir}`);
