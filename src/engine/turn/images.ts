import type { z } from 'zod';
import type { TurnImageSchema } from '../../shared/contract.js';

type TurnImage = z.output<typeof TurnImageSchema>;

/** Past these, an image is named with its size instead of sent to the pane. */
const MAX_IMAGE = 3 * 1024 * 1024;
const MAX_TURN_IMAGES = 12 * 1024 * 1024;

/** Keeps a turn's images within bounds: the pane never receives a gigabyte of screenshots. */
export function imageBudget() {
  let spent = 0;
  /** The image a content block holds (base64 source), or null when it is not one. */
  return (block: unknown): TurnImage | null => {
    const b = block as { type?: unknown; source?: { type?: unknown; media_type?: unknown; data?: unknown } } | null;
    if (!b || b.type !== 'image' || !b.source) return null;
    const mediaType = typeof b.source.media_type === 'string' && /^image\/[a-z0-9.+-]+$/i.test(b.source.media_type) ? b.source.media_type : 'image/png';
    const data = b.source.type === 'base64' && typeof b.source.data === 'string' ? b.source.data : null;
    const bytes = data ? Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0) : 0;
    const keep = !!data && data.length <= MAX_IMAGE && spent + data.length <= MAX_TURN_IMAGES;
    if (keep) spent += data.length;
    return { mediaType, data: keep ? data : null, bytes };
  };
}

/** The images of a content array. */
export function imagesOf(content: unknown, take: ReturnType<typeof imageBudget>): TurnImage[] {
  if (!Array.isArray(content)) return [];
  return content.map(take).filter((i): i is TurnImage => i !== null);
}
