import { stat } from 'node:fs/promises';
import type { Agent, SessionSummary, Timeline, TimelinePrompt } from '../../shared/session-schema.js';
import type { StoreIndexEntry, TurnDetail, TurnItem } from './adapter.js';
import { RewindError } from '../errors.js';
import { readSqliteWith, type Row, type SqliteSnapshot } from '../io/sqlite-read.js';
import { obj, str, num } from './jsonl.js';
import { addToolCall, closeTurn, promptRow, timelineDoc, titleOf, turnItem } from './timeline-parts.js';
import { clip, MAX_TURN_ITEMS } from '../turn/text.js';

/**
 * Sessions kept in one SQLite store per machine, as OpenCode writes them (and Kilo, its fork, with a
 * few more tables): `session`, `message` (one row per message, JSON `data`; an assistant's
 * `parentID` is its user message) and `part` (text, tool calls with their input and output, step
 * marks, patches), FORMATS.md §2e. The history is a flat list in id order (ids sort by time).
 *
 * A session has no file of its own: Rewind names it `<store>#<session id>` wherever the seam wants a
 * path (the registry stats the store part), so the rest of the app handles it like any session file.
 */

export interface StoreSpec {
  agent: Agent;
  /** What the agent is called in messages ("OpenCode"). */
  name: string;
}

const SEP = '#';
export const sessionRef = (db: string, id: string): string => `${db}${SEP}${id}`;

/** The store and the session id of a `<store>#<id>` path; null when the path is not one. */
export function splitRef(path: string): { db: string; id: string } | null {
  const i = path.lastIndexOf(SEP);
  if (i <= 0) return null;
  const id = path.slice(i + 1);
  return /^ses_[A-Za-z0-9]+$/.test(id) ? { db: path.slice(0, i), id } : null;
}

export function refOrThrow(path: string): { db: string; id: string } {
  const r = splitRef(path);
  if (!r) throw new RewindError('INVALID_TRANSCRIPT', `not a session of a SQLite store (<db>#ses_…): ${path}`);
  return r;
}

export interface SessionRow {
  id: string;
  directory: string | null;
  title: string | null;
  parentId: string | null;
  version: string | null;
  created: number;
  updated: number;
  /** A revert OpenCode has staged and applies at the next prompt: messages from this id on are gone for a resume. */
  revertFrom: string | null;
}

export interface MessageRow {
  id: string;
  created: number;
  data: Record<string, unknown>;
  parts: Record<string, unknown>[];
}

const parseJson = (v: unknown): Record<string, unknown> => {
  if (typeof v !== 'string') return {};
  try {
    return obj(JSON.parse(v));
  } catch {
    return {};
  }
};

function sessionOf(r: Row): SessionRow {
  const revert = parseJson(r.revert);
  return {
    id: String(r.id),
    directory: str(r.directory),
    title: str(r.title),
    parentId: str(r.parent_id),
    version: str(r.version),
    created: num(r.time_created),
    updated: num(r.time_updated),
    revertFrom: str(revert.messageID),
  };
}

const SESSION_COLS = 'id, directory, title, parent_id, version, time_created, time_updated, revert';

export function listSessionRows(db: SqliteSnapshot): SessionRow[] {
  return db.all(`select ${SESSION_COLS} from session order by time_updated desc, id desc`).map(sessionOf);
}

export function sessionRows(db: SqliteSnapshot, id: string): { session: SessionRow; messages: MessageRow[] } | null {
  const s = db.all(`select ${SESSION_COLS} from session where id = ?`, [id])[0];
  if (!s) return null;
  const parts = new Map<string, Record<string, unknown>[]>();
  for (const p of db.all('select message_id, data from part where session_id = ? order by id', [id])) {
    const list = parts.get(String(p.message_id)) ?? [];
    list.push(parseJson(p.data));
    parts.set(String(p.message_id), list);
  }
  const messages = db
    .all('select id, time_created, data from message where session_id = ? order by id', [id])
    .map((m) => ({ id: String(m.id), created: num(m.time_created), data: parseJson(m.data), parts: parts.get(String(m.id)) ?? [] }));
  return { session: sessionOf(s), messages };
}

/** The user's words of a message: its text parts, without the ones the agent adds itself (synthetic, ignored). */
export function promptText(m: MessageRow): string | null {
  if (m.data.role !== 'user') return null;
  const texts = m.parts.filter((p) => p.type === 'text' && p.synthetic !== true && p.ignored !== true).map((p) => String(p.text ?? ''));
  if (texts.length === 0) return null;
  return texts.join('\n');
}

const iso = (ms: number) => (ms > 0 ? new Date(ms).toISOString() : null);

/**
 * The timeline of one session (pure). Prompts from a staged revert on are shown as dropped
 * (not live): OpenCode deletes them at the next prompt and no resume sends them.
 */
export function storeTimeline(spec: StoreSpec, path: string, sizeBytes: number, s: SessionRow, messages: MessageRow[]): Timeline {
  const prompts: TimelinePrompt[] = [];
  const byId = new Map<string, TimelinePrompt>();
  let turnLast: string | null = null;
  let model: string | null = null;
  let input = 0;
  let output = 0;
  let live = 0;
  let last: string | null = null;
  messages.forEach((m, i) => {
    const ts = iso(num(obj(m.data.time).created) || m.created);
    last = ts ?? last;
    const text = promptText(m);
    if (text !== null) {
      closeTurn(prompts[prompts.length - 1], turnLast);
      const reverted = s.revertFrom !== null && m.id >= s.revertFrom;
      if (!reverted) live++;
      const p = promptRow({ uuid: m.id, index: prompts.length + 1, number: reverted ? null : live, text, timestamp: ts, offset: i, length: 1, line: i, parentUuid: prompts[prompts.length - 1]?.uuid ?? null, lane: reverted ? 1 : 0 });
      prompts.push(p);
      byId.set(m.id, p);
      turnLast = ts;
      return;
    }
    const p = byId.get(str(m.data.parentID) ?? '') ?? prompts[prompts.length - 1];
    if (!p) return;
    const turn = p.turn;
    turn.messageCount++;
    turnLast = iso(num(obj(m.data.time).completed)) ?? ts ?? turnLast;
    if (m.data.role !== 'assistant') return;
    turn.assistantMessages++;
    model = str(m.data.modelID) ?? model;
    const t = obj(m.data.tokens);
    const cache = obj(t.cache);
    const inTok = num(t.input) + num(cache.read) + num(cache.write);
    const outTok = num(t.output) + num(t.reasoning);
    turn.inputTokens += inTok;
    turn.outputTokens += outTok;
    input += inTok;
    output += outTok;
    for (const part of m.parts) {
      if (part.type === 'tool') addToolCall(turn, str(part.tool) ?? 'tool', obj(obj(part.state).input));
      else if (part.type === 'patch' && Array.isArray(part.files)) for (const f of part.files) if (typeof f === 'string' && !turn.filesTouched.includes(f)) turn.filesTouched.push(f);
    }
  });
  closeTurn(prompts[prompts.length - 1], turnLast);
  return timelineDoc({
    session: {
      id: s.id,
      agent: spec.agent,
      title: titleOf(prompts, s.title),
      cwd: s.directory,
      transcriptPath: path,
      version: s.version,
      gitBranch: null,
      sizeBytes,
      firstTimestamp: iso(s.created),
      lastTimestamp: last ?? iso(s.updated),
      readOnly: null,
      model,
      tokens: { input, output },
    },
    prompts,
    activeLeaf: null,
    lines: messages.length,
    messages: messages.length,
    issues: [],
  });
}

/** One prompt's turn: the reply text, thinking, tool calls and their results, in order. */
export function storeTurn(spec: StoreSpec, messages: MessageRow[], promptUuid: string): TurnDetail {
  const start = messages.findIndex((m) => m.id === promptUuid);
  if (start === -1 || promptText(messages[start]!) === null) throw new RewindError('NOT_FOUND', `no prompt ${promptUuid} in this session`);
  const items: TurnItem[] = [];
  let truncated = false;
  let model: string | null = null;
  for (const m of messages.slice(start + 1)) {
    if (promptText(m) !== null) break;
    if (m.data.role !== 'assistant') continue;
    model = str(m.data.modelID) ?? model;
    for (const p of m.parts) {
      if (items.length >= MAX_TURN_ITEMS) {
        truncated = true;
        break;
      }
      if (p.type === 'text' && String(p.text ?? '').trim()) items.push(turnItem({ kind: 'text', title: spec.name, body: clip(String(p.text)) }));
      else if (p.type === 'reasoning') items.push(turnItem({ kind: 'thinking', title: 'thinking', body: clip(String(p.text ?? '')) }));
      else if (p.type === 'tool') {
        const state = obj(p.state);
        items.push(turnItem({ kind: 'tool-call', title: str(p.tool) ?? 'tool', body: clip(JSON.stringify(state.input ?? {}, null, 2)) }));
        if (state.output !== undefined || state.error !== undefined) items.push(turnItem({ kind: 'tool-result', title: 'result', body: clip(String(state.output ?? state.error ?? '')), isError: state.status === 'error' }));
      }
    }
  }
  return { promptUuid, text: promptText(messages[start]!) ?? '', items, truncated, model, promptImages: [] };
}

// ---- I/O ------------------------------------------------------------------------------------

const withStore = <T>(db: string, f: (s: SqliteSnapshot) => T): Promise<T> => readSqliteWith(db, f);

export async function readStoreTimeline(spec: StoreSpec, path: string): Promise<Timeline> {
  const { db, id } = refOrThrow(path);
  return withStore(db, (s) => {
    const rows = sessionRows(s, id);
    if (!rows) throw new RewindError('NOT_FOUND', `no ${spec.name} session ${id} in ${db}`);
    return storeTimeline(spec, path, s.size, rows.session, rows.messages);
  });
}

export async function readStoreTurn(spec: StoreSpec, path: string, promptUuid: string): Promise<TurnDetail> {
  const { db, id } = refOrThrow(path);
  return withStore(db, (s) => {
    const rows = sessionRows(s, id);
    if (!rows) throw new RewindError('NOT_FOUND', `no ${spec.name} session ${id} in ${db}`);
    return storeTurn(spec, rows.messages, promptUuid);
  });
}

const storeExists = async (db: string) => !!(await stat(db).catch(() => null))?.isFile();

/** Every session of the store, newest first, as list rows (each read whole: stores hold few sessions per project). */
export async function summarizeStore(spec: StoreSpec, db: string, opts: { project?: string; now?: number; liveWindowMs: number }): Promise<SessionSummary[]> {
  return (await indexStore(spec, db, opts)).map((e) => e.summary);
}

/**
 * Every top-level session of the store with its list entry and prompts, newest first, in one read:
 * what the list shows and the search index holds (the same counts as the open session's timeline).
 * Subagent sessions (`parent_id`) belong to the session that started them: not listed.
 */
export async function indexStore(spec: StoreSpec, db: string, opts: { project?: string; now?: number; liveWindowMs: number }): Promise<StoreIndexEntry[]> {
  if (!(await storeExists(db))) return [];
  const now = opts.now ?? Date.now();
  return withStore(db, (s) => {
    const out: StoreIndexEntry[] = [];
    for (const row of listSessionRows(s)) {
      if (row.parentId) continue;
      if (opts.project && row.directory !== opts.project) continue;
      const rows = sessionRows(s, row.id);
      if (!rows) continue;
      const path = sessionRef(db, row.id);
      const t = storeTimeline(spec, path, s.size, rows.session, rows.messages);
      const summary: SessionSummary = {
        id: row.id,
        agent: spec.agent,
        title: t.session.title,
        cwd: row.directory,
        projectDir: row.directory ?? db,
        transcriptPath: path,
        promptCount: t.prompts.length,
        livePromptCount: t.stats.activePrompts,
        firstPrompt: t.prompts[0]?.text ?? null,
        lastPrompt: t.prompts[t.prompts.length - 1]?.text ?? null,
        createdAt: iso(row.created),
        lastActivity: iso(row.updated) ?? new Date(now).toISOString(),
        sizeBytes: s.size,
        version: row.version,
        live: now - row.updated < opts.liveWindowMs,
        forkOf: row.parentId,
      };
      out.push({ summary, prompts: t.prompts.map((p) => ({ uuid: p.uuid, text: p.text, timestamp: p.timestamp })), messages: rows.messages.length });
    }
    return out;
  });
}

/** Sessions of the store with their id and time, newest first (no messages read). */
export async function storeSessions(db: string): Promise<SessionRow[]> {
  if (!(await storeExists(db))) return [];
  return withStore(db, listSessionRows);
}

/** A session by id or id prefix; null when none matches, a usage error when several do. */
export async function findInStore(spec: StoreSpec, db: string, ref: string): Promise<string | null> {
  const hits = (await storeSessions(db)).filter((r) => r.id === ref || (ref.length >= 6 && r.id.startsWith(ref)));
  const exact = hits.find((r) => r.id === ref);
  if (exact) return sessionRef(db, exact.id);
  if (hits.length > 1) throw new RewindError('USAGE', `"${ref}" matches several ${spec.name} sessions: give more of the id`);
  return hits[0] ? sessionRef(db, hits[0].id) : null;
}

export async function newestInStore(db: string, cwd: string): Promise<string | null> {
  const hit = (await storeSessions(db)).find((r) => r.directory === cwd);
  return hit ? sessionRef(db, hit.id) : null;
}
