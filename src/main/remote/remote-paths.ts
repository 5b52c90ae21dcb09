import { parseRemoteRef, remoteRef } from '../../shared/remote-ref.js';

/** Keys whose absolute string values name a file or folder on the host that answered. */
const PATH_KEYS = new Set(['path', 'transcriptPath', 'transcript', 'transcript_path', 'forkPath', 'backupPath', 'projectRoot', 'project', 'cwd', 'projectDir', 'session', 'root']);

const isAbsolute = (s: string) => s.startsWith('/');

/**
 * A request for a host, with its refs made plain paths again; null when it names no remote host.
 * Refs of two different hosts in one request (compare across machines) are refused.
 */
export function stripRemote(payload: unknown): { host: string; payload: unknown } | null {
  let host: string | null = null;
  let mixed = false;
  let local = false;
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') {
      const r = parseRemoteRef(v);
      if (!r) {
        if (key && PATH_KEYS.has(key) && isAbsolute(v)) local = true;
        return v;
      }
      if (host !== null && host !== r.host) mixed = true;
      host = r.host;
      return r.path;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, null));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  const out = walk(payload, null);
  if (host === null) return null;
  if (mixed || local) throw new Error('one request cannot name sessions of two machines');
  return { host, payload: out };
}

/** A host's answer (or event) with every absolute path it names made a ref to that host. */
export function prefixRemote<T>(host: string, value: T): T {
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') return key && PATH_KEYS.has(key) && isAbsolute(v) ? remoteRef(host, v) : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value, null) as T;
}
