/**
 * How the window names a session or a folder on a remote host: `rewind-remote:<host>:<path there>`.
 * The service strips it before asking that host and puts it back on every path the host answers
 * with, so the renderer passes remote sessions around exactly as it does local ones.
 */
const PREFIX = 'rewind-remote:';

export function remoteRef(host: string, path: string): string {
  return `${PREFIX}${host}:${path}`;
}

/** The host and the path there, or null for a local path. */
export function parseRemoteRef(ref: string): { host: string; path: string } | null {
  if (!ref.startsWith(PREFIX)) return null;
  const rest = ref.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon <= 0) return null;
  return { host: rest.slice(0, colon), path: rest.slice(colon + 1) };
}

/** What to show of a path: the path on its host, with the host named. */
export function displayRef(ref: string): string {
  const r = parseRemoteRef(ref);
  return r ? `${r.host}:${r.path}` : ref;
}
