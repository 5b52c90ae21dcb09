import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { HookEvent, HookPayload, HookPlace, HookScope } from '../hooks/agent-hooks.js';

/**
 * Pieces the agents' `hooks.ts` share: reading a prompt id off the end of a session file, and
 * telling a payload's tool apart (names a file, changes nothing, or a shell whose effects are
 * unknown).
 */

/** Reads the session file from `offset` to its end (what was written since a hook last looked). */
async function readFrom(path: string, offset: number): Promise<Buffer> {
  // Non-blocking, a regular file only: a hook must never wait on a FIFO named as the session file.
  const fh = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = await fh.stat();
    if (!st.isFile()) return Buffer.alloc(0);
    const { size } = st;
    const start = Math.max(0, Math.min(offset, size));
    const buf = Buffer.alloc(size - start);
    if (buf.length) await fh.read(buf, 0, buf.length, start);
    return buf;
  } finally {
    await fh.close();
  }
}

/** The first whole JSON line at or after `offset` that `pick` names a prompt id for. */
export async function firstPromptAfter(path: string, offset: number, pick: (v: Record<string, unknown>) => string | null): Promise<string | null> {
  const buf = await readFrom(path, offset).catch(() => null);
  if (!buf) return null;
  let start = 0;
  for (;;) {
    const nl = buf.indexOf(0x0a, start);
    if (nl === -1) return null;
    const text = buf.subarray(start, nl).toString('utf8').trim();
    start = nl + 1;
    if (!text.startsWith('{')) continue;
    try {
      const v = JSON.parse(text) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        const id = pick(v as Record<string, unknown>);
        if (id) return id;
      }
    } catch {
      // a torn line: not a prompt
    }
  }
}

export interface ToolNames {
  /** Tools whose input names the file(s) they write, with the input fields holding the paths. */
  files: Record<string, readonly string[]>;
  /** Tools that change nothing on disk. */
  readOnly: ReadonlySet<string>;
}

/** A tool call: the paths it names, or null (a shell, an unknown tool: a full scan covers it). */
export function toolEvent(p: HookPayload, phase: 'pre' | 'post', names: ToolNames, extra?: (p: HookPayload) => string[] | null): HookEvent {
  const tool = typeof p.tool_name === 'string' ? p.tool_name : '';
  if (names.readOnly.has(tool)) return { kind: 'tool', phase, tool, files: [], readOnly: true };
  const fields = names.files[tool];
  if (fields) {
    const input = p.tool_input ?? {};
    const files = fields.map((f) => input[f]).filter((v): v is string => typeof v === 'string' && v.length > 0);
    return { kind: 'tool', phase, tool, files: files.length ? files : null, readOnly: false };
  }
  const named = extra?.(p) ?? null;
  return { kind: 'tool', phase, tool, files: named, readOnly: false };
}

/** The usual places: the agent's own folder for the user, `<project>/<dir>/` for the project. */
export function configIn(scope: HookScope, place: HookPlace, projectDirName: string, file: string): string {
  return scope === 'user' ? join(place.agentHome, file) : join(place.projectRoot, projectDirName, file);
}

export const absOrNull = (v: unknown): string | null => (typeof v === 'string' && isAbsolute(v) ? v : null);

/** What differs between the agents whose hooks send Claude Code's events. */
export interface ClaudeStyleHooks {
  names: ToolNames;
  /** A session's start begins a turn (the agent sends no prompt event for its first prompt). */
  sessionTurn: boolean;
  /** What a prompt submission stands for. */
  prompt: (p: HookPayload) => HookEvent;
  /** Paths a tool call names beyond `names` (a patch's files). */
  extra?: (p: HookPayload) => string[] | null;
}

/**
 * A payload of Claude Code's events (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop),
 * which Codex, Droid and Qwen send too, as the event it stands for.
 */
export function claudeStyleEvent(p: HookPayload, how: ClaudeStyleHooks): HookEvent {
  switch (p.hook_event_name) {
    case 'SessionStart':
      return { kind: 'session', turn: how.sessionTurn };
    case 'UserPromptSubmit':
      return how.prompt(p);
    case 'PreToolUse':
      return toolEvent(p, 'pre', how.names, how.extra);
    case 'PostToolUse':
      return toolEvent(p, 'post', how.names, how.extra);
    case 'Stop':
      return { kind: 'stop' };
    default:
      return { kind: 'other' };
  }
}
