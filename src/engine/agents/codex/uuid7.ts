import { randomBytes } from 'node:crypto';

/** A UUID version 7 (RFC 9562: 48-bit Unix milliseconds, then random bits), as Codex makes thread ids. */
export function uuidv7(ms: number = Date.now()): string {
  const b = randomBytes(16);
  const t = BigInt(Math.floor(ms));
  for (let i = 0; i < 6; i++) b[i] = Number((t >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
