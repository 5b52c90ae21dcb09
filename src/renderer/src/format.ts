/**
 * The one time format of the window: relative ("5 min ago", "3 d ago", "2 mo ago") in text, absolute
 * (local date and time) on hover. Components render times through <When> (components/when.tsx).
 */
export function relTime(iso: string | null, now: number): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 30) return `${d} d ago`;
  const mo = Math.round(d / 30.44);
  if (mo < 12) return `${mo} mo ago`;
  return `${Math.max(1, Math.round(d / 365.25))} y ago`;
}

const ABSOLUTE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The absolute local date and time, for the hover of a relative time. */
export function absTime(iso: string | null): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  return Number.isFinite(t) ? ABSOLUTE.format(t) : '';
}

export function duration(ms: number | null): string {
  if (ms === null) return '';
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}

export function tokens(n: number): string {
  return n < 1000 ? `${n}` : `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
}

export function firstLine(text: string, max = 140): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

export { bytes, plural } from '../../shared/wording.js';

/** A path inside the project as the project sees it (`src/a.ts`); a path elsewhere as it is. */
export function projectPath(root: string | null | undefined, file: string): string {
  if (!root) return file;
  const r = root.replace(/[\\/]+$/, '');
  return file.startsWith(`${r}/`) || file.startsWith(`${r}\\`) ? file.slice(r.length + 1) : file;
}

/** Every absolute path under the project in a text, made project-relative (a tool call's title). */
export function relativeIn(root: string | null | undefined, text: string): string {
  if (!root) return text;
  const r = root.replace(/[\\/]+$/, '');
  return text.split(`${r}/`).join('').split(`${r}\\`).join('');
}
