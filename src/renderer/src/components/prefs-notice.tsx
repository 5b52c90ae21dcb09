import { useState } from 'react';
import { useStore } from '../store/store.js';

/**
 * What was wrong with Rewind's own prefs file (names, dismissed notices), said once: the window
 * carries on with empty prefs and the file is left as it is (or kept aside when a new one starts).
 */
export function PrefsNotice() {
  const notice = useStore((s) => s.prefs.notice);
  const [dismissed, setDismissed] = useState<string | null>(null);
  if (!notice || notice === dismissed) return null;
  return (
    <p className="prefs-notice" role="status" aria-label="Rewind's prefs">
      <span className="prefs-notice-text" title={notice}>
        {notice}
      </span>
      <button type="button" className="button ghost small" aria-label="Dismiss" title="Dismiss" onClick={() => setDismissed(notice)}>
        ✕
      </button>
    </p>
  );
}
