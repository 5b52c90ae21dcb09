import { applyEdits, format, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { RewindError } from '../errors.js';
import type { JsonDialect } from '../hooks/agent-hooks.js';
import type { McpConfig, McpScope, McpServerEntry } from './adapter.js';

/**
 * The MCP config of an agent that keeps its servers as JSON under a key (`mcpServers` for Claude,
 * Qwen, Gemini and Droid). Edits are minimal text edits (jsonc-parser): the rest of the file keeps
 * its comments, order and formatting; an unreadable file is refused, never rewritten.
 */
export function jsonMcpConfig(spec: {
  file(scope: McpScope, ctx: { env: NodeJS.ProcessEnv; project: string }): string;
  /** The agent's own shape of one stdio server. */
  shape(entry: McpServerEntry): Record<string, unknown>;
  /** The agent's shape read back (absent: `{command, args, env}` as Claude's). */
  entry?(e: Record<string, unknown>): McpServerEntry;
  key?: string;
  /** How the agent parses the file (default JSONC); Rewind refuses what the agent would (hooks' `JsonDialect`). */
  jsonc?: JsonDialect;
}): McpConfig {
  const key = spec.key ?? 'mcpServers';
  const jsonc = spec.jsonc ?? true;
  const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };
  const doc = (text: string): Record<string, unknown> => {
    if (!text.trim()) return {};
    const errors: ParseError[] = [];
    const v: unknown = parse(text, errors, { allowTrailingComma: jsonc === true, disallowComments: jsonc === false });
    if (errors.length) throw new RewindError('IO', `not valid JSON (${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}): fix it first, nothing was changed`);
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new RewindError('IO', 'not a JSON object: nothing was changed');
    const servers = (v as Record<string, unknown>)[key];
    if (servers !== undefined && (!servers || typeof servers !== 'object' || Array.isArray(servers))) throw new RewindError('IO', `"${key}" is not an object: nothing was changed`);
    return v as Record<string, unknown>;
  };
  return {
    file: spec.file,
    read(text, name) {
      if (text === null) return null;
      const e = (doc(text)[key] as Record<string, unknown> | undefined)?.[name] as Record<string, unknown> | undefined;
      if (!e || typeof e !== 'object') return null;
      if (spec.entry) return spec.entry(e);
      const env = e.env && typeof e.env === 'object' && Object.keys(e.env).length ? { env: e.env as Record<string, string> } : {};
      return { command: String(e.command ?? ''), args: Array.isArray(e.args) ? e.args.map(String) : [], ...env };
    },
    add(text, name, entry) {
      if (!text?.trim()) return applyEdits('{}\n', modify('{}\n', [key, name], spec.shape(entry), FORMAT));
      doc(text);
      // Inserted as is, then only the inserted text formatted: the servers beside it keep their layout.
      const edits = modify(text, [key, name], spec.shape(entry), {});
      const next = applyEdits(text, edits);
      return applyEdits(next, format(next, { offset: edits[0]!.offset, length: edits[0]!.content.length }, FORMAT.formattingOptions));
    },
    remove(text, name, keepEmpty) {
      const servers = doc(text)[key] as Record<string, unknown> | undefined;
      if (!servers || !Object.hasOwn(servers, name)) return text;
      // The container goes with its last server: an empty one and none mean the same to the agent.
      const path = Object.keys(servers).length === 1 ? [key] : [key, name];
      // No formatting: only the server's own text (and its comma) goes.
      const next = applyEdits(text, modify(text, path, undefined, {}));
      return !keepEmpty && /^\s*(\{\s*\})?\s*$/.test(next) ? null : next;
    },
  };
}
