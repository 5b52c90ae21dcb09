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
  api.onEvent = (listener: (e: RewindEvent) => void) => {
    const es = new EventSource(`${base}/api/events`);
    es.onmessage = (m) => {
      try {
        listener(JSON.parse(m.data as string) as RewindEvent);
      } catch {
        // ignore a broken event
      }
    };
    return () => es.close();
  };
  return api as RewindApi;
}
