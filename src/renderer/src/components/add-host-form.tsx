import { useState } from 'react';
import { sshSummary } from '../ssh-summary.js';
import { useStore } from '../store/store.js';

// Its own chunk (remote-hosts.tsx loads it when the form is opened).

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
export function AddHostForm({ onClose }: { onClose: () => void }) {
  const [target, setTarget] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const add = useStore((s) => s.addRemote);
  const error = useStore((s) => s.remoteError);
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
          if (ok) onClose();
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
        <button type="button" className="button small" onClick={onClose}>
          Cancel
        </button>
      </div>
      {error && <SshError raw={error} />}
      <p className="muted">Reached with your own ssh; the host needs rewind-app installed (npm i -g rewind-app).</p>
    </form>
  );
}
