import type { ToolView } from '../../shared/contract.js';
import { blocksText, clip } from './text.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The first of these keys that holds a string. */
function first(input: Record<string, unknown>, keys: string[]): string | null {
  for (const k of keys) if (typeof input[k] === 'string') return input[k];
  return null;
}

/** A command given as a string or as argv (Codex). */
function commandOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) {
    const argv = v.map(String);
    // `bash -lc "<script>"`: the script is what was run.
    if (argv.length === 3 && /(^|\/)(ba|z)?sh$/.test(argv[0]!) && /^-l?c$/.test(argv[1]!)) return argv[2]!;
    return argv.join(' ');
  }
  return null;
}

const blank = (name: string): ToolView => ({ name, view: 'other', path: null, command: null, description: null, content: null, edits: [], input: null, result: null });

/**
 * How a tool call is drawn, from its name and input (Claude Code's and Codex's tools): Write as the
 * file it wrote, Edit as its replacements, Bash as a command, Read/Grep as a path or a pattern.
 * Anything else keeps its input as indented JSON. Long texts are clipped.
 */
export function toolView(name: string, rawInput: unknown): ToolView {
  const t = blank(name);
  if (typeof rawInput === 'string') {
    // Codex's free-form tools (apply_patch) take text, not JSON.
    if (name === 'apply_patch') return { ...t, view: 'patch', command: clip(rawInput), path: /^\*\*\* (?:Add|Update|Delete) File: (.+)$/m.exec(rawInput)?.[1]?.trim() ?? null };
    return { ...t, input: clip(rawInput) };
  }
  const input = rawInput && typeof rawInput === 'object' && !Array.isArray(rawInput) ? (rawInput as Record<string, unknown>) : {};
  const path = first(input, ['file_path', 'notebook_path']);
  const description = str(input.description);
  switch (name) {
    case 'Write':
      return { ...t, view: 'write', path, content: clip(str(input.content) ?? '') };
    case 'Edit':
      return { ...t, view: 'edit', path, edits: [{ oldText: clip(str(input.old_string) ?? ''), newText: clip(str(input.new_string) ?? '') }] };
    case 'MultiEdit': {
      const edits = Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[]) : [];
      return { ...t, view: 'edit', path, edits: edits.slice(0, 50).map((e) => ({ oldText: clip(str(e?.old_string) ?? ''), newText: clip(str(e?.new_string) ?? '') })) };
    }
    case 'NotebookEdit':
      return { ...t, view: 'write', path, content: clip(str(input.new_source) ?? '') };
    case 'Read':
      return { ...t, view: 'read', path };
    case 'Grep':
    case 'Glob':
      return { ...t, view: 'search', command: str(input.pattern), path: first(input, ['path', 'glob']) };
    case 'LS':
      return { ...t, view: 'read', path: str(input.path) };
  }
  const command = name === 'Bash' || name === 'BashOutput' ? str(input.command) : name === 'exec_command' || name === 'shell' || name === 'local_shell' ? commandOf(input.cmd ?? input.command) : null;
  if (command !== null) return { ...t, view: 'bash', command: clip(command), description, path: str(input.workdir) };
  // Where it acted, or what it asked, names the call in its title ("WebFetch https://…").
  return { ...t, path: first(input, ['path', 'url']), description: description ?? first(input, ['query', 'prompt', 'pattern']), input: clip(JSON.stringify(input, null, 2)) };
}

/** A tool result's text; a long one is clipped. */
export function resultOf(content: unknown, isError: boolean): NonNullable<ToolView['result']> {
  return { text: clip(blocksText(content)), isError };
}

/** What the pane names a call by: "Write a.txt", "Bash npm test", "Grep TODO". */
export function toolTitle(v: ToolView): string {
  const what = (v.view === 'bash' || v.view === 'search' ? v.command : (v.path ?? v.description))?.split('\n')[0];
  return what ? `${v.name} ${what.length > 160 ? `${what.slice(0, 159)}…` : what}` : v.name;
}
