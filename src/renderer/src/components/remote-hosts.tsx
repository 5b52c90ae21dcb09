import { useState, type CSSProperties } from 'react';
import type { RemoteStatus } from '../../../shared/contract.js';
import { plural } from '../format.js';
import { sshSummary } from '../ssh-summary.js';
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

/** An ssh failure: one sentence to act on, the raw output behind a disclosure. */
function SshError({ raw }: { raw: string }) {
  const { text, detail } = sshSummary(raw);
  return (
    <div className="add-host-error" role="alert">
      <p className="error-text">{text}</p>
      {detail && (
        <details className="small muted">
          <summary>What ssh said</summary>
          <pre className="mono">{detail}</pre>
        </details>
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
      <label className="add-host-label small" htmlFor="add-host-target">
        SSH target
      </label>
      <input id="add-host-target" className="add-host-input" placeholder="user@host or ssh alias" value={target} onChange={(e) => setTarget(e.target.value)} autoFocus />
      <label className="add-host-label small" htmlFor="add-host-name">
        Name <span className="muted">(optional)</span>
      </label>
      <input id="add-host-name" className="add-host-input" placeholder="e.g. build box" value={name} onChange={(e) => setName(e.target.value)} />
      <div className="add-host-actions">
        <button type="submit" className="button small primary" disabled={busy || !target.trim()}>
          {busy ? 'Checking…' : 'Add'}
        </button>
        <button type="button" className="button small" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      {error && <SshError raw={error} />}
      <p className="muted">Reached with your own ssh; the host needs rewind-app installed (npm i -g rewind-app).</p>
    </form>
  );
}
