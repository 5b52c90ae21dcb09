import type { AgentHooks } from '../hooks/agent-hooks.js';

/**
 * Each agent's `hooks`, loaded alone: `rewind-app hook` runs on every tool call of the agent, and
 * the registry would load every adapter for one small module (the same objects the adapters
 * expose as `hooks`).
 */
const LOAD: Record<string, () => Promise<AgentHooks>> = {
  claude: async () => (await import('./claude/hooks.js')).claudeHooks,
  codex: async () => (await import('./codex/hooks.js')).codexHooks,
  droid: async () => (await import('./droid/hooks.js')).droidHooks,
  qwen: async () => (await import('./qwen/hooks.js')).qwenHooks,
  gemini: async () => (await import('./gemini/hooks.js')).geminiHooks,
  copilot: async () => (await import('./copilot/hooks.js')).copilotHooks,
  opencode: async () => (await import('./opencode/hooks.js')).opencodeHooks,
  kilo: async () => (await import('./kilo/hooks.js')).kiloHooks,
};

/** `rewind-app hook` without `--agent`: the first agent's, installed before the flag existed. */
export const BARE_HOOK_AGENT = 'claude';

/** The agent's hooks, or null for an agent without them (or unknown). */
export async function hooksOfAgent(id: string): Promise<AgentHooks | null> {
  return Object.hasOwn(LOAD, id) ? LOAD[id]!() : null;
}
