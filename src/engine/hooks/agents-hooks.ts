import type { AgentHooks, HookPlace, HookScope } from './agent-hooks.js';
import { earlierEntriesStep } from '../../shared/wording.js';
import { agentHookCommand, configStatus, installConfig, uninstallConfig } from './hook-config.js';

/**
 * Installing, removing and checking Rewind's hooks for any agent, through its adapter's `hooks`:
 * what `rewind-app hooks` and the window's hooks notice run.
 */

export interface Where {
  projectRoot: string;
  env: NodeJS.ProcessEnv;
  /** The first agent's root override (`--claude-dir`). */
  claudeDir?: string | null;
}

async function agentOf(id: string, w: Where): Promise<{ id: string; displayName: string; hooks: AgentHooks; place: HookPlace }> {
  const { adapterFor, AGENT_PRIMARY } = await import('../agents/registry.js');
  const a = adapterFor(id);
  if (!a.hooks) {
    const { RewindError } = await import('../errors.js');
    throw new RewindError('UNSUPPORTED', `${a.displayName} has no hooks Rewind can use`);
  }
  return { id: a.id, displayName: a.displayName, hooks: a.hooks, place: { projectRoot: w.projectRoot, agentHome: a.root(w.env, a.id === AGENT_PRIMARY ? w.claudeDir : null), env: w.env } };
}

/** A project's (or local) config is edited only inside the project; the user's own anywhere its links lead. */
const whereOf = (scope: HookScope, place: HookPlace) => ({ allowedRoot: scope === 'user' ? null : place.projectRoot });

export interface ScopeStatus {
  scope: HookScope;
  file: string;
  events: string[];
  /** Will the agent run them: null when it cannot be told (Codex's trust, with codex not found). */
  willRun: boolean | null;
  why: string | null;
  error: string | null;
}

export interface AgentHooksStatus {
  agent: string;
  displayName: string;
  scopes: ScopeStatus[];
  installed: boolean;
  /** The step the agent still needs (Codex: trust), in its own terms. */
  nextStep: string | null;
}

export async function agentStatus(id: string, w: Where, opts: { checkTrust?: boolean } = {}): Promise<AgentHooksStatus> {
  const a = await agentOf(id, w);
  const scopes: ScopeStatus[] = [];
  let nextStep: string | null = null;
  for (const scope of a.hooks.scopes) {
    const file = a.hooks.configPath(scope, a.place);
    const s: { events: string[]; raw: string | null; error: string | null; command?: string | null; current?: boolean } = a.hooks.plugin
      ? await (await import('./hook-plugin.js')).pluginStatus(file, { ...a.hooks, plugin: a.hooks.plugin }, whereOf(scope, a.place))
      : await configStatus(file, a.hooks, a.id, whereOf(scope, a.place));
    let willRun: boolean | null = s.error ? false : true;
    let why = s.error;
    const off = s.events.length ? (a.hooks.disabledReason?.(s.raw, scope) ?? null) : null;
    if (off) {
      willRun = false;
      why = off;
    } else if (s.events.length && a.hooks.trust && opts.checkTrust !== false) {
      const t = await a.hooks.trust.status(a.place, w.env, file, s.command ?? null).catch(() => null);
      willRun = t ? t.trusted : null;
      why = t ? (t.trusted ? null : `not trusted by Codex (${t.detail})`) : 'trust unknown (codex not found)';
      if (!t?.trusted) nextStep = a.hooks.trust.howTo;
    }
    if (s.current === false && !nextStep) nextStep = earlierEntriesStep(a.displayName, a.id, scope);
    scopes.push({ scope, file, events: s.events, willRun: s.events.length ? willRun : null, why: s.events.length ? why : null, error: s.error });
  }
  return { agent: a.id, displayName: a.displayName, scopes, installed: scopes.some((s) => s.events.length > 0), nextStep };
}

export async function agentsStatus(ids: string[], w: Where, opts: { checkTrust?: boolean } = {}): Promise<AgentHooksStatus[]> {
  return Promise.all(ids.map((id) => agentStatus(id, w, opts)));
}

export interface HooksChangeResult {
  agent: string;
  displayName: string;
  file: string;
  changed: boolean;
  backup: string | null;
  lines: string[];
  /** What the user still has to do for the agent to run them (Codex's trust), else null. */
  nextStep: string | null;
  /** The config's text before and after the change (null: no file), for a preview. */
  before?: string | null;
  after?: string | null;
}

export async function installAgentHooks(id: string, o: Where & { scope: string | null; command: string; dryRun?: boolean; trust?: boolean }): Promise<HooksChangeResult> {
  const a = await agentOf(id, o);
  const scope = (o.scope as HookScope | null) ?? a.hooks.scopes[0]!;
  const file = a.hooks.configPath(scope, a.place);
  const command = agentHookCommand(o.command, a.id, a.hooks);
  const c = a.hooks.plugin ? await (await import('./hook-plugin.js')).installPlugin(file, { ...a.hooks, plugin: a.hooks.plugin }, command, o.dryRun, whereOf(scope, a.place)) : await installConfig(file, a.hooks, a.id, command, o.dryRun, whereOf(scope, a.place));
  let nextStep: string | null = null;
  const lines = [...c.lines];
  if (a.hooks.trust) {
    if (o.trust && !o.dryRun) lines.push(...(await a.hooks.trust.record(a.place, o.env, file, command)));
    else nextStep = a.hooks.trust.howTo;
  }
  return { agent: a.id, displayName: a.displayName, file, changed: c.changed, backup: c.backup, lines, nextStep, before: c.before, after: c.after };
}

export async function uninstallAgentHooks(id: string, o: Where & { scope: string | null; dryRun?: boolean }): Promise<HooksChangeResult> {
  const a = await agentOf(id, o);
  const scope = (o.scope as HookScope | null) ?? a.hooks.scopes[0]!;
  const file = a.hooks.configPath(scope, a.place);
  const c = a.hooks.plugin ? await (await import('./hook-plugin.js')).uninstallPlugin(file, { ...a.hooks, plugin: a.hooks.plugin }, o.dryRun, whereOf(scope, a.place)) : await uninstallConfig(file, a.hooks, a.id, o.dryRun, whereOf(scope, a.place));
  return { agent: a.id, displayName: a.displayName, file, changed: c.changed, backup: c.backup, lines: c.lines, nextStep: null, before: c.before, after: c.after };
}
