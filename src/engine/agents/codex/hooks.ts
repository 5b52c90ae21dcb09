import type { AgentHooks, HookPayload } from '../../hooks/agent-hooks.js';
import { claudeStyleEvent, configIn } from '../hook-parts.js';

/** Paths an `apply_patch` names: its Add/Update/Delete/Move lines (the patch is `tool_input.command`). */
export function patchPaths(patch: unknown): string[] | null {
  if (typeof patch !== 'string') return null;
  const out: string[] = [];
  for (const m of patch.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm)) out.push(m[1]!.trim());
  return out.length ? out : null;
}

const READ_ONLY = new Set(['view_image', 'update_plan', 'web_search', 'list_mcp_resources', 'read_mcp_resource']);

/**
 * Codex CLI 0.169 (FORMATS.md §2c): `$CODEX_HOME/hooks.json` (project: `.codex/hooks.json`, read
 * only in a trusted project), the Claude shape under `"hooks"`; no other top-level key is allowed.
 * The prompt event carries `turn_id`, which the timeline gives each prompt as its `promptId`.
 * Codex runs a hook only once it is trusted (`trust`).
 */
export const codexHooks: AgentHooks = {
  scopes: ['user', 'project'],
  configPath: (scope, place) => configIn(scope, place, '.codex', 'hooks.json'),
  // No matcher: Codex reads it as a regex, and none matches every tool.
  events: [{ event: 'SessionStart' }, { event: 'UserPromptSubmit' }, { event: 'PreToolUse' }, { event: 'PostToolUse' }, { event: 'Stop' }],
  wrapped: true,
  entry: (command) => ({ type: 'command', command, timeout: 30 }),
  read: (p: HookPayload) =>
    claudeStyleEvent(p, {
      names: { files: {}, readOnly: READ_ONLY },
      sessionTurn: false,
      prompt: (x) => ({ kind: 'prompt', promptUuid: null, promptId: typeof x.turn_id === 'string' ? x.turn_id : null }),
      extra: (x) => (x.tool_name === 'apply_patch' ? patchPaths(x.tool_input?.command ?? x.tool_input?.patch ?? x.tool_input?.input) : null),
    }),
  trust: {
    howTo: 'Codex runs a hook only once you trust it: start `codex`, type /hooks and trust the Rewind entries (or run `rewind-app hooks install --agent codex --trust` to record that trust in config.toml).',
    async status(place, env, _file, command) {
      const { codexTrustStatus } = await import('./hook-trust.js');
      return codexTrustStatus(place, env, command);
    },
    async record(place, env, _file, command) {
      const { codexTrustRecord } = await import('./hook-trust.js');
      return codexTrustRecord(place, env, command);
    },
  },
};
