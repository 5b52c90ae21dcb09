import { copyFile, mkdir, readFile, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RewindError } from '../errors.js';
import { writeBufferAtomic } from '../io/atomic-write.js';
import type { AgentHooks } from './agent-hooks.js';

/**
 * Rewind's entries in an agent's JSON hook config (`{"hooks": {EVENT: [{matcher, hooks: [...]}]}}`,
 * or the events at the top level): merged into what the file holds, never replacing it. Pure
 * functions on the text, then one atomic write with a backup of the file as it was.
 */

type Handler = { command?: unknown } & Record<string, unknown>;
type Group = { hooks?: Handler[] } & Record<string, unknown>;
type Doc = Record<string, unknown>;

/** `rewind-app ... hook --agent <id>` (any quoting, any install path); `bare`: also plain `hook`. */
export const isRewindHook = (cmd: unknown, agent: string, bare = false): boolean =>
  typeof cmd === 'string' && new RegExp(`rewind-app(\\.mjs)?['"]? hook${bare ? '(' : ''} --agent ${agent}${bare ? ')?' : ''}$`).test(cmd);

/** The command line Rewind installs for an agent: `hookCommand` plus `--agent <id>` (not for a bare one). */
export const agentHookCommand = (base: string, agent: string, spec: Pick<AgentHooks, 'bareCommand'>): string => (spec.bareCommand ? base : `${base} --agent ${agent}`);

export function parseConfig(raw: string | null, file: string): Doc {
  if (raw === null || !raw.trim()) return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new RewindError('IO', `${file} is not valid JSON: fix it first, nothing was changed`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new RewindError('IO', `${file} is not a JSON object: nothing was changed`);
  return v as Doc;
}

/** The events of a config: its `hooks` object (wrapped) or the top level; a `hooks` that is not an object is refused. */
export function eventsOf(doc: Doc, wrapped: boolean, file: string): Record<string, unknown> {
  if (!wrapped) return doc;
  const h = doc.hooks;
  if (h === undefined) return {};
  if (!h || typeof h !== 'object' || Array.isArray(h)) throw new RewindError('IO', `${file}: "hooks" is not an object: nothing was changed`);
  return h as Record<string, unknown>;
}

/** The events holding one of Rewind's entries for `agent`. */
export function rewindEvents(doc: Doc, spec: Pick<AgentHooks, 'wrapped' | 'bareCommand'>, agent: string, file = 'config'): string[] {
  const out: string[] = [];
  for (const [event, groups] of Object.entries(eventsOf(doc, spec.wrapped, file))) {
    if (Array.isArray(groups) && groups.some((g: Group) => Array.isArray(g?.hooks) && g.hooks.some((h) => isRewindHook(h?.command, agent, spec.bareCommand)))) out.push(event);
  }
  return out;
}

/** The config without Rewind's entries; everything else as it was (an emptied group or event goes). */
export function withoutRewind(doc: Doc, spec: Pick<AgentHooks, 'wrapped' | 'bareCommand'>, agent: string, file = 'config'): Doc {
  const events = eventsOf(doc, spec.wrapped, file);
  const kept: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(events)) {
    if (!Array.isArray(groups)) {
      kept[event] = groups;
      continue;
    }
    const left = groups
      .map((g: Group) => (Array.isArray(g?.hooks) ? { ...g, hooks: g.hooks.filter((h) => !isRewindHook(h?.command, agent, spec.bareCommand)) } : g))
      .filter((g: Group) => !Array.isArray(g?.hooks) || g.hooks.length > 0);
    const hadOurs = left.length !== groups.length || left.some((g: Group, i) => Array.isArray(g?.hooks) && g.hooks.length !== (groups[i] as Group)?.hooks?.length);
    if (left.length || !hadOurs) kept[event] = left;
  }
  if (!spec.wrapped) return kept;
  const out: Doc = { ...doc, hooks: kept };
  // A "hooks" object that held only Rewind's entries goes with them.
  if (Object.keys(kept).length === 0 && Object.keys(events).length > 0) delete out.hooks;
  return out;
}

/** The config with Rewind's entries (one group per event, appended after the user's own). */
export function withRewind(doc: Doc, spec: Pick<AgentHooks, 'wrapped' | 'bareCommand' | 'events' | 'entry'>, agent: string, command: string, file = 'config'): Doc {
  const base = withoutRewind(doc, spec, agent, file);
  const events = { ...eventsOf(base, spec.wrapped, file) };
  for (const e of spec.events) {
    const prev = Array.isArray(events[e.event]) ? (events[e.event] as unknown[]) : [];
    events[e.event] = [...prev, { ...(e.matcher !== undefined ? { matcher: e.matcher } : {}), hooks: [spec.entry(command)] }];
  }
  return spec.wrapped ? { ...base, hooks: events } : events;
}

export interface ConfigChange {
  file: string;
  changed: boolean;
  backup: string | null;
  lines: string[];
  /** The file's text before and after (for a preview of the change); before is null for a file not there yet, after null for a file removed. */
  before?: string | null;
  after?: string | null;
}

const render = (doc: Doc) => `${JSON.stringify(doc, null, 2)}\n`;

async function readRaw(file: string): Promise<string | null> {
  return readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw new RewindError('IO', `cannot read ${file}: ${e.message}`);
  });
}

/** Writes `next` over `file`, keeping the file as it was beside it (`.rewind-backup`). */
async function writeWithBackup(file: string, raw: string | null, next: string): Promise<string | null> {
  await mkdir(dirname(file), { recursive: true });
  let backup: string | null = null;
  if (raw !== null) {
    backup = `${file}.rewind-backup`;
    await copyFile(file, backup);
  }
  await writeBufferAtomic(file, next, { mode: 0o600 });
  return backup;
}

export async function installConfig(file: string, spec: AgentHooks, agent: string, command: string, dryRun = false): Promise<ConfigChange> {
  const raw = await readRaw(file);
  const doc = parseConfig(raw, file);
  const had = rewindEvents(doc, spec, agent, file);
  const next = render(withRewind(doc, spec, agent, command, file));
  // Idempotent: the same entries already there (in any formatting) change nothing.
  if (raw !== null && render(doc) === next) return { file, changed: false, backup: null, lines: ['already installed, nothing changed'], before: raw, after: raw };
  const backup = dryRun ? null : await writeWithBackup(file, raw, next);
  return { file, changed: true, backup, lines: spec.events.map((e) => `${had.includes(e.event) ? 'updated' : 'added'} ${e.event} -> ${command}`), before: raw, after: next };
}

export async function uninstallConfig(file: string, spec: AgentHooks, agent: string, dryRun = false): Promise<ConfigChange> {
  const raw = await readRaw(file);
  const doc = parseConfig(raw, file);
  const present = rewindEvents(doc, spec, agent, file);
  if (raw === null || present.length === 0) return { file, changed: false, backup: null, lines: ['not installed, nothing changed'], before: raw, after: raw };
  const left = withoutRewind(doc, spec, agent, file);
  const emptied = Object.keys(left).length === 0;
  let backup: string | null = null;
  if (!dryRun) {
    backup = await writeWithBackup(file, raw, render(left));
    // A file that held only Rewind's entries goes (as before install: an agent may refuse an empty one); its backup stays.
    if (emptied) await unlink(file);
  }
  return { file, changed: true, backup, lines: present.map((e) => `removed ${e}`), before: raw, after: emptied ? null : render(left) };
}

export async function configStatus(file: string, spec: AgentHooks, agent: string): Promise<{ events: string[]; raw: string | null; error: string | null }> {
  try {
    const raw = await readRaw(file);
    return { events: rewindEvents(parseConfig(raw, file), spec, agent, file), raw, error: null };
  } catch (e) {
    return { events: [], raw: null, error: e instanceof Error ? e.message : String(e) };
  }
}
