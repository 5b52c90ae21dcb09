import { absTime, relTime } from '../format.js';

/** A time as the whole window shows it: relative, with the absolute date and time on hover. */
export function When({ iso, now }: { iso: string | null; now: number }) {
  if (!iso) return null;
  return (
    <time dateTime={iso} title={absTime(iso)}>
      {relTime(iso, now)}
    </time>
  );
}
