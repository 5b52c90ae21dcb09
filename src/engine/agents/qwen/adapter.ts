import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { qwenHooks } from './hooks.js';
import type { AgentAdapter } from '../adapter.js';
import { QWEN_PROMPTS } from './search.js';
import { refuseUnjudged, transcriptReadOnlyReason, type JudgedVersions } from '../judged.js';
import judged from './judged.json' with { type: 'json' };

const JUDGED = judged as JudgedVersions;

const isSession = (p: string): boolean => p.endsWith('.jsonl') && basename(dirname(p)) === 'chats' && !basename(p).startsWith('.');

/** A Qwen record: `uuid`, `sessionId` and Gemini-style `message.parts` or a `system` subtype. */
function isQwenLine(first: Buffer | null): boolean {
  if (!first) return false;
  try {
    const v = JSON.parse(first.toString('utf8')) as Record<string, unknown>;
    const m = v.message as Record<string, unknown> | undefined;
    return typeof v.uuid === 'string' && typeof v.sessionId === 'string' && (Array.isArray(m?.parts) || (v.type === 'system' && typeof v.subtype === 'string' && 'systemPayload' in v));
  } catch {
    return false;
  }
}

/** Qwen Code: `~/.qwen/projects/<cwd with / as ->/chats/<sessionId>.jsonl`, a tree (FORMATS.md §2b). */
export const qwen: AgentAdapter = {
  id: 'qwen',
  displayName: 'Qwen Code',
  badge: 'Qwen',
  hooks: qwenHooks,
  codeHistory: {
    label: "Qwen's own file history",
    covers: 'only files Qwen edited are restored',
    before: async (req) => (await import('./code-history.js')).qwenCodeBefore(req),
  },

  // The CLI's own overrides: QWEN_RUNTIME_DIR holds projects/, else QWEN_HOME, else ~/.qwen.
  mcpConfig: async () => (await import('./mcp-config.js')).qwenMcpConfig,
  root: (env, override) => override || env.QWEN_RUNTIME_DIR || env.QWEN_HOME || join(env.HOME || homedir(), '.qwen'),
  watch: (root) => ({ dirs: [join(root, 'projects')], depth: 2, isSessionFile: isSession }),
  async sessionFiles(root) {
    const { listQwenFiles } = await import('./discover.js');
    return (await listQwenFiles(root)).map((f) => ({ ...f, sessionId: basename(f.path, '.jsonl') }));
  },
  owns: (path, first) => path.endsWith('.jsonl') && isQwenLine(first),
  async find(ref, root) {
    const { findQwenSession } = await import('./discover.js');
    return findQwenSession(ref, root);
  },
  async newestFor(cwd, root) {
    const { listQwenSessions } = await import('./discover.js');
    return (await listQwenSessions({ root, project: cwd }))[0]?.transcriptPath ?? null;
  },

  async summarize(root, opts = {}) {
    const { listQwenSessions } = await import('./discover.js');
    return listQwenSessions({ root, project: opts.project, now: opts.now });
  },
  async timeline(path) {
    const { readQwenTimeline } = await import('./discover.js');
    return readQwenTimeline(path);
  },
  async turn(path, promptUuid) {
    const { qwenTurn } = await import('./turn.js');
    return qwenTurn(path, promptUuid);
  },
  promptLines: QWEN_PROMPTS,

  async rewind(req) {
    await refuseUnjudged('Qwen Code', req.transcriptPath, JUDGED);
    const { rewindQwen } = await import('./rewind.js');
    return rewindQwen(req);
  },
  openSessions: async (root) => (await import('./open.js')).qwenOpenSessions(root),
  readOnlyReason: (path) => transcriptReadOnlyReason('Qwen Code', path, JUDGED),
  openMarkerDirs: (root) => [join(root, 'sessions')],
  resumeCommand: (id) => `qwen --resume ${id}`,
  async isLive(path, opts = {}) {
    const st = await stat(path).catch(() => null);
    return !!st && (opts.now ?? Date.now()) - st.mtimeMs < (opts.windowMs ?? 10_000);
  },
};
