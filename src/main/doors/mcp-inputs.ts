import { z } from 'zod';
import { CONTRACT } from '../../shared/contract.js';
import { AgentSchema } from '../../shared/session-schema.js';

/**
 * The MCP tools' inputs, derived from the contract the other doors validate with: the same fields
 * and limits, a few renamed as a user names them (`prompt` is `#n` or a prompt id, not a uuid
 * only), `project` defaulting to the folder the agent started the server in, and `token` for the
 * writes. What a tool forwards is validated once more by the contract itself (RewindService.handle).
 */
const prompt = CONTRACT.getTurn.request.shape.promptUuid.describe('The prompt: `#n` (the n-th prompt of the live path, as the timeline numbers it) or a prompt id');
const token = z.string().min(1).max(200).describe('The token the matching preview returned');
const project = { project: CONTRACT.undo.request.shape.project.optional().describe('The project folder (default: the folder the server runs in)') };
const rewindInput = CONTRACT.previewRewind.request.omit({ promptUuid: true, force: true, expectSize: true }).extend({ prompt });
const restoreInput = CONTRACT.previewRestore.request.extend(project);

export const MCP_INPUTS = {
  list_sessions: CONTRACT.listSessions.request.extend({
    agent: AgentSchema.optional().describe('Only this agent’s sessions'),
    limit: z.number().int().positive().max(1000).optional().describe('At most this many, newest first (default 50)'),
  }),
  search: CONTRACT.searchPrompts.request,
  timeline: CONTRACT.getTimeline.request,
  turn: CONTRACT.getTurn.request.omit({ promptUuid: true }).extend({ prompt }),
  preview_rewind: rewindInput,
  rewind: rewindInput.extend({ token }),
  preview_restore: restoreInput,
  restore: CONTRACT.applyRestore.request.extend({ ...project, token }),
  history: CONTRACT.history.request.extend(project),
  preview_revert: CONTRACT.revertPreview.request.omit({ promptUuid: true, force: true }).extend({ prompt }),
  revert: CONTRACT.revert.request.omit({ promptUuid: true }).extend({ prompt, token }),
  undo: CONTRACT.undo.request.omit({ force: true }).extend({
    ...project,
    dryRun: CONTRACT.undo.request.shape.dryRun.describe('Say what would be undone and return the token an undo needs'),
    token: token.optional(),
  }),
  redo: CONTRACT.redo.request.omit({ force: true }).extend({
    ...project,
    dryRun: CONTRACT.redo.request.shape.dryRun.describe('Say what would be put back and return the token a redo needs'),
    token: token.optional(),
  }),
} as const;

export type McpToolName = keyof typeof MCP_INPUTS;
export type McpInput<K extends McpToolName> = z.output<(typeof MCP_INPUTS)[K]>;
