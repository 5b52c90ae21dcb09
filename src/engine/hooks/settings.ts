import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeBufferAtomic } from '../io/atomic-write.js';
import { eventsOf, parseConfig } from './hook-config.js';

export type Scope = 'user' | 'project' | 'local';
export const HOOK_EVENTS = ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'] as const;
const TOOL_MATCHER = 'Write|Edit|MultiEdit|NotebookEdit|Bash|Agent|Task';

export function settingsPath(scope: Scope, projectRoot: string, claudeRoot: string): string {
  if (scope === 'user') return join(claudeRoot, 'settings.json');
  return join(projectRoot, '.claude', scope === 'project' ? 'settings.json' : 'settings.local.json');
}

/** Absolute node and script paths: works from any directory and any shell, no PATH needed. */
export function hookCommand(nodePath: string, cliPath: string): string {
  const q = (s: string) => (process.platform === 'win32' ? `"${s}"` : `'${s.replace(/'/g, `'\\''`)}'`);
  return `${q(nodePath)} ${q(cliPath)} hook`;
}

const isOurs = (cmd: unknown) => typeof cmd === 'string' && /rewind-app(\.mjs)?['"]? hook$/.test(cmd);

type HookEntry = { matcher?: string; hooks?: { type?: string; command?: string; timeout?: number }[] } & Record<string, unknown>;
type Settings = Record<string, unknown> & { hooks?: Record<string, HookEntry[]> };

async function readSettings(file: string): Promise<{ settings: Settings; raw: string | null }> {
  let raw: string | null = null;
  try {
    raw = await readFile(file, 'utf8');
  } catch {
    return { settings: {}, raw: null };
  }
  // Read as every agent's hook config is: an object, its "hooks" an object.
  const s = parseConfig(raw, file) as Settings;
  eventsOf(s, true, file);
  return { settings: s, raw };
}

/** Settings without our entries; everything else is kept as it was. */
function withoutOurs(s: Settings): Settings {
  if (!s.hooks) return s;
  const hooks: Record<string, HookEntry[]> = {};
  for (const [event, entries] of Object.entries(s.hooks)) {
    if (!Array.isArray(entries)) {
      hooks[event] = entries;
      continue;
    }
    const kept = entries
      .map((e) => (Array.isArray(e?.hooks) ? { ...e, hooks: e.hooks.filter((h) => !isOurs(h?.command)) } : e))
      .filter((e) => !Array.isArray(e?.hooks) || e.hooks.length > 0);
    if (kept.length) hooks[event] = kept;
  }
  const out: Settings = { ...s, hooks };
  if (Object.keys(hooks).length === 0) delete out.hooks;
  return out;
}

export interface HooksChange {
  file: string;
  changed: boolean;
  /** One line per event added or removed. */
  lines: string[];
}

export async function installHooks(file: string, command: string, dryRun = false): Promise<HooksChange> {
  const { settings, raw } = await readSettings(file);
  const base = withoutOurs(settings);
  const hooks = { ...(base.hooks ?? {}) };
  const entry = (matcher?: string): HookEntry => ({ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command, timeout: 30 }] });
  hooks.UserPromptSubmit = [...(hooks.UserPromptSubmit ?? []), entry()];
  hooks.PreToolUse = [...(hooks.PreToolUse ?? []), entry(TOOL_MATCHER)];
  hooks.PostToolUse = [...(hooks.PostToolUse ?? []), entry(TOOL_MATCHER)];
  // The turn's end: its checkpoint bounds a revert (edits by hand after the turn are not the prompt's).
  hooks.Stop = [...(hooks.Stop ?? []), entry()];
  const next = `${JSON.stringify({ ...base, hooks }, null, 2)}\n`;
  const changed = next !== raw;
  if (changed && !dryRun) {
    await mkdir(dirname(file), { recursive: true });
    await writeBufferAtomic(file, next, { mode: 0o600 });
  }
  const had = raw ? hasOurs(JSON.parse(raw || '{}') as Settings) : [];
  const lines = changed ? HOOK_EVENTS.map((e) => `${had.includes(e) ? 'updated' : 'added'} ${e} -> ${command}`) : ['already installed, nothing changed'];
  return { file, changed, lines };
}

export async function uninstallHooks(file: string, dryRun = false): Promise<HooksChange> {
  const { settings, raw } = await readSettings(file);
  const present = hasOurs(settings);
  if (raw === null || present.length === 0) return { file, changed: false, lines: ['not installed, nothing changed'] };
  const next = `${JSON.stringify(withoutOurs(settings), null, 2)}\n`;
  if (!dryRun) await writeBufferAtomic(file, next, { mode: 0o600 });
  return { file, changed: true, lines: present.map((e) => `removed ${e}`) };
}

function hasOurs(s: Settings): string[] {
  const out: string[] = [];
  for (const [event, entries] of Object.entries(s.hooks ?? {})) {
    if (Array.isArray(entries) && entries.some((e) => Array.isArray(e?.hooks) && e.hooks.some((h) => isOurs(h?.command)))) out.push(event);
  }
  return out;
}

export interface HooksStatus {
  scope: Scope;
  file: string;
  events: string[];
  command: string | null;
}

export async function hooksStatus(file: string, scope: Scope): Promise<HooksStatus> {
  const { settings } = await readSettings(file).catch(() => ({ settings: {} as Settings }));
  let command: string | null = null;
  for (const entries of Object.values(settings.hooks ?? {})) {
    if (!Array.isArray(entries)) continue;
    for (const e of entries) for (const h of e?.hooks ?? []) if (isOurs(h?.command)) command = h.command!;
  }
  return { scope, file, events: hasOurs(settings), command };
}
