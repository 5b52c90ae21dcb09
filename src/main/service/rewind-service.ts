import { findSession } from '../../engine/claude/discover.js';
import { listSessions } from '../../engine/claude/discover.js';
import { claudeConfigRoot } from '../../engine/claude/paths.js';
import { parseTranscriptFile } from '../../engine/claude/parse-transcript.js';
import { toTimeline } from '../../engine/claude/timeline.js';
import { describeError } from '../../engine/errors.js';
import { CONTRACT, type RequestOf, type ResponseOf, type Result } from '../../shared/contract.js';
import type { OperationName } from '../../shared/operations.js';

export interface ServiceOptions {
  claudeRoot?: string;
}

/**
 * Everything the UI can ask for, in plain Node (no Electron): the Electron IPC door and the HTTP
 * door both call `handle`, which validates the request against the contract first.
 */
export class RewindService {
  readonly claudeRoot: string;

  constructor(opts: ServiceOptions = {}) {
    this.claudeRoot = opts.claudeRoot ?? claudeConfigRoot();
  }

  async listSessions(req: RequestOf<'listSessions'>): Promise<ResponseOf<'listSessions'>> {
    return { root: this.claudeRoot, sessions: await listSessions({ root: this.claudeRoot, project: req.project }) };
  }

  async getTimeline(req: RequestOf<'getTimeline'>): Promise<ResponseOf<'getTimeline'>> {
    const file = await findSession(req.session, this.claudeRoot);
    return toTimeline(await parseTranscriptFile(file.path));
  }

  /** Validates an untrusted request and runs it; errors come back as `{code, message}`. */
  async handle(name: string, payload: unknown): Promise<Result<unknown>> {
    if (!Object.hasOwn(CONTRACT, name)) return { ok: false, error: { code: 'USAGE', message: `unknown operation "${name}"` } };
    const op = name as OperationName;
    const parsed = CONTRACT[op].request.safeParse(payload ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
      return { ok: false, error: { code: 'INVALID_REQUEST', message: `invalid ${op} request${where}: ${issue?.message ?? 'bad payload'}` } };
    }
    try {
      const value = await (this[op] as (r: unknown) => Promise<unknown>).call(this, parsed.data);
      return { ok: true, value };
    } catch (e) {
      return { ok: false, error: describeError(e) };
    }
  }
}
