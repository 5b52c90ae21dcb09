import { join } from 'node:path';
import { readAgentConfig } from '../io/config-edit.js';
import { eventsOf, isRewindHook, parseConfig } from './hook-config.js';

export type Scope = 'user' | 'project' | 'local';
export const HOOK_EVENTS = ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'] as const;

export function settingsPath(scope: Scope, projectRoot: string, claudeRoot: string): string {
  if (scope === 'user') return join(claudeRoot, 'settings.json');
  return join(projectRoot, '.claude', scope === 'project' ? 'settings.json' : 'settings.local.json');
}

/** Absolute node and script paths: works from any directory and any shell, no PATH needed. */
export function hookCommand(nodePath: string, cliPath: string): string {
  const q = (s: string) => (process.platform === 'win32' ? `"${s}"` : `'${s.replace(/'/g, `'\\''`)}'`);
  return `${q(nodePath)} ${q(cliPath)} hook`;
}

// Claude's hook: plain `rewind-app hook` (or with `--agent claude`), nothing chained before it.
const isOurs = (cmd: unknown) => isRewindHook(cmd, 'claude', true);

type HookEntry = { matcher?: string; hooks?: { type?: string; command?: string; timeout?: number }[] } & Record<string, unknown>;
type Settings = Record<string, unknown> & { hooks?: Record<string, HookEntry[]> };

async function readSettings(file: string): Promise<{ settings: Settings; raw: string | null }> {
  // Never a blocking read of a FIFO or a huge file put in the settings' place.
  const raw = await readAgentConfig(file).catch(() => null);
  if (raw === null) return { settings: {}, raw: null };
  // Read as every agent's hook config is: an object, its "hooks" an object.
  const s = parseConfig(raw, file) as Settings;
  eventsOf(s, true, file);
  return { settings: s, raw };
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
