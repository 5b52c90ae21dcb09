import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { CodeBefore, CodeBeforeRequest, CodeHistory } from '../adapter.js';

/**
 * Claude Code's `file-history/<session>/` as the agent's code store: what `claude --resume <id>
 * --rewind-files <prompt>` would put back (native-restore.ts), for the files Claude tracked.
 */
export const claudeCodeHistory: CodeHistory = {
  label: "Claude's own file history",
  covers: 'only files Claude edited are restored',
  marksPrompts: true,
  async before(req: CodeBeforeRequest): Promise<CodeBefore | null> {
    const { parseTranscriptFile } = await import('./parse-transcript.js');
    const { nativeTarget } = await import('./native-restore.js');
    const { claudeConfigRoot, claudeRootFor } = await import('./paths.js');
    const parsed = await parseTranscriptFile(req.transcriptPath, { withSubagents: false });
    const live = parsed.prompts.some((p) => p.uuid === req.promptUuid && parsed.active.has(p.uuid));
    // A live prompt Claude took no snapshot for: nothing here (a dead one is refused by nativeTarget).
    if (live && !parsed.snapshots.has(req.promptUuid)) return null;
    // Tracked paths are relative to the session's folder; when that folder is not on this machine
    // (a copied session), the project given stands in for it.
    const model = parsed.cwd && existsSync(parsed.cwd) ? parsed : { ...parsed, cwd: req.projectRoot };
    const root = claudeRootFor(req.transcriptPath, req.agentRoot ?? claudeConfigRoot());
    const t = await nativeTarget(model, req.promptUuid, root, req.projectRoot);
    const files: CodeBefore['files'] = new Map();
    for (const path of t.coverage) {
      const f = t.target.get(path);
      files.set(path, f ? { ref: f.ref, size: f.size, mode: null } : null);
    }
    return {
      files,
      scope: 'tracked',
      read: (ref) => readFile(t.blobs.get(ref) ?? '\0'),
      outside: t.outside,
      unknown: [],
    };
  },
};
