import type { Timeline } from '../../shared/session-schema.js';
import type { RestoreSession } from './restore.js';

/** What restore needs of a session, off a timeline the caller already has. */
export function restoreSessionOf(transcriptPath: string, agent: string, timeline: Timeline): RestoreSession & { cwd: string | null } {
  return {
    transcriptPath,
    agent,
    cwd: timeline.session.cwd,
    prompts: timeline.prompts.map((p) => ({ uuid: p.uuid, promptId: p.promptId, active: p.active, timestamp: p.timestamp, byteOffset: p.byteOffset })),
  };
}

/** The same, reading the session file with its own agent's reader. */
export async function readRestoreSession(transcriptPath: string): Promise<RestoreSession & { cwd: string | null }> {
  const { adapterOfFile } = await import('../agents/registry.js');
  const adapter = await adapterOfFile(transcriptPath);
  return restoreSessionOf(transcriptPath, adapter.id, await adapter.timeline(transcriptPath));
}

/**
 * `--source`: rewind, agent, or an agent id (the session's own, for the agent's store); null
 * when it names neither.
 */
export async function parseRestoreSource(raw: string | undefined): Promise<'rewind' | 'agent' | undefined | null> {
  if (raw === undefined) return undefined;
  if (raw === 'rewind' || raw === 'agent') return raw;
  const { AGENT_IDS } = await import('../agents/registry.js');
  return (AGENT_IDS as readonly string[]).includes(raw) ? 'agent' : null;
}
