import { RewindError } from '../errors.js';
import { editAgentConfig, resolveConfigTarget } from '../io/config-edit.js';
import { assertOwnFileSlot, readOwnText } from '../io/own-file.js';
import type { AgentHooks, HookPlugin } from './agent-hooks.js';
import type { ConfigChange, ConfigWhere } from './hook-config.js';

/**
 * Rewind's hooks as a plugin file (OpenCode and Kilo load every `plugins/*.js` of their config
 * folders), written and removed through the one config editor (io/config-edit.ts) with its
 * guarantees: one lock per file, the text read again inside it, an atomic write, inside a project
 * every folder on the way a real folder of the project. The file is Rewind's own (`own`): a link or
 * anything but a regular file in its place is refused, never followed; no backup is kept, so an
 * uninstall leaves the folder as it was before the install. A file there that is not Rewind's
 * plugin (the user's own of that name) is never overwritten or removed.
 */

type PluginHooks = AgentHooks & { plugin: HookPlugin };

const events = (spec: PluginHooks) => spec.events.map((e) => e.event);
const notOurs = (file: string) => new RewindError('IO', `${file} is not Rewind's plugin: nothing was changed (move it away first)`);

export async function installPlugin(file: string, spec: PluginHooks, command: string, dryRun = false, where: ConfigWhere = { allowedRoot: null }): Promise<ConfigChange> {
  const want = spec.plugin.text(command);
  const r = await editAgentConfig(file, { allowedRoot: where.allowedRoot, dryRun, own: true, newMode: 0o644 }, (had) => {
    if (had !== null && spec.plugin.commandOf(had) === null) throw notOurs(file);
    if (had === want) return { next: undefined, result: ['already installed, nothing changed'] };
    return { next: want, result: events(spec).map((e) => `${had !== null ? 'updated' : 'added'} ${e} -> ${command}`) };
  });
  return { file, changed: r.changed, backup: null, lines: r.result, before: r.before, after: r.after };
}

export async function uninstallPlugin(file: string, spec: PluginHooks, dryRun = false, where: ConfigWhere = { allowedRoot: null }): Promise<ConfigChange> {
  const r = await editAgentConfig(file, { allowedRoot: where.allowedRoot, dryRun, own: true }, (had) => {
    if (had === null || spec.plugin.commandOf(had) === null) return { next: undefined, result: ['not installed, nothing changed'] };
    return { next: null, result: events(spec).map((e) => `removed ${e}`) };
  });
  return { file, changed: r.changed, backup: null, lines: r.result, before: r.before, after: r.after };
}

export async function pluginStatus(file: string, spec: PluginHooks, where: ConfigWhere = { allowedRoot: null }): Promise<{ events: string[]; raw: string | null; error: string | null; current?: boolean }> {
  try {
    // The same checks an install makes (folders inside the project, no link in the file's place), read-only.
    await resolveConfigTarget(file, where.allowedRoot);
    await assertOwnFileSlot(file);
    const raw = await readOwnText(file);
    const command = raw === null ? null : spec.plugin.commandOf(raw);
    // An earlier Rewind's plugin (another text for the same command): installing again updates it.
    return { events: command !== null ? events(spec) : [], raw, error: null, current: command === null || raw === spec.plugin.text(command) };
  } catch (e) {
    return { events: [], raw: null, error: e instanceof Error ? e.message : String(e) };
  }
}
