import { lstat, mkdir, unlink } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { RewindError } from '../errors.js';
import { writeBufferAtomic } from '../io/atomic-write.js';
import { assertOwnFileSlot, ensureOwnDir, readOwnText } from '../io/own-file.js';
import type { AgentHooks, HookPlugin } from './agent-hooks.js';
import type { ConfigChange, ConfigWhere } from './hook-config.js';

/**
 * Rewind's hooks as a plugin file (OpenCode and Kilo load every `plugins/*.js` of their config
 * folders): the file is Rewind's own, never the user's. It is written whole and atomically (a
 * temp file renamed), never through a link: a link or anything but a regular file in its place is
 * refused, and inside a project every folder on the way must be a real folder of the project. A
 * file there that is not Rewind's plugin (the user's own of that name) is never overwritten or removed.
 */

type PluginHooks = AgentHooks & { plugin: HookPlugin };

async function folderFor(file: string, where: ConfigWhere, create: boolean): Promise<void> {
  if (where.allowedRoot) {
    const rel = relative(where.allowedRoot, dirname(file));
    if (rel.startsWith('..')) throw new RewindError('UNSAFE_PATH', `${file} is outside ${where.allowedRoot}: nothing was changed`);
    await ensureOwnDir(where.allowedRoot, rel, { create, mode: 0o755 });
  } else if (create) await mkdir(dirname(file), { recursive: true });
}

/** The plugin's text as installed (null: none); refused when a link or not a regular file is there. */
async function current(file: string): Promise<string | null> {
  await assertOwnFileSlot(file);
  return readOwnText(file);
}

const events = (spec: PluginHooks) => spec.events.map((e) => e.event);

export async function installPlugin(file: string, spec: PluginHooks, command: string, dryRun = false, where: ConfigWhere = { allowedRoot: null }): Promise<ConfigChange> {
  await folderFor(file, where, false);
  const had = await current(file);
  if (had !== null && spec.plugin.commandOf(had) === null) throw new RewindError('IO', `${file} is not Rewind's plugin: nothing was changed (move it away first)`);
  const text = spec.plugin.text(command);
  if (had === text) return { file, changed: false, backup: null, lines: ['already installed, nothing changed'], before: had, after: had };
  const lines = events(spec).map((e) => `${had !== null ? 'updated' : 'added'} ${e} -> ${command}`);
  if (dryRun) return { file, changed: true, backup: null, lines, before: had, after: text };
  await folderFor(file, where, true);
  await assertOwnFileSlot(file);
  await writeBufferAtomic(file, text, { mode: 0o644 });
  return { file, changed: true, backup: null, lines, before: had, after: text };
}

export async function uninstallPlugin(file: string, spec: PluginHooks, dryRun = false, where: ConfigWhere = { allowedRoot: null }): Promise<ConfigChange> {
  await folderFor(file, where, false);
  const had = await current(file);
  if (had === null || spec.plugin.commandOf(had) === null) return { file, changed: false, backup: null, lines: ['not installed, nothing changed'], before: had, after: had };
  if (!dryRun) {
    // Checked again just before: a link put there meanwhile is not Rewind's to remove.
    if ((await lstat(file)).isFile()) await unlink(file);
  }
  return { file, changed: true, backup: null, lines: events(spec).map((e) => `removed ${e}`), before: had, after: null };
}

export async function pluginStatus(file: string, spec: PluginHooks, where: ConfigWhere = { allowedRoot: null }): Promise<{ events: string[]; raw: string | null; error: string | null }> {
  try {
    await folderFor(file, where, false);
    const raw = await current(file);
    return { events: raw !== null && spec.plugin.commandOf(raw) !== null ? events(spec) : [], raw, error: null };
  } catch (e) {
    return { events: [], raw: null, error: e instanceof Error ? e.message : String(e) };
  }
}
