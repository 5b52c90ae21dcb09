import { isDeepStrictEqual } from 'node:util';
import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type JSONPath, type ParseError } from 'jsonc-parser';
import { RewindError } from '../errors.js';
import { editAgentConfig, readAgentConfig, resolveConfigTarget } from '../io/config-edit.js';
import type { AgentHooks, JsonDialect } from './agent-hooks.js';

/**
 * Rewind's entries in an agent's JSON hook config (`{"hooks": {EVENT: [{matcher, hooks: [...]}]}}`,
 * or the events at the top level). The text is edited, never re-serialized (jsonc-parser's
 * `modify`): only Rewind's own entries change; the user's numbers (`1e999`), comments (where the
 * agent reads JSONC), key order, empty objects and lists, the trailing newline stay as written.
 * The write itself (lock, backup, no link followed, the file's mode) is `io/config-edit.ts`.
 */

type Handler = { command?: unknown } & Record<string, unknown>;
type Group = { hooks?: Handler[] } & Record<string, unknown>;
type Doc = Record<string, unknown>;
type Spec = Pick<AgentHooks, 'wrapped' | 'bareCommand' | 'jsonc'>;

/**
 * `rewind-app ... hook --agent <id>` (any quoting, any install path); `bare`: also plain `hook`.
 * One command, nothing chained before it (`;`, `|`, `&`, `$(…)`, a backtick, a redirect): a
 * project's hook that runs something else and then Rewind is not Rewind's.
 */
export const isRewindHook = (cmd: unknown, agent: string, bare = false): boolean =>
  typeof cmd === 'string' && new RegExp(`^[^;|&$\`<>\\n\\r]*rewind-app(\\.mjs)?['"]? hook${bare ? '(' : ''} --agent ${agent}${bare ? ')?' : ''}$`).test(cmd);

/** The command line Rewind installs for an agent: `hookCommand` plus `--agent <id>` (not for a bare one). */
export const agentHookCommand = (base: string, agent: string, spec: Pick<AgentHooks, 'bareCommand'>): string => (spec.bareCommand ? base : `${base} --agent ${agent}`);

/** The config as a value: strict JSON, or JSONC (comments, trailing commas) for an agent that reads it so. */
export function parseConfig(raw: string | null, file: string, jsonc: JsonDialect = false): Doc {
  if (raw === null || !raw.trim()) return {};
  let v: unknown;
  if (jsonc) {
    const errors: ParseError[] = [];
    v = parse(raw, errors, { allowTrailingComma: jsonc === true, disallowComments: false });
    if (errors.length) throw new RewindError('IO', `${file} is not valid JSON (${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}): fix it first, nothing was changed`);
  } else {
    try {
      v = JSON.parse(raw);
    } catch {
      throw new RewindError('IO', `${file} is not valid JSON: fix it first, nothing was changed`);
    }
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

const isOurs = (h: Handler | undefined, agent: string, spec: Spec) => isRewindHook(h?.command, agent, spec.bareCommand);
const groupHasOurs = (g: Group, agent: string, spec: Spec) => Array.isArray(g?.hooks) && g.hooks.some((h) => isOurs(h, agent, spec));

/** The events holding one of Rewind's entries for `agent`. */
export function rewindEvents(doc: Doc, spec: Spec, agent: string, file = 'config'): string[] {
  const out: string[] = [];
  for (const [event, groups] of Object.entries(eventsOf(doc, spec.wrapped, file))) {
    if (Array.isArray(groups) && groups.some((g: Group) => groupHasOurs(g, agent, spec))) out.push(event);
  }
  return out;
}

/** The command of Rewind's first installed entry for `agent`, or null. */
function rewindCommand(doc: Doc, spec: Spec, agent: string, file: string): string | null {
  for (const groups of Object.values(eventsOf(doc, spec.wrapped, file))) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups as Group[]) for (const h of Array.isArray(g?.hooks) ? g.hooks : []) if (isOurs(h, agent, spec)) return String(h.command);
  }
  return null;
}

/** The file's own layout for inserted text: its indent and line ends. */
function formattingOf(text: string): FormattingOptions {
  const indent = /^([ \t]+)["{[\]}]/m.exec(text)?.[1] ?? '  ';
  const tabs = indent.startsWith('\t');
  return { insertSpaces: !tabs, tabSize: tabs ? 1 : indent.length, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/**
 * The text without Rewind's entries for `agent`, edited in place: a handler of ours goes, a group
 * left with no handler goes. `dropEmptied`: an event list (and a `hooks` object) that held only
 * Rewind's entries goes too (uninstall); else it stays, empty, for the entry put back (install).
 */
function removeOurs(text: string, spec: Spec, agent: string, file: string, dropEmptied: boolean): string {
  const pre: JSONPath = spec.wrapped ? ['hooks'] : [];
  let cur = text;
  // One edit at a time on the text as it now is (configs are small): offsets never go stale.
  for (;;) {
    const events = eventsOf(parseConfig(cur, file, true), spec.wrapped, file);
    let path: JSONPath | null = null;
    for (const [event, groups] of Object.entries(events)) {
      if (!Array.isArray(groups)) continue;
      const gi = groups.findIndex((g: Group) => groupHasOurs(g, agent, spec));
      if (gi === -1) continue;
      const handlers = (groups[gi] as Group).hooks!;
      const hi = handlers.findIndex((h) => isOurs(h, agent, spec));
      if (handlers.some((h) => !isOurs(h, agent, spec))) path = [...pre, event, gi, 'hooks', hi];
      else if (groups.length > 1 || !dropEmptied) path = [...pre, event, gi];
      else if (spec.wrapped && Object.keys(events).length === 1) path = ['hooks'];
      else path = [...pre, event];
      break;
    }
    if (!path) return cur;
    cur = applyEdits(cur, modify(cur, path, undefined, {}));
  }
}

/** The text with Rewind's entries (one group per event, after the user's own); the rest as it was. */
export function installText(text: string | null, spec: Spec & Pick<AgentHooks, 'events' | 'entry'>, agent: string, command: string, file = 'config'): string {
  const base = text === null || !text.trim() ? '{}\n' : text;
  const formattingOptions = formattingOf(base);
  let cur = removeOurs(base, spec, agent, file, false);
  const pre: JSONPath = spec.wrapped ? ['hooks'] : [];
  for (const e of spec.events) {
    const group = { ...(e.matcher !== undefined ? { matcher: e.matcher } : {}), hooks: [spec.entry(command)] };
    const now = eventsOf(parseConfig(cur, file, true), spec.wrapped, file)[e.event];
    if (now !== undefined && !Array.isArray(now)) throw new RewindError('IO', `${file}: "${e.event}" is not a list: nothing was changed`);
    const edits = now === undefined ? modify(cur, [...pre, e.event], [group], { formattingOptions }) : modify(cur, [...pre, e.event, -1], group, { formattingOptions });
    cur = applyEdits(cur, edits);
  }
  return cur;
}

/** The text without Rewind's entries: a list or `hooks` object that held only them goes with them. */
export function uninstallText(text: string, spec: Spec, agent: string, file = 'config'): string {
  return removeOurs(text, spec, agent, file, true);
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

/** Where the config may be edited: a project's config stays inside the project (null: the user's own). */
export interface ConfigWhere {
  allowedRoot: string | null;
}

export async function installConfig(file: string, spec: AgentHooks, agent: string, command: string, dryRun = false, where: ConfigWhere = { allowedRoot: null }): Promise<ConfigChange> {
  const r = await editAgentConfig(file, { allowedRoot: where.allowedRoot, dryRun }, (raw) => {
    const doc = parseConfig(raw, file, spec.jsonc);
    const had = rewindEvents(doc, spec, agent, file);
    const next = installText(raw, spec, agent, command, file);
    // Idempotent: the same entries already there (in any formatting) change nothing.
    if (raw !== null && isDeepStrictEqual(parseConfig(next, file, true), parseConfig(raw, file, true))) return { next: undefined, result: had };
    return { next, result: had };
  });
  if (!r.changed) return { file, changed: false, backup: null, lines: ['already installed, nothing changed'], before: r.before, after: r.after };
  return { file, changed: true, backup: r.backup, lines: spec.events.map((e) => `${r.result.includes(e.event) ? 'updated' : 'added'} ${e.event} -> ${command}`), before: r.before, after: r.after };
}

export async function uninstallConfig(file: string, spec: AgentHooks, agent: string, dryRun = false, where: ConfigWhere = { allowedRoot: null }): Promise<ConfigChange> {
  const r = await editAgentConfig(file, { allowedRoot: where.allowedRoot, dryRun }, async (raw, ctx) => {
    if (raw === null) return { next: undefined, result: [] as string[] };
    const doc = parseConfig(raw, file, spec.jsonc);
    const present = rewindEvents(doc, spec, agent, file);
    if (present.length === 0) return { next: undefined, result: present };
    const command = rewindCommand(doc, spec, agent, file)!;
    // Nothing else changed since the install: the file goes back byte for byte to what it was
    // (the user's own empty `"hooks": {}` or `[]` included).
    const before = await ctx.backupText();
    if (before !== null && rewindEvents(parseConfig(before, file, true), spec, agent, file).length === 0 && installText(before, spec, agent, command, file) === raw) {
      return { next: before, result: present };
    }
    // A file install made from nothing (exactly what it wrote) goes; a file the user had never does.
    if (!ctx.linked && raw === installText(null, spec, agent, command, file)) return { next: null, result: present };
    return { next: uninstallText(raw, spec, agent, file), result: present };
  });
  if (!r.changed) return { file, changed: false, backup: null, lines: ['not installed, nothing changed'], before: r.before, after: r.after };
  return { file, changed: true, backup: r.backup, lines: r.result.map((e) => `removed ${e}`), before: r.before, after: r.after };
}

/**
 * Whether Rewind's entries are the ones an install of this version writes: each of its events once,
 * with its matcher, and no other event (an earlier version's entries: fewer events, older matchers).
 */
function sameAsInstall(doc: Doc, spec: Spec & Pick<AgentHooks, 'events'>, agent: string, file: string): boolean {
  const ours = new Map<string, (string | undefined)[]>();
  for (const [event, groups] of Object.entries(eventsOf(doc, spec.wrapped, file))) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups as Group[]) if (groupHasOurs(g, agent, spec)) ours.set(event, [...(ours.get(event) ?? []), typeof g.matcher === 'string' ? g.matcher : undefined]);
  }
  return ours.size === spec.events.length && spec.events.every((e) => ours.get(e.event)?.length === 1 && ours.get(e.event)![0] === e.matcher);
}

export async function configStatus(file: string, spec: AgentHooks, agent: string, where: ConfigWhere = { allowedRoot: null }): Promise<{ events: string[]; raw: string | null; error: string | null; command?: string | null; current?: boolean }> {
  try {
    const { target } = await resolveConfigTarget(file, where.allowedRoot);
    const raw = await readAgentConfig(target);
    const doc = parseConfig(raw, file, spec.jsonc);
    const events = rewindEvents(doc, spec, agent, file);
    const command = rewindCommand(doc, spec, agent, file);
    // Entries an earlier Rewind wrote (other events or matchers): installing again would change them.
    const current = !events.length || sameAsInstall(doc, spec, agent, file);
    return { events, raw, error: null, command, current };
  } catch (e) {
    return { events: [], raw: null, error: e instanceof Error ? e.message : String(e) };
  }
}
