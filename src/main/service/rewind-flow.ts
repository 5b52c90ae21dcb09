import { stat } from 'node:fs/promises';
import type { AgentAdapter, RewindOutcome as RewindResult } from '../../engine/agents/adapter.js';
import { describeError, RewindError } from '../../engine/errors.js';
import { resolveRestoreTarget, type RestoreSession, type RestoreTarget } from '../../engine/store/restore.js';
import { restoreSessionOf } from '../../engine/store/restore-session.js';
import type { CodePlan, ParsedRequestOf, ResponseOf, RewindEvent } from '../../shared/contract.js';
import { DEAD_RESTORE_REASON } from '../../shared/eligibility.js';
import type { Timeline } from '../../shared/session-schema.js';
import { plural, restoredSummary, restoreOpenNote, revertedSummary } from '../../shared/wording.js';
import { chatDoc, codePlanDoc, revertPlanDoc, rewindSummary } from './documents.js';
import type { OpenSessions } from './open-sessions.js';
import type { TaskRunner } from './task-runner.js';

/** What the flow needs of the service. */
export interface FlowContext {
  runner: TaskRunner;
  open: OpenSessions;
  emit(e: RewindEvent): void;
  /** Each agent's root now. */
  roots(): { adapter: AgentAdapter; root: string }[];
  /** A fresh id for an operation's events. */
  opId(): string;
}

/** The project a session ran in: its cwd, when that folder exists here. */
export async function projectOf(cwd: string | null): Promise<string | null> {
  if (!cwd) return null;
  const st = await stat(cwd).catch(() => null);
  return st?.isDirectory() ? cwd : null;
}

/**
 * The rewind and restore flow, any agent: previews and applies a chat rewind (with its code when
 * asked, both or neither), restores, reverts, undoes and redoes; the heavy work runs on the
 * engine's worker, and a session rewritten in place is read again when next asked for.
 */
export class RewindFlow {
  constructor(private readonly ctx: FlowContext) {}

  /** A session's agent, refusing what it cannot rewind with its own reason. */
  private async rewindable(adapter: AgentAdapter, path: string): Promise<NonNullable<AgentAdapter['rewind']>> {
    const reason = adapter.rewind ? ((await adapter.readOnlyReason?.(path)) ?? null) : `${adapter.displayName} sessions are shown, not rewound, for now`;
    if (reason || !adapter.rewind) throw new RewindError('UNSUPPORTED', reason ?? `${adapter.displayName} sessions are shown, not rewound, for now`);
    return adapter.rewind.bind(adapter);
  }
  /** What restore needs of a session (any agent), off the timeline the service keeps for it. */
  async restoreSession(session: string): Promise<{ session: RestoreSession; agentRoot: string | null }> {
    const { adapter, path } = await this.ctx.open.find(session);
    const timeline = await this.ctx.open.timeline(adapter, path);
    return { session: restoreSessionOf(path, adapter.id, timeline), agentRoot: this.agentRootOf(adapter, path) };
  }
  /** The root an agent's store is read from: the configured one (the primary agent's follows the transcript's own layout). */
  private agentRootOf(adapter: AgentAdapter, path: string): string | null {
    const root = this.ctx.roots().find((r) => r.adapter === adapter)?.root ?? null;
    return root !== null && adapter.storeRootOf ? adapter.storeRootOf(path, root) : root;
  }
  /** A revert's project and the session its prompt ids come from (any agent). */
  private async revertContext(ref: string): Promise<{ projectRoot: string; session: RestoreSession }> {
    const { adapter, path } = await this.ctx.open.find(ref);
    const timeline = await this.ctx.open.timeline(adapter, path);
    const session = restoreSessionOf(path, adapter.id, timeline);
    const projectRoot = await projectOf(timeline.session.cwd);
    if (!projectRoot) throw new RewindError('NOT_FOUND', `the project folder ${timeline.session.cwd ?? '(unknown)'} is not on this machine`);
    return { projectRoot, session };
  }
  /** What a rewind of a session needs: its agent (refusing what it cannot rewind), model and project. */
  private async rewindContext(session: string): Promise<{ adapter: AgentAdapter; path: string; projectRoot: string | null; agentRoot: string | null; timeline: Timeline }> {
    const { adapter, path } = await this.ctx.open.find(session);
    await this.rewindable(adapter, path);
    const agentRoot = this.ctx.roots().find((r) => r.adapter === adapter)?.root ?? null;
    const timeline = await this.ctx.open.timeline(adapter, path);
    return { adapter, path, projectRoot: await projectOf(timeline.session.cwd), agentRoot, timeline };
  }
  /** An agent's own store follows the live path only: a dead prompt's code needs a Rewind checkpoint. */
  private refuseDeadRestore(session: RestoreSession | null, target: RestoreTarget | null): void {
    if (!session || !target || target.source !== 'agent' || !target.promptUuid) return;
    const p = session.prompts.find((x) => x.uuid === target.promptUuid);
    if (p && !p.active) throw new RewindError('NO_CHECKPOINT', DEAD_RESTORE_REASON);
  }
  /** Why a session of this agent is read only (null: it can be rewound). */
  async readOnly(adapter: AgentAdapter, path: string): Promise<string | null> {
    return this.rewindable(adapter, path).then(
      () => null,
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
  }
  private async codeTarget(session: RestoreSession, cwd: string | null, projectRoot: string | null, agentRoot: string | null, chat: RewindResult): Promise<{ target: RestoreTarget | null; note: string | null }> {
    if (!projectRoot) return { target: null, note: `The project folder ${cwd ?? '(unknown)'} is not on this machine: only the chat can be rewound.` };
    const r = await this.ctx.runner.run('codeTarget', { projectRoot, session, promptUuid: chat.prompts[0]!.uuid, boundaryOffset: chat.boundaryOffset, agentRoot });
    return { target: r.target, note: r.missing ? `${r.missing[0]!.toUpperCase()}${r.missing.slice(1)}.` : null };
  }

  async previewRewind(req: ParsedRequestOf<'previewRewind'>): Promise<ResponseOf<'previewRewind'>> {
    const { adapter, path, projectRoot, agentRoot, timeline } = await this.rewindContext(req.session);
    const livePromptCount = timeline.stats.activePrompts;
    const chat = await this.ctx.runner.run('rewind', { agent: adapter.id, transcriptPath: path, promptUuid: req.promptUuid, mode: req.mode, dryRun: true, projectRoot, agentRoot, livePromptCount });
    let code: CodePlan | null = null;
    let codeNote: string | null = null;
    if (req.withCode) {
      const session = restoreSessionOf(path, adapter.id, timeline);
      const storeRoot = this.agentRootOf(adapter, path);
      const t = await this.codeTarget(session, timeline.session.cwd, projectRoot, storeRoot, chat);
      this.refuseDeadRestore(session, t.target);
      codeNote = t.note;
      if (t.target && projectRoot) {
        const preview = await this.ctx.runner.run('previewRestore', { projectRoot, target: t.target, agentRoot: storeRoot });
        code = codePlanDoc(preview, projectRoot);
      }
    }
    return { chat: chatDoc(chat), code, codeNote, summary: rewindSummary(chat, code ? code.changes.length : null) };
  }

  async applyRewind(req: ParsedRequestOf<'applyRewind'>): Promise<ResponseOf<'applyRewind'>> {
    const id = this.ctx.opId();
    const { adapter, path, projectRoot, agentRoot, timeline } = await this.rewindContext(req.session);
    const storeRoot = this.agentRootOf(adapter, path);
    const livePromptCount = timeline.stats.activePrompts;
    // The number the timeline shows, for the fork's label ("fork at #n").
    const promptNumber = timeline.prompts.find((p) => p.uuid === req.promptUuid)?.number ?? undefined;
    const dry = await this.ctx.runner.run('rewind', { agent: adapter.id, transcriptPath: path, promptUuid: req.promptUuid, mode: req.mode, dryRun: true, projectRoot, agentRoot, livePromptCount, expectSize: req.expectSize });
    let target: RestoreTarget | null = null;
    if (req.withCode) {
      const session = restoreSessionOf(path, adapter.id, timeline);
      target = (await this.codeTarget(session, timeline.session.cwd, projectRoot, storeRoot, dry)).target;
      this.refuseDeadRestore(session, target);
      if (target && projectRoot && !req.force) {
        const preview = await this.ctx.runner.run('previewRestore', { projectRoot, target, agentRoot: storeRoot, withDiffs: false });
        if (preview.plan.conflicts > 0) throw new RewindError('CONFLICT', `${plural(preview.plan.conflicts, 'file')} changed outside the agent would be overwritten: nothing was changed`);
      }
    }
    this.ctx.emit({ type: 'operationProgress', id, message: req.mode === 'fork' ? 'Writing the fork…' : 'Rewriting the transcript…', fraction: null });
    // One user action, one journal group: a single Undo reverts the chat and the code together.
    const journalGroup = target && projectRoot ? (await import('node:crypto')).randomUUID() : undefined;
    const chat = await this.ctx.runner.run('rewind', { agent: adapter.id, transcriptPath: path, promptUuid: req.promptUuid, promptNumber, mode: req.mode, force: req.force, projectRoot, agentRoot, livePromptCount, expectSize: req.expectSize, journalGroup });
    let code: ResponseOf<'applyRewind'>['code'] = null;
    if (target && projectRoot) {
      this.ctx.emit({ type: 'operationProgress', id, message: 'Restoring files…', fraction: null });
      let r;
      try {
        r = await this.ctx.runner.run('restore', { projectRoot, target, agentRoot: storeRoot, force: req.force, journalGroup });
      } catch (e) {
        // Both or neither: the chat part is taken back before the error is reported.
        await this.ctx.runner.run('undo', { projectRoot, force: true }).catch(() => undefined);
        if (req.mode === 'in-place') {
          this.ctx.open.forget(path);
        }
        const d = describeError(e);
        throw new RewindError(d.code, `${d.message} (the chat was put back as it was: nothing changed)`);
      }
      code = { written: r.applied?.written ?? 0, deleted: r.applied?.deleted ?? 0, checkpointId: target.checkpoint?.id ?? null };
    }
    if (req.mode === 'in-place') {
      this.ctx.open.forget(path);
    }
    const summary =
      req.mode === 'fork' ? `Fork created: ${chat.forkSessionId}` : `Chat rewritten in place (backup: ${chat.backupPath})`;
    this.ctx.emit({ type: 'operationFinished', id, operation: 'applyRewind', ok: true, summary });
    this.ctx.emit({ type: 'sessionsChanged' });
    const resumeCommand = adapter.resumeCommand(chat.forkSessionId ?? chat.sessionId);
    return { chat: chatDoc(chat), forkSessionId: chat.forkSessionId, forkPath: chat.forkPath, backupPath: chat.backupPath, code, projectRoot, summary, resumeCommand, handBack: chat.handBack ?? null };
  }

  async previewRestore(req: ParsedRequestOf<'previewRestore'>): Promise<ResponseOf<'previewRestore'>> {
    const { session, agentRoot } = req.session ? await this.restoreSession(req.session) : { session: null, agentRoot: null };
    const target = await resolveRestoreTarget({ projectRoot: req.project, ref: req.ref, source: req.source, session, agentRoot });
    this.refuseDeadRestore(session, target);
    const preview = await this.ctx.runner.run('previewRestore', { projectRoot: req.project, target, agentRoot });
    // An agent open in the project: allowed while idle (a busy one refuses the write), but said.
    const { agentOpenIn } = await import('../../engine/agents/open-session.js');
    const hit = await agentOpenIn(req.project, this.ctx.roots(), target.transcriptPath).catch(() => null);
    return { ...codePlanDoc(preview, req.project), openNote: hit ? restoreOpenNote(hit.adapter.displayName, hit.open) : null };
  }

  async applyRestore(req: ParsedRequestOf<'applyRestore'>): Promise<ResponseOf<'applyRestore'>> {
    const { session, agentRoot } = req.session ? await this.restoreSession(req.session) : { session: null, agentRoot: null };
    const target = await resolveRestoreTarget({ projectRoot: req.project, ref: req.ref, source: req.source, session, agentRoot });
    this.refuseDeadRestore(session, target);
    const r = await this.ctx.runner.run('restore', { projectRoot: req.project, target, agentRoot, force: req.force });
    const summary = restoredSummary({ written: r.applied?.written ?? 0, deleted: r.applied?.deleted ?? 0 });
    this.ctx.emit({ type: 'operationFinished', id: this.ctx.opId(), operation: 'applyRestore', ok: true, summary });
    return { written: r.applied?.written ?? 0, deleted: r.applied?.deleted ?? 0, preRestoreId: r.applied?.preRestoreId ?? '', summary };
  }

  async undo(req: ParsedRequestOf<'undo'>): Promise<ResponseOf<'undo'>> {
    const args = { projectRoot: req.project, dryRun: req.dryRun, force: req.force, agentRoots: this.ctx.roots().map((r) => r.root) };
    const r = req.id ? await this.ctx.runner.run('undoById', { ...args, id: req.id }) : await this.ctx.runner.run('undo', args);
    if (!r.dryRun) {
      for (const p of r.parts ?? [r.undone]) if (p.kind === 'in-place') {
        this.ctx.open.forget(p.transcript);
      }
      this.ctx.emit({ type: 'operationFinished', id: this.ctx.opId(), operation: 'undo', ok: true, summary: r.summary });
      this.ctx.emit({ type: 'sessionsChanged' });
    }
    return { kind: r.undone.kind, summary: r.summary, dryRun: r.dryRun, keptAt: r.keptAt, parts: r.parts?.length ?? 1 };
  }

  async revertPreview(req: ParsedRequestOf<'revertPreview'>): Promise<ResponseOf<'revertPreview'>> {
    const { projectRoot, session } = await this.revertContext(req.session);
    const r = await this.ctx.runner.run('revert', { projectRoot, promptId: req.promptUuid, session, take: req.take, dryRun: true });
    return revertPlanDoc(r.preview, projectRoot);
  }

  async revert(req: ParsedRequestOf<'revert'>): Promise<ResponseOf<'revert'>> {
    const { projectRoot, session } = await this.revertContext(req.session);
    const r = await this.ctx.runner.run('revert', { projectRoot, promptId: req.promptUuid, session, take: req.take, force: req.force });
    const summary = revertedSummary(r.applied, req.promptUuid);
    this.ctx.emit({ type: 'operationFinished', id: this.ctx.opId(), operation: 'revert', ok: true, summary });
    return { written: r.applied?.written ?? 0, deleted: r.applied?.deleted ?? 0, journalId: r.applied?.journalId ?? null, summary, projectRoot };
  }

  async redo(req: ParsedRequestOf<'redo'>): Promise<ResponseOf<'redo'>> {
    const r = await this.ctx.runner.run('redo', { projectRoot: req.project, dryRun: req.dryRun, force: req.force, agentRoots: this.ctx.roots().map((x) => x.root) });
    if (!r.dryRun) {
      // A rewrite put back: the open timeline is read again.
      for (const p of r.parts) if (p.kind === 'in-place') {
        this.ctx.open.forget(p.transcript);
      }
      this.ctx.emit({ type: 'operationFinished', id: this.ctx.opId(), operation: 'redo', ok: true, summary: r.summary });
      this.ctx.emit({ type: 'sessionsChanged' });
    }
    return { kind: r.redone.kind, summary: r.summary, dryRun: r.dryRun, parts: r.parts.length };
  }

}
