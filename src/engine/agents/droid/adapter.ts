import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { droidHooks } from './hooks.js';
import type { AgentAdapter } from '../adapter.js';
import { DROID_PROMPTS } from './search.js';

const isSession = (p: string): boolean => p.endsWith('.jsonl') && !basename(p).startsWith('.');

/** A Droid session opens with `{"type":"session_start","id":…}` (FORMATS.md §2b). */
function isDroidFirstLine(first: Buffer | null): boolean {
  if (!first) return false;
  try {
    const v = JSON.parse(first.toString('utf8')) as { type?: unknown; id?: unknown };
    return v.type === 'session_start' && typeof v.id === 'string';
  } catch {
    return false;
  }
}

/** Factory Droid: `~/.factory/sessions/<cwd with / as ->/<id>.jsonl` (+ `.settings.json`). */
export const droid: AgentAdapter = {
  id: 'droid',
  displayName: 'Factory Droid',
  badge: 'Droid',
  hooks: droidHooks,
  codeHistory: {
    label: "Droid's own snapshots",
    covers: 'only files Droid edited are restored',
    before: async (req) => (await import('./code-history.js')).droidCodeBefore(req),
  },

  // The CLI's own override replaces the home folder it puts `.factory` in.
  mcpConfig: async () => (await import('./mcp-config.js')).droidMcpConfig,
  root: (env, override) => override || join(env.FACTORY_HOME_OVERRIDE || env.HOME || homedir(), '.factory'),
  watch: (root) => ({ dirs: [join(root, 'sessions')], depth: 1, isSessionFile: isSession }),
  async sessionFiles(root) {
    const { listDroidFiles } = await import('./discover.js');
    return (await listDroidFiles(root)).map((f) => ({ ...f, sessionId: basename(f.path, '.jsonl') }));
  },
  owns: (path, first) => isSession(path) && isDroidFirstLine(first),
  async find(ref, root) {
    const { findDroidSession } = await import('./discover.js');
    return findDroidSession(ref, root);
  },
  async newestFor(cwd, root) {
    const { listDroidSessions } = await import('./discover.js');
    return (await listDroidSessions({ root, project: cwd }))[0]?.transcriptPath ?? null;
  },

  async summarize(root, opts = {}) {
    const { listDroidSessions } = await import('./discover.js');
    return listDroidSessions({ root, project: opts.project, now: opts.now });
  },
  async timeline(path) {
    const { readDroidTimeline } = await import('./discover.js');
    return readDroidTimeline(path);
  },
  async turn(path, promptUuid) {
    const { droidTurn } = await import('./turn.js');
    return droidTurn(path, promptUuid);
  },
  promptLines: DROID_PROMPTS,

  async rewind(req) {
    const { rewindDroid } = await import('./rewind.js');
    return rewindDroid(req);
  },
  openSessions: async (_root, look) => (await import('./open.js')).droidOpenSessions(look?.processes),
  resumeCommand: (id) => `droid exec -s ${id}`,
  async isLive(path, opts = {}) {
    const st = await stat(path).catch(() => null);
    return !!st && (opts.now ?? Date.now()) - st.mtimeMs < (opts.windowMs ?? 10_000);
  },
};
