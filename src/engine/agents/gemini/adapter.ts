import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { geminiHooks } from './hooks.js';
import type { AgentAdapter } from '../adapter.js';
import { GEMINI_PROMPTS } from './search.js';

const isSession = (p: string): boolean => basename(p).startsWith('session-') && p.endsWith('.jsonl') && basename(dirname(p)) === 'chats';

function isGeminiHeader(first: Buffer | null): boolean {
  if (!first) return false;
  try {
    const v = JSON.parse(first.toString('utf8')) as Record<string, unknown>;
    return typeof v.sessionId === 'string' && typeof v.projectHash === 'string';
  } catch {
    return false;
  }
}

/** Gemini CLI: `~/.gemini/tmp/<slug>/chats/session-*.jsonl`, event-sourced (FORMATS.md §2b). */
export const gemini: AgentAdapter = {
  id: 'gemini',
  displayName: 'Gemini CLI',
  badge: 'Gemini',
  hooks: geminiHooks,
  codeHistory: { label: "Gemini's own checkpoints", covers: 'the whole folder as its checkpoint holds it', before: async (req) => (await import('./code-history.js')).geminiCodeBefore(req) },

  // The CLI's own override of its home folder (it puts `.gemini` inside).
  mcpConfig: async () => (await import('./mcp-config.js')).geminiMcpConfig,
  root: (env, override) => override || join(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini'),
  watch: (root) => ({ dirs: [join(root, 'tmp')], depth: 2, isSessionFile: isSession }),
  async sessionFiles(root) {
    const { listGeminiFiles } = await import('./discover.js');
    const { readFirstLine } = await import('../../io/first-line.js');
    const out = [];
    for (const f of await listGeminiFiles(root)) {
      const first = await readFirstLine(f.path).catch(() => null);
      let id = basename(f.path, '.jsonl');
      try {
        id = (JSON.parse(first?.toString('utf8') ?? '') as { sessionId?: string }).sessionId ?? id;
      } catch {
        // a torn header: named by the file
      }
      out.push({ ...f, sessionId: id });
    }
    return out;
  },
  owns: (path, first) => path.endsWith('.jsonl') && isGeminiHeader(first),
  async find(ref, root) {
    const { findGeminiSession } = await import('./discover.js');
    return findGeminiSession(ref, root);
  },
  async newestFor(cwd, root) {
    const { listGeminiSessions } = await import('./discover.js');
    return (await listGeminiSessions({ root, project: cwd }))[0]?.transcriptPath ?? null;
  },

  async summarize(root, opts = {}) {
    const { listGeminiSessions } = await import('./discover.js');
    return listGeminiSessions({ root, project: opts.project, now: opts.now });
  },
  async timeline(path) {
    const { readGeminiTimeline } = await import('./discover.js');
    return readGeminiTimeline(path);
  },
  async turn(path, promptUuid) {
    const { geminiTurn } = await import('./turn.js');
    return geminiTurn(path, promptUuid);
  },
  promptLines: GEMINI_PROMPTS,

  async rewind(req) {
    const { rewindGemini } = await import('./rewind.js');
    return rewindGemini(req);
  },
  openSessions: async (_root, look) => (await import('./open.js')).geminiOpenSessions(look?.processes),
  async sessionIdOf(path) {
    return (await this.timeline(path)).session.id;
  },
  resumeCommand: (id) => `gemini --resume ${id}`,
  async isLive(path, opts = {}) {
    const st = await stat(path).catch(() => null);
    return !!st && (opts.now ?? Date.now()) - st.mtimeMs < (opts.windowMs ?? 10_000);
  },
};
