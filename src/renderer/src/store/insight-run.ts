import { getApi } from '../api/client.js';
import type { Store } from './store.js';

// Compare and export: their own chunk, loaded when first used (insight-slice.ts holds their state).

type Get = () => Store;
type SetState = (partial: Partial<Store>) => void;

let exportJobs = 0;

/** Compares the picked prompt with `b`; a second pick that comes first on the line is asked the other way round. */
export async function compareWith(get: Get, set: SetState, b: string): Promise<void> {
  const from = get().compareFrom;
  const session = get().selectedSession;
  if (!from || !session || (from.uuid === b && from.session === session)) return;
  const a = from.uuid;
  set({ compareFrom: null, comparison: { a, b, loading: true, result: null, error: null } });
  let r = await getApi().comparePrompts({ a: { session: from.session, promptUuid: a }, b: { session, promptUuid: b } });
  // The second pick comes first on the line (an ancestor of the first): asked the other way round,
  // so the prompts and the code read from the earlier to the later.
  if (r.ok && r.value.ancestor && r.value.b.prompts.length === 0 && r.value.a.prompts.length > 0) {
    const swapped = await getApi().comparePrompts({ a: { session, promptUuid: b }, b: { session: from.session, promptUuid: a } });
    if (swapped.ok) r = swapped;
  }
  if (get().comparison?.b !== b) return;
  set({ comparison: { a, b, loading: false, result: r.ok ? r.value : null, error: r.ok ? null : r.error.message } });
}

/** Exports the session (or a branch) with the service's progress, Cancel-able, then saves the file. */
export async function exportSession(get: Get, set: SetState, format: 'md' | 'html', branch?: string): Promise<void> {
  const session = get().selectedSession;
  if (!session) return;
  const id = ++exportJobs;
  const job = { id, job: `w${Date.now().toString(36)}-${id}`, started: Date.now(), what: branch ? 'the branch as Markdown' : 'the session as HTML', progress: null };
  // Another export still on its way is stopped: one at a time.
  if (get().exporting) void getApi().cancelExport({ job: get().exporting!.job });
  set({ exportMessage: null, exporting: job });
  // The service's own count of turns read (operationProgress under export-<job>).
  const off = getApi().onEvent((e) => {
    const now = get().exporting;
    if (e.type === 'operationProgress' && e.id === `export-${job.job}` && now?.id === id) set({ exporting: { ...now, progress: { message: e.message, fraction: e.fraction } } });
  });
  const r = await getApi().exportSession({ session, format, branch, redact: true, job: job.job }).finally(off);
  // Cancelled (or another export started): this answer is not saved.
  if (get().exporting?.id !== job.id) return;
  set({ exporting: null });
  if (!r.ok) {
    set({ exportMessage: `Export failed: ${r.error.message}` });
    return;
  }
  const url = URL.createObjectURL(new Blob([r.value.content], { type: `${r.value.mime};charset=utf-8` }));
  const a = document.createElement('a');
  a.href = url;
  a.download = r.value.filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  const n = Object.values(r.value.redacted).reduce((x, y) => x + y, 0);
  set({ exportMessage: `Saved ${r.value.filename} (${r.value.prompts} prompts; ${n === 0 ? 'no secrets found' : `${n} secret${n === 1 ? '' : 's'} redacted`})` });
}
