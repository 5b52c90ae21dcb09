/**
 * Every agent Rewind knows, in registry order (the tie-breaks prefer the earlier). The contract
 * names agents through this list; `src/engine/agents/registry.ts` is checked against it when it
 * compiles, so the contract and the registry cannot drift (and `shared` never imports the engine).
 */
export const AGENT_IDS = ['claude', 'codex', 'droid', 'qwen', 'gemini', 'copilot', 'opencode', 'kilo'] as const;
export type AgentId = (typeof AGENT_IDS)[number];
