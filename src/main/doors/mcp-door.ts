import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { adapterOfFile, agentInfo } from '../../engine/agents/registry.js';
import { describeError, RewindError, type ErrorCode } from '../../engine/errors.js';
import { promptOfRef } from '../../engine/prompts/ref.js';
import type { RequestOf, ResponseOf } from '../../shared/contract.js';
import type { OperationName } from '../../shared/operations.js';
import type { Timeline } from '../../shared/session-schema.js';
import { plural, statementLines } from '../../shared/wording.js';
import type { RewindService } from '../service/rewind-service.js';
import { MCP_INPUTS, type McpInput, type McpToolName } from './mcp-inputs.js';
import { PreviewTokens, sessionState, treeState, whatChanged, type WriteState } from './preview-tokens.js';

/** The name agents register the server under: its tools reach them as `mcp__rewind__<tool>`. */
export const MCP_SERVER_NAME = 'rewind';

export interface McpDoorOptions {
  /** Off by default: rewind, restore, revert, undo and redo are refused (their previews still answer). */
  allowWrites: boolean;
  /** Where a relative path or a missing `project` is taken from (the agent's folder). */
  cwd: string;
  version: string;
  tokens?: PreviewTokens;
}

export const WRITES_OFF =
  'Writes are off: this Rewind MCP server only reads and previews. To let agents apply rewinds, restores, reverts, undo and redo, start it with `rewind-app mcp --allow-writes` (or register it with `rewind-app mcp install --allow-writes`).';

interface Done {
  text: string;
  data: Record<string, unknown>;
}

interface ToolSpec<K extends McpToolName> {
  description: string;
  /** Writes files: off unless allowed, and only with its preview's token. */
  write?: boolean;
  annotations: ToolAnnotations;
  run(input: McpInput<K>): Promise<Done>;
}

/** At most this many turn items or file changes in one result (an agent's context is small). */
const MAX_ITEMS = 200;

const clip = (s: string, n: number) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

/**
 * Rewind as an MCP server: the same service and contract as the window's doors, as tools an agent
 * calls. Reads and previews always answer; writes (rewind, restore, undo) need `allowWrites` and
 * the token of their own preview, refused when the session or the project changed since. Adding a
 * tool: its input in mcp-inputs.ts (derived from the contract) and one entry in `tools` below.
 */
export function createMcpServer(service: RewindService, opts: McpDoorOptions): McpServer {
  const tokens = opts.tokens ?? new PreviewTokens();
  const at = (p: string) => resolve(opts.cwd, p);
  const projectOf = (p: string | undefined) => at(p ?? '.');

  async function call<K extends OperationName>(op: K, req: RequestOf<K>): Promise<ResponseOf<K>> {
    const r = await service.handle(op, req);
    if (!r.ok) throw new RewindError(r.error.code as ErrorCode, r.error.message);
    return r.value as ResponseOf<K>;
  }

  /** A session as the CLI takes it (id, id prefix or path) and a prompt (#n or id) on it. */
  async function located(session: string, prompt?: string): Promise<{ timeline: Timeline; path: string; promptUuid: string }> {
    const ref = /[\\/]/.test(session) ? at(session) : session;
    const timeline = await call('getTimeline', { session: ref });
    return { timeline, path: timeline.session.transcriptPath, promptUuid: prompt === undefined ? '' : promptOfRef(timeline, prompt) };
  }

  /** An in-place rewrite of a session its agent is writing (the one calling, most likely) is refused. */
  async function refuseLiveInPlace(mode: string, path: string): Promise<void> {
    if (mode !== 'in-place') return;
    if (await (await adapterOfFile(path)).isLive(path)) {
      throw new RewindError('TRANSCRIPT_LIVE', `refused: ${path} is being written right now (it may be the session calling this tool): rewriting it in place would race its agent. Fork it instead (mode "fork"), or rewrite it once it is idle.`);
    }
  }

  function checkWrites(): void {
    if (!opts.allowWrites) throw new RewindError('UNSUPPORTED', WRITES_OFF);
  }

  async function spend(token: string | undefined, preview: string, key: string, now: (then: WriteState) => Promise<WriteState>): Promise<WriteState> {
    if (!token) throw new RewindError('USAGE', `a write needs the token of its preview: call ${preview} first`);
    const then = tokens.take(token, preview, key);
    const changed = whatChanged(then, await now(then));
    if (changed) throw new RewindError(changed.startsWith('the session') ? 'TRANSCRIPT_CHANGED' : 'CONFLICT', `refused (stale preview): ${changed}. Nothing was changed: call ${preview} again.`);
    return then;
  }

  const rewindKey = (path: string, promptUuid: string, mode: string, withCode: boolean) => JSON.stringify({ session: path, prompt: promptUuid, mode, withCode });
  const rewindState = async (path: string, cwd: string | null, withCode: boolean): Promise<WriteState> => ({
    session: await sessionState(path),
    ...(withCode && cwd ? { tree: await treeState(cwd) } : {}),
  });
  const restoreKey = (i: McpInput<'preview_restore'>) => JSON.stringify({ project: projectOf(i.project), ref: i.ref, source: i.source ?? null, session: i.session ?? null });
  const restoreState = async (i: McpInput<'preview_restore'>): Promise<WriteState> => ({
    tree: await treeState(projectOf(i.project)),
    ...(i.session ? { session: await sessionState((await located(i.session)).path) } : {}),
  });
  /** What an undo (or a redo) would take back, and the tree it would write to. */
  const journalState = async (op: 'undo' | 'redo', project: string, id?: string): Promise<WriteState> => {
    const dry = op === 'undo' ? await call('undo', { project, id, dryRun: true }) : await call('redo', { project, dryRun: true });
    return { undo: dry.summary, tree: await treeState(project) };
  };
  const revertKey = (path: string, promptUuid: string, take: Record<string, string>) => JSON.stringify({ session: path, prompt: promptUuid, take });
  const revertState = async (path: string, root: string): Promise<WriteState> => ({ session: await sessionState(path), tree: await treeState(root) });

  /** undo and redo: a dry run says what and hands out the token; the write needs it. */
  async function journalTool(op: 'undo' | 'redo', i: { project?: string; dryRun: boolean; token?: string; id?: string }): Promise<Done> {
    const project = projectOf(i.project);
    const key = JSON.stringify({ project, id: i.id ?? null });
    if (i.dryRun) {
      const state = await journalState(op, project, i.id);
      const token = tokens.issue(op, key, state);
      return { text: `Would ${op}: ${state.undo}\ntoken: ${token}${opts.allowWrites ? '' : `\n${op === 'undo' ? 'Undoing' : 'Redoing'} needs writes, which are off on this server (--allow-writes).`}`, data: { summary: state.undo, token, writesAllowed: opts.allowWrites } };
    }
    checkWrites();
    if (!i.token) throw new RewindError('USAGE', `${op === 'undo' ? 'an undo' : 'a redo'} needs the token of its preview: call ${op} with dryRun: true first`);
    await spend(i.token, op, key, () => journalState(op, project, i.id));
    const r = op === 'undo' ? await call('undo', { project, id: i.id, dryRun: false }) : await call('redo', { project, dryRun: false });
    return { text: r.summary, data: r };
  }

  const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };
  const off = opts.allowWrites ? '' : ' [OFF: writes are disabled on this server; start it with --allow-writes to enable]';

  const tools: { [K in McpToolName]: ToolSpec<K> } = {
    list_sessions: {
      description: `List AI coding agent sessions (${agentInfo()
        .map((a) => a.displayName)
        .join(', ')}), newest first.`,
      annotations: { ...READ, title: 'List sessions' },
      run: async (i) => {
        const r = await call('listSessions', { project: i.project === undefined ? undefined : at(i.project) });
        const all = r.sessions.filter((s) => !i.agent || s.agent === i.agent);
        const sessions = all.slice(0, i.limit ?? 50).map((s) => ({ id: s.id, agent: s.agent, title: s.title, cwd: s.cwd, transcriptPath: s.transcriptPath, lastActivity: s.lastActivity, prompts: s.counts?.livePrompts ?? s.livePromptCount ?? s.promptCount, live: s.live, forkOf: s.forkOf }));
        const lines = sessions.map((s) => `${s.id}  ${s.agent}  ${s.lastActivity}  ${s.prompts ?? '?'} prompts  ${s.cwd ?? '-'}  ${clip(s.title, 60)}`);
        return { text: [`${plural(all.length, 'session')}${all.length > sessions.length ? ` (newest ${sessions.length} shown)` : ''}:`, ...lines].join('\n'), data: { total: all.length, sessions } };
      },
    },
    search: {
      description: 'Search every past prompt of every agent session (case and accents ignored). Returns the matching prompts with their session id, prompt id and a snippet.',
      annotations: { ...READ, title: 'Search prompts' },
      run: async (i) => {
        const r = await call('searchPrompts', { ...i, project: i.project === undefined ? undefined : at(i.project) });
        // At most MAX_ITEMS prompts in the answer (the sessions list says how many each has).
        const matches = r.matches.slice(0, MAX_ITEMS);
        const bySession = new Map<string, string[]>();
        for (const m of matches) bySession.set(m.sessionId, [...(bySession.get(m.sessionId) ?? []), `  prompt ${m.promptUuid}${m.snippet === null ? '' : `: ${clip(m.snippet, 160)}`}`]);
        const lines = r.sessions.map((s) => [`session ${s.sessionId} (${plural(s.count, 'match')}) ${s.transcriptPath}`, ...(bySession.get(s.sessionId) ?? [])].join('\n'));
        const head = r.totalHits ? `${plural(r.totalHits, 'prompt')} match ${JSON.stringify(i.query)} in ${plural(r.sessions.length, 'session')}:` : `No prompt matches ${JSON.stringify(i.query)}.`;
        const tail = r.notSearched.length ? [`Not searched: ${r.notSearched.map((n) => `${n.path} (${n.reason})`).join('; ')}`] : [];
        return { text: [head, ...lines, ...tail].join('\n'), data: { ...r, matches, truncated: r.truncated || r.matches.length > matches.length } };
      },
    },
    timeline: {
      description: 'One session’s prompts in order: #n on the live path, and prompts on abandoned branches. `session` is an id, an id prefix or a transcript path.',
      annotations: { ...READ, title: 'Session timeline' },
      run: async (i) => {
        const { timeline: t } = await located(i.session);
        const s = t.session;
        // An agent's context is small: each prompt's first 300 characters (turn has the rest).
        const prompts = t.prompts.map((p) => ({ number: p.number, uuid: p.uuid, active: p.active, timestamp: p.timestamp, text: clip(p.text, 300), tools: p.turn.toolCalls.length, files: p.turn.filesTouched.slice(0, 20) }));
        const lines = prompts.map((p) => `${p.active ? `#${p.number}`.padStart(4) : '  ○ '} ${p.uuid}  ${clip(p.text, 100)}${p.active ? '' : '  (abandoned branch)'}`);
        const head = `${s.title} · ${s.agent} · ${s.cwd ?? '-'}\nsession ${s.id} · ${plural(t.stats.activePrompts, 'live prompt')} · ${s.transcriptPath}${s.readOnly ? `\nread only: ${s.readOnly}` : ''}`;
        return { text: [head, ...lines].join('\n'), data: { session: { id: s.id, agent: s.agent, title: s.title, cwd: s.cwd, transcriptPath: s.transcriptPath, readOnly: s.readOnly ?? null }, stats: t.stats, prompts } };
      },
    },
    turn: {
      description: 'One prompt’s turn: what the agent said and did (tool calls, results), item by item. `prompt` is #n or a prompt id.',
      annotations: { ...READ, title: 'Prompt turn' },
      run: async (i) => {
        const { path, promptUuid } = await located(i.session, i.prompt);
        const r = await call('getTurn', { session: path, promptUuid });
        const items = r.items.slice(0, MAX_ITEMS).map((it) => ({ kind: it.kind, title: it.title, body: clip(it.body, 2000), isError: it.isError }));
        const lines = items.map((it) => `[${it.kind}] ${it.title}${it.body ? `: ${clip(it.body, 300)}` : ''}`);
        const truncated = r.truncated || r.items.length > MAX_ITEMS;
        return { text: [`prompt ${promptUuid}: ${clip(r.text, 300)}`, ...lines, ...(truncated ? ['(truncated)'] : [])].join('\n'), data: { promptUuid, text: r.text, model: r.model, truncated, items } };
      },
    },
    preview_rewind: {
      description: 'Preview a rewind of a session before a prompt: a fork (a new session that ends before it) or an in-place rewrite; with withCode, the project’s files too. Writes nothing; returns the token `rewind` needs.',
      annotations: { ...READ, idempotentHint: false, title: 'Preview a rewind' },
      run: async (i) => {
        const { timeline, path, promptUuid } = await located(i.session, i.prompt);
        await refuseLiveInPlace(i.mode, path);
        const state = await rewindState(path, timeline.session.cwd, i.withCode);
        const r = await call('previewRewind', { session: path, promptUuid, mode: i.mode, withCode: i.withCode });
        const token = tokens.issue('preview_rewind', rewindKey(path, promptUuid, i.mode, i.withCode), state);
        const said = r.chat.statement ? statementLines(r.chat.statement) : [r.summary];
        const code = r.code ? [`Code: ${r.code.note} (${plural(r.code.changes.length, 'file')} to change, ${plural(r.code.conflicts, 'conflict')})`] : r.codeNote ? [`Code: ${r.codeNote}`] : [];
        const next = opts.allowWrites ? `To apply: call rewind with the same session, prompt and mode and token ${token}.` : `Applying it needs writes, which are off on this server (--allow-writes).`;
        return { text: [...said, ...code, ...r.chat.warnings.map((w) => `warning: ${w}`), `token: ${token}`, next].join('\n'), data: { ...r, token, writesAllowed: opts.allowWrites } };
      },
    },
    rewind: {
      description: `Apply a rewind previewed with preview_rewind (same session, prompt, mode and withCode, plus its token). Refused when the session or the project changed since the preview; an in-place rewrite of a session being written is refused. Undo with the undo tool.${off}`,
      write: true,
      annotations: { ...WRITE, title: 'Rewind a session' },
      run: async (i) => {
        checkWrites();
        const { timeline, path, promptUuid } = await located(i.session, i.prompt);
        const then = await spend(i.token, 'preview_rewind', rewindKey(path, promptUuid, i.mode, i.withCode), () => rewindState(path, timeline.session.cwd, i.withCode));
        await refuseLiveInPlace(i.mode, path);
        const r = await call('applyRewind', { session: path, promptUuid, mode: i.mode, withCode: i.withCode, expectSize: then.session?.size });
        const lines = [r.summary, ...(r.forkSessionId ? [`forkSessionId: ${r.forkSessionId}`] : []), ...(r.backupPath ? [`backup: ${r.backupPath}`] : []), ...(r.code ? [`Code: ${r.code.written} written, ${r.code.deleted} deleted`] : []), ...(r.resumeCommand ? [`Resume with: ${r.resumeCommand}`] : []), ...(r.projectRoot ? [`Undo with the undo tool (project ${r.projectRoot}).`] : [])];
        return { text: lines.join('\n'), data: r };
      },
    },
    preview_restore: {
      description: 'Preview restoring a project’s files to a checkpoint or to before a prompt (`ref`: a checkpoint id, a prompt id, or @n), from Rewind’s checkpoints or the agent’s own file history. Writes nothing; returns the token `restore` needs.',
      annotations: { ...READ, idempotentHint: false, title: 'Preview a restore' },
      run: async (i) => {
        const state = await restoreState(i);
        const session = i.session ? (await located(i.session)).path : undefined;
        const r = await call('previewRestore', { project: projectOf(i.project), ref: i.ref, source: i.source, session });
        const token = tokens.issue('preview_restore', restoreKey(i), state);
        const changes = r.changes.filter((c) => c.action !== 'unchanged');
        const lines = [r.note, `${plural(changes.length, 'file')} to change, ${plural(r.conflicts, 'conflict')}:`, ...changes.slice(0, 50).map((c) => `  ${c.action} ${c.path}${c.conflict ? ` (conflict: ${c.conflict})` : ''}`), `token: ${token}`];
        return { text: lines.join('\n'), data: { ...r, changes: r.changes.slice(0, MAX_ITEMS).map((c) => ({ ...c, patch: c.patch ? clip(c.patch, 4000) : null })), token, writesAllowed: opts.allowWrites } };
      },
    },
    restore: {
      description: `Apply a restore previewed with preview_restore (same project, ref, source and session, plus its token). Refused when the project’s files or the session changed since the preview, and when files changed outside the agent would be overwritten unless force (a pre-restore checkpoint keeps them). Undo with the undo tool.${off}`,
      write: true,
      annotations: { ...WRITE, title: 'Restore files' },
      run: async (i) => {
        checkWrites();
        await spend(i.token, 'preview_restore', restoreKey(i), () => restoreState(i));
        const session = i.session ? (await located(i.session)).path : undefined;
        const r = await call('applyRestore', { project: projectOf(i.project), ref: i.ref, source: i.source, session, force: i.force });
        return { text: `${r.summary}\nUndo with the undo tool.`, data: r };
      },
    },
    history: {
      description: 'Rewind’s journal of a project: every fork, rewrite, restore, revert, undo and redo, newest first, and whether each can still be undone (undo takes an entry’s id).',
      annotations: { ...READ, title: 'History' },
      run: async (i) => {
        const r = await call('history', { project: projectOf(i.project) });
        const lines = r.entries.slice(0, MAX_ITEMS).map((e) => `${e.id}  ${e.time}  ${e.kind}${e.undone ? ' (undone)' : ''}${e.undoable ? '' : ` (not undoable${e.why ? `: ${e.why}` : ''})`}${e.prompt ? `  ${clip(e.prompt, 60)}` : ''}${e.files.length ? `  ${plural(e.files.length, 'file')}` : ''}`);
        return { text: [`${plural(r.entries.length, 'action')} in ${r.projectRoot}:`, ...lines].join('\n'), data: { ...r, entries: r.entries.slice(0, MAX_ITEMS) } };
      },
    },
    preview_revert: {
      description: 'Preview taking back what one prompt changed in the project’s files while keeping every later change: the files, the conflicts with later edits (resolve each with `take`: current, before or markers), and the token `revert` needs. Writes nothing.',
      annotations: { ...READ, idempotentHint: false, title: 'Preview a revert' },
      run: async (i) => {
        const { path, promptUuid } = await located(i.session, i.prompt);
        const r = await call('revertPreview', { session: path, promptUuid, take: i.take });
        const token = tokens.issue('preview_revert', revertKey(path, promptUuid, i.take), await revertState(path, r.projectRoot));
        const lines = [`${r.afterNote}`, `${plural(r.changes.length, 'file')} to change:`, ...r.changes.slice(0, 50).map((c) => `  ${c.action} ${c.path}`), ...r.conflicts.map((c) => `  conflict ${c.path}: ${c.reason}${c.choice ? ` (take: ${c.choice})` : ''}`), ...(r.unresolved.length ? [`Unresolved (give take for each): ${r.unresolved.join(', ')}`] : []), `token: ${token}`];
        return { text: lines.join('\n'), data: { ...r, changes: r.changes.slice(0, MAX_ITEMS).map((c) => ({ ...c, patch: c.patch ? clip(c.patch, 4000) : null })), token, writesAllowed: opts.allowWrites } };
      },
    },
    revert: {
      description: `Apply a revert previewed with preview_revert (same session, prompt and take, plus its token). Refused when the project’s files or the session changed since the preview. Undo with the undo tool.${off}`,
      write: true,
      annotations: { ...WRITE, title: 'Revert a prompt' },
      run: async (i) => {
        checkWrites();
        const { path, promptUuid } = await located(i.session, i.prompt);
        await spend(i.token, 'preview_revert', revertKey(path, promptUuid, i.take), (then) => revertState(path, then.tree?.root ?? projectOf(undefined)));
        const r = await call('revert', { session: path, promptUuid, take: i.take, force: i.force });
        return { text: `${r.summary}\nUndo with the undo tool (project ${r.projectRoot}).`, data: r };
      },
    },
    undo: {
      description: `Take back Rewind's last change in a project (a rewind, a restore, a revert), or the history entry \`id\`. With dryRun it says what would be undone and returns a token; the undo itself needs that token and is refused when anything changed since.${off}`,
      write: true,
      annotations: { ...WRITE, title: 'Undo' },
      run: (i) => journalTool('undo', i),
    },
    redo: {
      description: `Put back the last undone action. With dryRun it says what would be redone and returns a token; the redo itself needs that token and is refused when anything changed since.${off}`,
      write: true,
      annotations: { ...WRITE, title: 'Redo' },
      run: (i) => journalTool('redo', i),
    },
  };

  const server = new McpServer({ name: MCP_SERVER_NAME, version: opts.version }, { instructions: `Rewind: search, read, preview and (when allowed) rewind or restore AI coding agent sessions. Every write needs the token of its preview.${opts.allowWrites ? '' : ` ${WRITES_OFF}`}` });
  for (const name of Object.keys(tools) as McpToolName[]) {
    const spec = tools[name] as ToolSpec<McpToolName>;
    server.registerTool(name, { description: spec.description, inputSchema: MCP_INPUTS[name] as z.ZodObject, annotations: spec.annotations }, async (input: unknown): Promise<CallToolResult> => {
      try {
        // No watcher runs here: what the service holds is compared with the files first.
        await service.catchUp();
        const done = await spec.run(input as never);
        return { content: [{ type: 'text', text: done.text }], structuredContent: done.data };
      } catch (e) {
        const { code, message } = describeError(e);
        return { content: [{ type: 'text', text: `${code}: ${message}` }], structuredContent: { error: { code, message } }, isError: true };
      }
    });
  }
  return server;
}
