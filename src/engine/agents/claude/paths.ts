import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigRoot(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.CLAUDE_CONFIG_DIR;
  return fromEnv && fromEnv.length > 0 ? fromEnv : join(env.HOME || homedir(), '.claude');
}

/** Claude's project folder name for a cwd: every char outside [a-zA-Z0-9] becomes '-'. */
export function encodeProjectDir(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

/** Long names are cut and get a hash suffix, so compare by prefix. */
export function projectDirMatches(dirName: string, cwd: string): boolean {
  const encoded = encodeProjectDir(cwd);
  if (dirName === encoded) return true;
  return encoded.length > 200 && dirName.startsWith(encoded.slice(0, 200));
}

export function fileHistoryDir(root: string, sessionId: string): string {
  return join(root, 'file-history', sessionId);
}

/** `<root>/projects/<dir>/<session>.jsonl` -> `<root>`, when the transcript sits where Claude keeps it. */
export function claudeRootOfTranscript(transcriptPath: string): string | null {
  const parts = transcriptPath.split(/[\\/]/);
  if (parts.length < 4 || parts[parts.length - 3] !== 'projects') return null;
  return parts.slice(0, -3).join('/') || '/';
}

/** Where a session's file history lives: beside its transcript when it sits in Claude's layout, else `fallback`. */
export function claudeRootFor(transcriptPath: string | null | undefined, fallback: string): string {
  return (transcriptPath ? claudeRootOfTranscript(transcriptPath) : null) ?? fallback;
}
