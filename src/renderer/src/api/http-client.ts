import type { RewindApi, RewindEvent } from '../../../shared/contract.js';
import { OPERATION_NAMES } from '../../../shared/operations.js';

/** Browser mode: the same contract over HTTP (the token is in an HttpOnly cookie) and SSE. */
export function createHttpClient(base = ''): RewindApi {
  const api: Record<string, unknown> = {};
  for (const name of OPERATION_NAMES) {
    api[name] = async (request: unknown) => {
      try {
        const res = await fetch(`${base}/api/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request ?? {}), credentials: 'same-origin' });
        if (res.status === 401) return { ok: false, error: { code: 'UNAUTHORIZED', message: 'This page lost its access token: open the URL that rewind-app printed.' } };
        return await res.json();
      } catch {
        return { ok: false, error: { code: 'OFFLINE', message: 'Rewind is not running any more: start it again with rewind-app.' } };
      }
    };
  }
  // One event stream for the page, however many listeners (the app, an open preview): opened with
  // the first listener, closed with the last.
  const listeners = new Set<(e: RewindEvent) => void>();
  let es: EventSource | null = null;
  api.onEvent = (listener: (e: RewindEvent) => void) => {
    listeners.add(listener);
    if (!es) {
      es = new EventSource(`${base}/api/events`);
      es.onmessage = (m) => {
        let e: RewindEvent;
        try {
          e = JSON.parse(m.data as string) as RewindEvent;
        } catch {
          return; // ignore a broken event
        }
        for (const l of [...listeners]) l(e);
      };
    }
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && es) {
        es.close();
        es = null;
      }
    };
  };
  return api as RewindApi;
}
