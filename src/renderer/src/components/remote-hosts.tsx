import { useState, type CSSProperties } from 'react';
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

/** "Add a remote host": an ssh target (an alias of ~/.ssh/config, or user@host) and an optional name. */
export function AddHost() {
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const add = useStore((s) => s.addRemote);
  const error = useStore((s) => s.remoteError);
  if (!open)
    return (
      <button type="button" className="add-host" onClick={() => setOpen(true)}>
        + Remote host
      </button>
    );
  return (
    <form
      className="add-host-form"
      aria-label="Add a remote host"
      onSubmit={(e) => {
        e.preventDefault();
        if (!target.trim()) return;
        setBusy(true);
        void add(target.trim(), name.trim() || undefined).then((ok) => {
          setBusy(false);
          if (ok) {
            setOpen(false);
            setTarget('');
            setName('');
          }
        });
      }}
    >
      <input aria-label="SSH target" placeholder="user@host or ssh alias" value={target} onChange={(e) => setTarget(e.target.value)} autoFocus />
      <input aria-label="Name (optional)" placeholder="name (optional)" value={name} onChange={(e) => setName(e.target.value)} />
      <div className="add-host-actions">
        <button type="submit" disabled={busy || !target.trim()}>
          {busy ? 'Checking…' : 'Add'}
        </button>
        <button type="button" className="secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p className="muted">Reached with your own ssh; the host needs rewind-app installed (npm i -g rewind-app).</p>
    </form>
  );
}
