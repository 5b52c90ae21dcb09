import type { AgentAdapter, RewindOutcome as RewindResult } from '../../engine/agents/adapter.js';
import { adapterOfFile } from '../../engine/agents/registry.js';
import { RewindError } from '../../engine/errors.js';
import { resolveTranscript } from '../../engine/sessions/resolve-transcript.js';
import { promptOfRef } from '../../engine/prompts/ref.js';
import type { CliIO } from '../io.js';
import type { RestoreResult, RestoreSession, RestoreTarget } from '../../engine/store/restore.js';
import { truncate } from '../io.js';
import { plural, statementLines } from '../../shared/wording.js';

export interface BackArgs {
  n: number;
  /** `--to`: a prompt uuid (any branch) or `#n` (the n-th prompt of the live path). */
  to?: string;
  both: boolean;
  inPlace: boolean;
  copy: boolean;
  dryRun: boolean;
  json: boolean;
  force: boolean;
  transcript?: string;
  project?: string;
  claudeDir?: string;
}

export function parseCount(raw: unknown): number {
  if (raw === undefined) return 1;
  const s = String(raw);
  if (!/^\d+$/.test(s) || Number(s) <= 0 || !Number.isSafeInteger(Number(s))) {
    throw new RewindError('USAGE', `n must be a whole number of prompts, 1 or more (got "${s}")`);
  }
  return Number(s);
}

/** Below this size the CLI reads the whole session so the statement numbers prompts (#n) as the window does. */
const NUMBERING_MAX_BYTES = 16 * 1024 * 1024;

/** The target (`--to`) and the live prompt count, from the whole session; skipped for a big file's `back n` (the fast path). */
async function locate(adapter: AgentAdapter, path: string, args: BackArgs): Promise<{ promptUuid?: string; livePromptCount: number | null }> {
  if (!args.to) {
    const { stat } = await import('node:fs/promises');
    const size = (await stat(path).catch(() => null))?.size ?? Infinity;
    if (size > NUMBERING_MAX_BYTES) return { livePromptCount: null };
  }
  const t = await adapter.timeline(path);
  const livePromptCount = t.stats.activePrompts;
  if (!args.to) return { livePromptCount };
  return { promptUuid: promptOfRef(t, args.to), livePromptCount };
}

export async function backCommand(args: BackArgs, io: CliIO): Promise<number> {
  // Run from the agent's own shell (`! rewind-app back 1`): the session that agent has open.
  const inside = args.transcript || io.env.REWIND_TRANSCRIPT_PATH ? null : await insideSession(args, io);
  const resolved = await resolveTranscript({ transcript: args.transcript ?? inside?.path, project: args.project, cwd: io.cwd, env: io.env, claudeRoot: args.claudeDir });
  io.err(`Transcript: ${resolved.path} (${inside ? `inside ${inside.name} pid ${inside.pid}` : resolved.source})`);
  const adapter = await adapterOfFile(resolved.path);
  const reason = adapter.rewind ? await adapter.readOnlyReason?.(resolved.path) : `${adapter.displayName} sessions are shown (rewind-app timeline), not rewound, for now`;
  if (reason || !adapter.rewind) throw new RewindError('UNSUPPORTED', `${resolved.path}: ${reason}`);
  const where = await locate(adapter, resolved.path, args);
  const common = {
    transcriptPath: resolved.path,
    n: args.n,
    promptUuid: where.promptUuid,
    livePromptCount: where.livePromptCount,
    mode: args.inPlace ? ('in-place' as const) : ('fork' as const),
    force: args.force,
    projectRoot: resolved.projectRoot,
    here: io.cwd,
    agentRoot: args.claudeDir ?? null,
  };
  // With --both the code part is planned first: a conflict stops everything before any write.
  let code: CodePlan | null = null;
  if (args.both) code = await planCode(adapter, common, args, io);
  // One action, one undo: the chat and the code share a journal group.
  const journalGroup = code ? (await import('node:crypto')).randomUUID() : undefined;
  const result = await adapter.rewind({ ...common, dryRun: args.dryRun, journalGroup });
  let checkpoint: CodeReport | null = null;
  if (code) checkpoint = await applyCode(code, result.prompts[0]!.uuid, result.boundaryOffset, args, io, journalGroup);
  report(result, args, io, checkpoint, adapter, inside);
  if (args.copy && !args.json) {
    const text = result.prompts.map((p) => p.text).join('\n\n');
    const { copyToClipboard } = await import('../../engine/io/clipboard.js');
    const tool = await copyToClipboard(text);
    io.err(tool ? `Copied the reverted prompt${result.prompts.length > 1 ? 's' : ''} to the clipboard (${tool}).` : 'No clipboard tool worked (pbcopy, wl-copy, xclip, xsel, clip.exe): copy the prompt text above.');
  }
  return 0;
}

/** The session of the agent this command runs inside (an ancestor process a live marker names), if any. */
async function insideSession(args: BackArgs, io: CliIO): Promise<{ path: string; name: string; pid: number } | null> {
  const { AGENT_PRIMARY, rootsFor } = await import('../../engine/agents/registry.js');
  const { insideAgent } = await import('../../engine/agents/open-session.js');
  const roots = rootsFor(io.env, { [AGENT_PRIMARY]: args.claudeDir });
  const found = await insideAgent(roots).catch(() => null);
  if (!found?.marker.sessionId) return null;
  const root = roots.find((r) => r.adapter.id === found.adapter.id)!.root;
  const path = await found.adapter.find(found.marker.sessionId, root).catch(() => null);
  return path ? { path, name: found.adapter.displayName, pid: found.marker.pid } : null;
}

function report(r: RewindResult, args: BackArgs, io: CliIO, checkpoint: CodeReport | null, adapter: AgentAdapter, inside: { pid: number } | null = null): void {
  for (const w of r.warnings) io.err(`warning: ${w}`);
  if (args.json) {
    io.out(
      JSON.stringify({
        transcript: r.transcript,
        sessionId: r.sessionId,
        boundaryOffset: r.boundaryOffset,
        resultSize: r.resultSize,
        droppedMessages: r.droppedMessages,
        prompts: r.prompts.map((p) => ({ uuid: p.uuid, text: p.text, timestamp: p.timestamp, images: p.images })),
        statement: r.statement ?? null,
        statementText: r.statement ? statementLines(r.statement) : null,
        mode: r.mode,
        dryRun: r.dryRun,
        forkSessionId: r.forkSessionId,
        forkPath: r.forkPath,
        backupPath: r.backupPath,
        journalId: r.journalId,
        resumeCommand: r.dryRun ? null : adapter.resumeCommand(r.forkSessionId ?? r.sessionId),
        open: r.open ?? null,
        handBack: r.handBack ?? null,
        checkpoint,
      }),
    );
  }
  const handed = r.statement?.handedBack ?? r.prompts.map((p) => ({ ...p, number: null }));
  io.err(`Handed back to edit (${handed.length}), oldest first:`);
  handed.forEach((p, i) => {
    const extra = p.images ? ` [+${plural(p.images, 'image')}]` : '';
    io.err(`--- ${p.number !== null ? `#${p.number}` : i + 1} ---\n${p.text}${extra}`);
  });
  if (r.droppedMessages > 0) io.err(`Left out ${plural(r.droppedMessages, 'message')} of an abandoned branch so the session resumes where you expect.`);
  if (args.json) return;
  // The same statement the window's preview shows, first.
  const said = r.statement ? statementLines(r.statement) : [];
  if (r.dryRun) {
    for (const line of said) io.out(line);
    if (r.mode === 'fork') io.out(`Dry run: would fork before prompt "${truncate(r.prompts[0]!.text, 60)}" (cut at byte ${r.boundaryOffset}); nothing written`);
    else if (r.handBack) io.out(`Dry run: the running ${adapter.displayName} would rewind in place before prompt "${truncate(r.prompts[0]!.text, 60)}", the whole session backed up to ${r.backupPath}; nothing changed`);
    else io.out(`Dry run: would rewrite in place before prompt "${truncate(r.prompts[0]!.text, 60)}" (cut at byte ${r.boundaryOffset}), backup to ${r.backupPath}; nothing written`);
    return;
  }
  for (const line of said) io.err(line);
  if (r.mode === 'fork') {
    io.out(`Fork created: ${r.forkSessionId}`);
    io.err(`Resume it with: ${adapter.resumeCommand(r.forkSessionId!)}`);
    // The agent that has the original open (we may run inside it): one line how to go on there.
    if (r.open && inside && inside.pid === r.open.pid && adapter.resumeInOpen) io.out(`Inside ${adapter.displayName} (pid ${inside.pid}): type ${adapter.resumeInOpen(r.forkSessionId!)} to continue on the fork`);
    else if (r.handBack) io.out(r.handBack);
  } else {
    io.out('Chat rewritten in-place');
    io.out(`Backup: ${r.backupPath}`);
    // Applied by the agent that has it open: which one, and that it goes on without the removed prompts.
    if (r.handBack) io.out(r.handBack);
  }
  // Each change is its own journal entry, undone newest first: the code, then the chat.
  if (r.journalId) io.err(checkpoint?.applied ? 'Undo with: rewind-app undo (puts back both the chat and the code)' : 'Undo with: rewind-app undo');
}

interface CodePlan {
  session: RestoreSession;
  projectRoot: string;
  /** `--claude-dir`, for the primary agent's store. */
  agentRoot: string | undefined;
  /** What the code goes back to, for the prompt the plan expected to revert. */
  target: RestoreTarget;
}

interface CodeReport {
  source: string;
  checkpointId: string | null;
  changes: { path: string; action: string; conflict: string | null }[];
  applied: RestoreResult['applied'];
}

type RewindCommon = Omit<Parameters<NonNullable<AgentAdapter['rewind']>>[0], 'dryRun' | 'journalGroup'>;

async function planCode(adapter: AgentAdapter, common: RewindCommon, args: BackArgs, io: CliIO): Promise<CodePlan | null> {
  const { restoreSessionOf } = await import('../../engine/store/restore-session.js');
  const timeline = await adapter.timeline(common.transcriptPath);
  const session = restoreSessionOf(common.transcriptPath, adapter.id, timeline);
  const root = common.projectRoot ?? timeline.session.cwd;
  if (!root) {
    io.err('No project folder known for the code: restoring the chat only.');
    return null;
  }
  // Find the target now (dry) so conflicts stop us before the chat is touched.
  const dry = await adapter.rewind!({ ...common, mode: 'fork', dryRun: true, projectRoot: root });
  const first = dry.prompts[0]!.uuid;
  const targetLive = dry.statement ? dry.statement.targetLive : (session.prompts.find((p) => p.uuid === first)?.active ?? true);
  const { checkpointForPrompt, nothingForPrompt, targetForRewind, restore } = await import('../../engine/store/restore.js');
  if (!targetLive && !(await checkpointForPrompt(root, first, session))) {
    const store = adapter.codeHistory ? `${adapter.codeHistory.label} covers the live path only` : `${adapter.displayName} keeps no file history of its own`;
    throw new RewindError('NO_CHECKPOINT', `that prompt is on an abandoned branch and Rewind took no checkpoint before it: ${store} (fork there without --both, or restore the code of a live prompt)`);
  }
  const { AGENT_PRIMARY } = await import('../../engine/agents/registry.js');
  const agentRoot = adapter.id === AGENT_PRIMARY ? args.claudeDir : undefined;
  const target = await targetForRewind(root, session, first, dry.boundaryOffset, { agentRoot });
  if (!target) {
    io.err(`Code: ${await nothingForPrompt(session, root)}.`);
    return null;
  }
  const preview = await restore(root, target, { agentRoot, dryRun: true, withDiffs: false });
  if (preview.preview.plan.conflicts > 0 && !args.force && !args.dryRun) {
    const list = preview.preview.plan.changes.filter((c) => c.conflict).map((c) => c.path);
    throw new RewindError('CONFLICT', `${plural(list.length, 'file')} changed outside the agent would be overwritten: ${list.slice(0, 5).join(', ')} (nothing was changed; pass --force to go ahead)`);
  }
  return { session, projectRoot: root, agentRoot, target };
}

async function applyCode(code: CodePlan, promptUuid: string, boundary: number, args: BackArgs, io: CliIO, journalGroup: string | undefined): Promise<CodeReport | null> {
  const { nothingForPrompt, targetForRewind, restore } = await import('../../engine/store/restore.js');
  // The transcript may have grown between plan and rewind, changing which prompt was reverted.
  const target = code.target.promptUuid === promptUuid ? code.target : await targetForRewind(code.projectRoot, code.session, promptUuid, boundary, { agentRoot: code.agentRoot });
  if (!target) {
    io.err(`Code: ${await nothingForPrompt(code.session, code.projectRoot)}.`);
    return null;
  }
  io.err(`Code: ${target.note}`);
  const r = await restore(code.projectRoot, target, { agentRoot: code.agentRoot, dryRun: args.dryRun, force: args.force, journalGroup });
  if (!args.json) {
    const { printRestore } = await import('./restore.js');
    printRestore(r, { json: false, dryRun: args.dryRun, undoHint: false }, { ...io, out: io.err });
  }
  return {
    source: target.source === 'agent' ? (target.agent ?? 'agent') : 'rewind',
    checkpointId: target.checkpoint?.id ?? null,
    changes: r.preview.plan.changes.map((c) => ({ path: c.path, action: c.action, conflict: c.conflict })),
    applied: r.applied,
  };
}
