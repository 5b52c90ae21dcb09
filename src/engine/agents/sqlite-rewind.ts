import { createHash, randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RewindError } from '../errors.js';
import { writeBufferAtomic } from '../io/atomic-write.js';
import { openSqlite, type SqliteSnapshot } from '../io/sqlite-read.js';
import { ensureStore } from '../project.js';
import type { RewindOutcome, RewindRequest, RewindStatement } from './adapter.js';
import { backupPathFor } from './backup-path.js';
import { pickTarget } from './cut-writer.js';
import { DEFAULT_LIVE_WINDOW_MS } from './live-window.js';
import { promptsOfTimeline, statementOfPlan } from './statement-of-plan.js';
import { withServe, type ServeSpec } from './agent-serve.js';
import { refOrThrow, sessionRef, sessionRows, storeTimeline, type MessageRow, type SessionRow, type StoreSpec } from './sqlite-sessions.js';
import type { Timeline } from '../../shared/session-schema.js';

/**
 * Rewinds of a session in an OpenCode-style SQLite store. Rewind plans from its own read of the store
 * and asks the agent's server to write (agent-serve.ts): a fork is the agent's `POST
 * /session/:id/fork {messageID}` (the messages before the cut prompt, copied under new ids), an
 * in-place rewind its own undo, `POST /session/:id/revert {messageID}` (the messages from the cut
 * prompt on are dropped at the next prompt; its `unrevert` is Rewind's undo). Both are journaled;
 * the in-place one also keeps the session's rows as they were in the project's transcript backups.
 */

export interface StoreAgent {
  store: StoreSpec;
  serve: ServeSpec;
}

/** What an undo compares: the session's messages (ids, last update) and its staged revert. */
export function sessionFingerprint(s: SessionRow, messages: MessageRow[]): { size: number; head: string; tail: string } {
  const h = createHash('sha256');
  for (const m of messages) h.update(`${m.id}\n`);
  return { size: messages.length, head: h.digest('hex'), tail: `${s.revertFrom ?? ''}` };
}

function readSession(db: SqliteSnapshot, spec: StoreSpec, id: string) {
  const rows = sessionRows(db, id);
  if (!rows) throw new RewindError('NOT_FOUND', `no ${spec.name} session ${id}`);
  return rows;
}

export interface StorePlan {
  timeline: Timeline;
  session: SessionRow;
  messages: MessageRow[];
  target: Timeline['prompts'][number];
  statement: RewindStatement;
  dropped: Timeline['prompts'];
}

/** Pure: the plan of a rewind of one session, read off its rows. */
export function planStoreRewind(spec: StoreSpec, path: string, size: number, session: SessionRow, messages: MessageRow[], req: Pick<RewindRequest, 'n' | 'promptUuid' | 'mode'>): StorePlan {
  const t = storeTimeline(spec, path, size, session, messages);
  const live = t.prompts.filter((p) => p.active);
  const target = pickTarget(live, t.prompts, req.promptUuid ? { promptUuid: req.promptUuid } : { n: req.n ?? 1 });
  if (!target.active) throw new RewindError('NOT_FOUND', `prompt ${target.uuid} was already taken back (${spec.name} drops it at the next prompt)`);
  if (target.uuid === live[0]?.uuid) throw new RewindError('NOT_ENOUGH_PROMPTS', 'that is the first prompt: nothing would be left to resume (start a new session instead)');
  const kept = live.filter((p) => p.uuid < target.uuid);
  const dropped = live.filter((p) => p.uuid >= target.uuid);
  // The agent drops every message from the cut on (the result holds only the kept prompts); a
  // prompt an earlier revert staged is gone too, so an in-place rewind names it as well.
  const statement = statementOfPlan({
    mode: req.mode,
    before: promptsOfTimeline(t.prompts),
    result: { holds: new Set(kept.map((p) => p.uuid)), live: kept.map((p) => p.uuid) },
    target: target.uuid,
    onTargetBranch: () => false,
    handedBack: dropped.map((p) => p.uuid),
    leftOutMessages: 0,
  });
  return { timeline: t, session, messages, target, statement, dropped };
}

export async function rewindStore(agent: StoreAgent, req: RewindRequest & { now?: () => number }): Promise<RewindOutcome> {
  const now = req.now ?? Date.now;
  const { db, id } = refOrThrow(req.transcriptPath);
  const snap = await openSqlite(db);
  let plan: StorePlan;
  try {
    const rows = readSession(snap, agent.store, id);
    plan = planStoreRewind(agent.store, req.transcriptPath, snap.size, rows.session, rows.messages, req);
  } finally {
    snap.close();
  }
  const warnings: string[] = [];
  const projectRoot = req.projectRoot ?? (await (await import('../project.js')).sessionJournalRoot(plan.session.directory, req.here)).root;
  const base = {
    mode: req.mode,
    dryRun: !!req.dryRun,
    transcript: req.transcriptPath,
    sessionId: id,
    boundaryOffset: plan.target.byteOffset,
    resultSize: plan.messages.filter((m) => m.id < plan.target.uuid).length,
    // Messages of abandoned branches left out: a store's session is one straight list.
    droppedMessages: 0,
    prompts: plan.dropped.map((p) => ({ uuid: p.uuid, text: p.text, images: p.images, timestamp: p.timestamp, offset: p.byteOffset })),
    projectRoot,
    bytesScanned: plan.messages.length,
    warnings,
    statement: plan.statement,
    size: plan.messages.length,
  };
  if (req.mode === 'in-place') {
    warnings.push(`${agent.store.name} takes the prompts back with its own undo: the files it changed in those turns go back too (undo puts them forward again)`);
    const age = now() - plan.session.updated;
    const window = req.liveWindowMs ?? DEFAULT_LIVE_WINDOW_MS;
    if (!req.force && age < window) {
      const secs = Math.max(0, Math.round(age / 1000));
      if (!req.dryRun) throw new RewindError('TRANSCRIPT_LIVE', `the session was written ${secs}s ago: ${agent.store.name} may still be running (stop it first, or pass --force)`);
      warnings.push(`the session was written ${secs}s ago: ${agent.store.name} may still be running`);
    }
  }
  if (req.expectSize !== undefined && req.expectSize !== plan.messages.length) throw new RewindError('TRANSCRIPT_CHANGED', 'the session changed since the preview: nothing was written, look again');
  if (req.dryRun) return { ...base, forkSessionId: null, forkPath: null, backupPath: null, journalId: null };

  const { appendJournal } = await import('../journal/append.js');
  const journalId = randomUUID();
  const time = new Date(now()).toISOString();
  const promptIds = plan.dropped.map((p) => p.uuid);
  const extra = { ...(req.journalGroup ? { group: req.journalGroup } : {}), ...(req.promptNumber ? { promptNumber: req.promptNumber } : {}) };
  if (req.mode === 'fork') {
    const made = await withServe(agent.serve, db, plan.session.directory, (s) => s.call('POST', `/session/${id}/fork`, { messageID: plan.target.uuid }));
    const forkSessionId = made && typeof made === 'object' && typeof (made as { id?: unknown }).id === 'string' ? (made as { id: string }).id : null;
    if (!forkSessionId) throw new RewindError('INTERNAL', `${agent.store.name} answered the fork without a session id`);
    const forkPath = sessionRef(db, forkSessionId);
    if (projectRoot) {
      const after = await openSqlite(db);
      let result;
      try {
        const rows = readSession(after, agent.store, forkSessionId);
        result = sessionFingerprint(rows.session, rows.messages);
      } finally {
        after.close();
      }
      await appendJournal(projectRoot, { kind: 'fork', id: journalId, time, transcript: req.transcriptPath, sessionId: id, forkPath, forkSessionId, fileHistoryDir: null, result, boundaryOffset: plan.target.byteOffset, prompts: promptIds, ...extra });
    } else warnings.push('no project folder known: this fork is not in an undo journal');
    return { ...base, forkSessionId, forkPath, backupPath: null, journalId: projectRoot ? journalId : null };
  }
  if (!projectRoot) throw new RewindError('USAGE', 'no project folder for the backup: pass --project DIR');
  // The rows as they were: what undo compares, and a copy to read should the agent delete them.
  const backupPath = backupPathFor(projectRoot, id, now());
  await ensureStore(projectRoot);
  await mkdir(dirname(backupPath), { recursive: true, mode: 0o700 });
  await writeBufferAtomic(backupPath, Buffer.from(plan.messages.map((m) => JSON.stringify(m)).join('\n') + '\n'));
  const original = sessionFingerprint(plan.session, plan.messages);
  await withServe(agent.serve, db, plan.session.directory, (s) => s.call('POST', `/session/${id}/revert`, { messageID: plan.target.uuid }, { idempotent: true }));
  const after = await openSqlite(db);
  let result;
  try {
    const rows = readSession(after, agent.store, id);
    if (rows.session.revertFrom !== plan.target.uuid) throw new RewindError('INTERNAL', `${agent.store.name} did not stage the revert at ${plan.target.uuid}`);
    result = sessionFingerprint(rows.session, rows.messages);
  } finally {
    after.close();
  }
  await appendJournal(projectRoot, { kind: 'in-place', id: journalId, time, transcript: req.transcriptPath, sessionId: id, backupPath, original, result, boundaryOffset: plan.target.byteOffset, prompts: promptIds, ...extra });
  return { ...base, forkSessionId: null, forkPath: null, backupPath, journalId };
}

/**
 * Undo of a store rewind, asked of the agent again: a fork is deleted (`DELETE /session/:id`), an
 * in-place rewind unreverted while the agent still holds the staged revert (after the next prompt
 * the messages are gone; the rows stay in the backup).
 */
export async function undoStoreRewind(
  agent: StoreAgent,
  r: { kind: 'fork' | 'in-place'; transcript: string; sessionId: string; forkSessionId?: string; forkPath?: string; result: { size: number; head: string; tail: string }; backupPath?: string },
  opts: { dryRun?: boolean; force?: boolean },
): Promise<{ summary: string; keptAt: string | null }> {
  const target = r.kind === 'fork' ? r.forkPath! : r.transcript;
  const { db, id } = refOrThrow(target);
  const snap = await openSqlite(db);
  let rows: ReturnType<typeof sessionRows>;
  try {
    rows = sessionRows(snap, id);
  } finally {
    snap.close();
  }
  const short = id.slice(0, 12);
  if (r.kind === 'fork') {
    if (!rows) return { summary: `Fork ${short} was already gone`, keptAt: null };
    const fp = sessionFingerprint(rows.session, rows.messages);
    if ((fp.size !== r.result.size || fp.head !== r.result.head) && !opts.force) throw new RewindError('UNDO_MISMATCH', `fork ${short} changed since it was created (resumed?): pass --force to delete it anyway`);
    if (opts.dryRun) return { summary: `Would remove fork ${short}`, keptAt: null };
    await withServe(agent.serve, db, rows.session.directory, (s) => s.call('DELETE', `/session/${id}`));
    return { summary: `Removed fork ${short}`, keptAt: null };
  }
  if (!rows) throw new RewindError('UNDO_MISMATCH', `session ${short} is gone from ${db}`);
  const fp = sessionFingerprint(rows.session, rows.messages);
  if (fp.tail !== r.result.tail || fp.head !== r.result.head) {
    if (!opts.force || !rows.session.revertFrom) {
      const why = rows.session.revertFrom ? 'the session changed since the rewind' : `the session went on and ${agent.store.name} deleted the taken-back messages (their rows are kept in ${r.backupPath ?? 'the backup'})`;
      throw new RewindError('UNDO_MISMATCH', `${why}: ${opts.force ? 'nothing to put back' : 'pass --force to undo anyway'}`);
    }
  }
  if (opts.dryRun) return { summary: 'Would put back the prompts taken back', keptAt: null };
  await withServe(agent.serve, db, rows.session.directory, (s) => s.call('POST', `/session/${id}/unrevert`, {}, { idempotent: true }));
  return { summary: 'Put back the prompts taken back (and the files the agent had changed in them)', keptAt: null };
}
