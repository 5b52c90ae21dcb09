import { lazy, Suspense, useState, type CSSProperties } from 'react';
import type { RemoteStatus } from '../../../shared/contract.js';
import { plural } from '../format.js';
import { useStore } from '../store/store.js';

/** A machine's heading in the sidebar: this one, or a remote host with its connection's one line. */
export function HostRow({ host, status, sessions, style }: { host: string | null; status: RemoteStatus | null; sessions: number; style: CSSProperties }) {
  const reconnect = useStore((s) => s.reconnectRemote);
  if (host === null)
    return (
      <h2 className="wg-host" style={style}>
        This machine
      </h2>
    );
  const state = status?.state ?? 'connecting';
  return (
    <div className={`wg-host wg-host-${state}`} style={style} data-host={host}>
      <h2 title={status?.target}>
        <span className="wg-host-dot" aria-hidden>
          ●
        </span>
        {host}
        <span className="muted"> · {state === 'connected' ? plural(sessions, 'session') : state === 'connecting' ? 'connecting…' : 'disconnected'}</span>
      </h2>
      {state === 'lost' && (
        <p className="wg-host-lost" role="status">
          <span className="wg-host-why" title={status?.message ?? undefined}>
            {status?.message ?? 'connection lost'}
          </span>
          <button type="button" className="secondary" onClick={() => void reconnect(host)}>
            Reconnect
          </button>
        </p>
      )}
    </div>
  );
}

// The form (and its ssh wording) is its own chunk: not on the first screen.
const AddHostForm = lazy(() => import('./add-host-form.js').then((m) => ({ default: m.AddHostForm })));

/** "+ Remote host": opens the form to add an ssh target. */
export function AddHost() {
  const [open, setOpen] = useState(false);
  if (!open)
    return (
      <button type="button" className="add-host" onClick={() => setOpen(true)}>
        + Remote host
      </button>
    );
  return (
    <Suspense fallback={<p className="small muted add-host-form">Opening…</p>}>
      <AddHostForm onClose={() => setOpen(false)} />
    </Suspense>
  );
}
