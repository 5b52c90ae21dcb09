import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { AgentAdapter } from '../adapter.js';
import { copilotHooks } from './hooks.js';
import { COPILOT_PROMPTS } from './search.js';
import { refuseUnjudged, transcriptReadOnlyReason, type JudgedVersions } from '../judged.js';
import judged from './judged.json' with { type: 'json' };

const JUDGED = judged as JudgedVersions;
// Copilot stamps its release on each session.start and session.resume event (`copilotVersion`).
const VERSION_KEY = 'copilotVersion';

const isSession = (p: string): boolean => basename(p) === 'events.jsonl' && !basename(dirname(p)).startsWith('.') && basename(dirname(dirname(p))) === 'session-state';

/** A Copilot session opens with `{"type":"session.start","data":{"sessionId":…}}` (FORMATS.md §2e). */
function isCopilotFirstLine(first: Buffer | null): boolean {
  if (!first) return false;
  try {
    const v = JSON.parse(first.toString('utf8')) as { type?: unknown; data?: { sessionId?: unknown } };
    return v.type === 'session.start' && typeof v.data?.sessionId === 'string';
  } catch {
    return false;
  }
}

/** GitHub Copilot CLI: `~/.copilot/session-state/<id>/events.jsonl` (`COPILOT_HOME` moves `~/.copilot`). */
export const copilot: AgentAdapter = {
  id: 'copilot',
  displayName: 'GitHub Copilot CLI',
  badge: 'Copilot',
  hooks: copilotHooks,
  codeHistory: {
    label: "Copilot's own file snapshots",
    covers: 'only files Copilot saw change during a prompt are restored',
    before: async (req) => (await import('./code-history.js')).copilotCodeBefore(req),
  },

  mcpConfig: async () => (await import('./mcp-config.js')).copilotMcpConfig,
  root: (env, override) => override || env.COPILOT_HOME || join(env.HOME || homedir(), '.copilot'),
  // `<root>/session-state/<id>/events.jsonl`: a session file names its own root (a moved COPILOT_HOME too).
  storeRootOf: (path, root) => (isSession(path) ? dirname(dirname(dirname(path))) : root),
  watch: (root) => ({ dirs: [join(root, 'session-state')], depth: 1, isSessionFile: isSession }),
  async sessionFiles(root) {
    const { listCopilotFiles } = await import('./discover.js');
    const { idOfPath } = await import('./parse.js');
    return (await listCopilotFiles(root)).map((f) => ({ ...f, sessionId: idOfPath(f.path) }));
  },
  owns: (path, first) => basename(path) === 'events.jsonl' && isCopilotFirstLine(first),
  async find(ref, root) {
    const { findCopilotSession } = await import('./discover.js');
    return findCopilotSession(ref, root);
  },
  async newestFor(cwd, root) {
    const { listCopilotSessions } = await import('./discover.js');
    return (await listCopilotSessions({ root, project: cwd }))[0]?.transcriptPath ?? null;
  },

  async summarize(root, opts = {}) {
    const { listCopilotSessions } = await import('./discover.js');
    return listCopilotSessions({ root, project: opts.project, now: opts.now });
  },
  async timeline(path) {
    const { readCopilotTimeline } = await import('./discover.js');
    return readCopilotTimeline(path);
  },
  async turn(path, promptUuid) {
    const { copilotTurn } = await import('./turn.js');
    return copilotTurn(path, promptUuid);
  },
  promptLines: COPILOT_PROMPTS,

  async rewind(req) {
    await refuseUnjudged('GitHub Copilot CLI', req.transcriptPath, JUDGED, VERSION_KEY);
    const { rewindCopilot } = await import('./rewind.js');
    return rewindCopilot(req);
  },
  readOnlyReason: (path) => transcriptReadOnlyReason('GitHub Copilot CLI', path, JUDGED, VERSION_KEY),
  resumeCommand: (id) => `copilot --resume ${id}`,
  async openSessions(root) {
    const { copilotOpenSessions } = await import('./open.js');
    return copilotOpenSessions(root);
  },
  sessionIdOf: async (path) => basename(dirname(path)),
  async isLive(path, opts = {}) {
    const st = await stat(path).catch(() => null);
    if (!st) return false;
    if ((opts.now ?? Date.now()) - st.mtimeMs < (opts.windowMs ?? 10_000)) return true;
    const { copilotHolder } = await import('./open.js');
    return (await copilotHolder(path)) !== null;
  },
};
