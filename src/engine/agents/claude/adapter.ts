import { join } from 'node:path';
import { claudeHooks } from './hooks.js';
import type { AgentAdapter, RewindOutcome } from '../adapter.js';
import { isRewindError } from '../../errors.js';
import type { PromptCountCache } from './discover.js';
import type { SessionModel } from './model.js';
import { claudeConfigRoot, claudeRootFor, encodeProjectDir } from './paths.js';
import { listSessionFilesSync } from './list-sync.js';
import { CLAUDE_PROMPTS } from './prompt-lines.js';
import { claudeCodeHistory } from './code-history.js';
import type * as Discover from './discover.js';
import { refuseUnjudged, transcriptReadOnlyReason, type JudgedVersions } from '../judged.js';
import judged from './judged.json' with { type: 'json' };

const JUDGED = judged as JudgedVersions;

/** Claude Code: `<root>/projects/<project>/<session>.jsonl` trees of messages (FORMATS.md §1). */
let discover: Promise<typeof Discover> | null = null;

export const claude: AgentAdapter = {
  id: 'claude',
  displayName: 'Claude Code',
  badge: 'Claude',
  follow: {
    parse: async (path) => (await import('./follow.js')).claudeFollow.parse(path),
    revive: async (parsed, path) => (await import('./follow.js')).claudeFollow.revive(parsed, path),
  },
  codeHistory: claudeCodeHistory,
  checkpointHooks: true,
  hooks: claudeHooks,

  mcpConfig: async () => (await import('./mcp-config.js')).claudeMcpConfig,
  root: (env, override) => override || claudeConfigRoot(env),
  // A transcript under another config folder (a copied session) reads that folder's file history.
  storeRootOf: (path, root) => claudeRootFor(path, root),
  // Project folders and the transcripts in them (old-style `agent-*.jsonl` subagent files included: an open session reads them).
  watch: (root) => ({ dirs: [join(root, 'projects')], depth: 1, isSessionFile: (p) => p.endsWith('.jsonl') }),
  async sessionFiles(root) {
    const { listTranscriptFiles } = await import('./discover.js');
    const files = await listTranscriptFiles(root).catch((e: unknown) => {
      if (isRewindError(e) && e.code === 'NOT_FOUND') return [];
      throw e;
    });
    return files.map((f) => ({ path: f.path, sessionId: f.sessionId, size: f.size, mtimeMs: f.mtimeMs }));
  },
  sessionFilesSync: (root) => listSessionFilesSync(root),
  async relocate(root, from, to) {
    const { readdir, rename } = await import('node:fs/promises');
    const recorded = encodeProjectDir(from);
    for (const d of await readdir(join(root, 'projects'))) {
      if (d.startsWith(recorded)) await rename(join(root, 'projects', d), join(root, 'projects', encodeProjectDir(to) + d.slice(recorded.length)));
    }
  },
  // Claude's lines carry no header: any JSONL no other agent claims (the registry asks it last).
  owns: () => true,
  async find(ref, root) {
    const { findSession } = await import('./discover.js');
    try {
      return (await findSession(ref, root)).path;
    } catch (e) {
      if (isRewindError(e) && e.code === 'NOT_FOUND') return null;
      throw e;
    }
  },
  async newestFor(cwd, root) {
    const { newestSessionFor } = await import('./discover.js');
    return (await newestSessionFor(cwd, root).catch(() => null))?.path ?? null;
  },

  async summarize(root, opts = {}) {
    const { listSessions, PromptCountCache } = await import('./discover.js');
    const { withJournals } = await import('../../journal/session-annotations.js');
    const cache = opts.cacheDir ? await PromptCountCache.load(join(opts.cacheDir, 'prompt-counts.json')) : (countsInMemory ??= new PromptCountCache(null));
    return withJournals(await listSessions({ root, project: opts.project, countBudgetBytes: opts.countBudgetBytes, now: opts.now, cache }));
  },
  async summarizeFile(f, now, ends) {
    // Called once per file of an index build: the module is looked up once, not per call.
    const { summarizeTranscript } = await (discover ??= import('./discover.js'));
    // The index has every prompt already (first, last): the ends only need to give cwd, version and titles.
    return summarizeTranscript(f, now, 16 * 1024, ends);
  },
  async timeline(path) {
    const { parseTranscriptFile } = await import('./parse-transcript.js');
    const { toTimeline } = await import('./timeline.js');
    return toTimeline(await parseTranscriptFile(path));
  },
  async turn(path, promptUuid) {
    const { turnDetail } = await import('./turn-detail.js');
    return turnDetail(await modelOf(path), promptUuid);
  },
  promptLines: CLAUDE_PROMPTS,

  async rewind(req): Promise<RewindOutcome> {
    await refuseUnjudged('Claude Code', req.transcriptPath, JUDGED);
    const { rewindTranscript } = await import('./rewind/rewind.js');
    return rewindTranscript({ ...req, claudeRoot: req.agentRoot ?? null });
  },
  openSessions: async (root) => (await import('./open.js')).claudeOpenSessions(root),
  openMarkerDirs: (root) => [join(root, 'sessions')],
  // Measured: typed in the open TUI, it re-reads the file (FORMATS.md §2d, "Handing back").
  resumeInOpen: (id) => `/resume ${id}`,
  readOnlyReason: (path) => transcriptReadOnlyReason('Claude Code', path, JUDGED),
  resumeCommand: (id) => `claude --resume ${id}`,
  async isLive(path, opts = {}) {
    const { stat } = await import('node:fs/promises');
    const { LIVE_WINDOW_MS } = await import('./discover.js');
    const st = await stat(path).catch(() => null);
    return !!st && (opts.now ?? Date.now()) - st.mtimeMs < (opts.windowMs ?? LIVE_WINDOW_MS);
  },
};

/** The last session read for its turns, reused while its file is unchanged (an export reads many turns). */
let lastModel: { path: string; size: number; mtimeMs: number; model: Promise<SessionModel> } | null = null;
async function modelOf(path: string): Promise<SessionModel> {
  const { stat } = await import('node:fs/promises');
  const st = await stat(path);
  if (lastModel && lastModel.path === path && lastModel.size === st.size && lastModel.mtimeMs === st.mtimeMs) return lastModel.model;
  const { parseTranscriptFile } = await import('./parse-transcript.js');
  lastModel = { path, size: st.size, mtimeMs: st.mtimeMs, model: parseTranscriptFile(path, { withSubagents: true }) };
  return lastModel.model.catch((e: unknown) => {
    lastModel = null;
    throw e;
  });
}

/** The service's counts, kept for the process (the CLI passes `cacheDir` to keep them on disk). */
let countsInMemory: PromptCountCache | undefined;
