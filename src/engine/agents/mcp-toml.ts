import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { RewindError } from '../errors.js';
import type { McpConfig, McpScope } from './adapter.js';

type Table = Record<string, unknown>;

function parsed(text: string): Table {
  try {
    return parseToml(text) as Table;
  } catch (e) {
    throw new RewindError('IO', `not valid TOML (${e instanceof Error ? e.message.split('\n')[0] : 'parse error'}): fix it first, nothing was changed`);
  }
}

const headerRe = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
const keyPath = (raw: string) => raw.split('.').map((k) => k.trim().replace(/^"(.*)"$|^'(.*)'$/, '$1$2'));

/** The file's line end: CRLF when it has one, else LF (what Rewind adds is written the same way). */
export const tomlEol = (text: string | null): string => (text?.includes('\r\n') ? '\r\n' : '\n');

/**
 * The table header of each line (its key path), null for a line that is none: a line inside a
 * multi-line string (`"""` or `'''`) that looks like a header is text, not a table.
 */
export function tomlHeaders(lines: readonly string[]): (string[] | null)[] {
  let open: '"""' | "'''" | null = null;
  return lines.map((line) => {
    let i = 0;
    let header: string[] | null = null;
    if (!open) {
      const h = headerRe.exec(line.replace(/\r$/, ''));
      if (h) header = keyPath(h[1]!);
    }
    while (i < line.length) {
      if (open) {
        const end = closeOf(line, i, open);
        if (end === -1) return header;
        i = end;
        open = null;
        continue;
      }
      const c = line[i]!;
      if (c === '#') break;
      if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
        open = line.slice(i, i + 3) as '"""' | "'''";
        i += 3;
        continue;
      }
      if (c === '"' || c === "'") {
        // A one-line string: to its closing quote (a basic one's \" escaped).
        let j = i + 1;
        while (j < line.length && line[j] !== c) j += c === '"' && line[j] === '\\' ? 2 : 1;
        i = j + 1;
        continue;
      }
      i++;
    }
    return header;
  });
}

/** Where a multi-line string opened by `delim` ends on `line` from `from` (just after it), or -1. */
function closeOf(line: string, from: number, delim: '"""' | "'''"): number {
  for (let i = from; i < line.length; i++) {
    if (delim === '"""' && line[i] === '\\') {
      i++;
      continue;
    }
    if (line.startsWith(delim, i)) {
      // Up to two quotes right before the closing three belong to the string.
      let end = i + 3;
      while (end < line.length && line[end] === delim[0] && end < i + 5) end++;
      return end;
    }
  }
  return -1;
}

/**
 * The MCP servers of an agent that keeps them as TOML tables (`[mcp_servers.<name>]`, Codex). The
 * server's own tables are cut out of the text and written again at the end; every other line is
 * kept byte for byte (comments too). A server defined some other way (inline, dotted keys) is
 * refused rather than guessed at.
 */
export function tomlMcpConfig(spec: { file(scope: McpScope, ctx: { env: NodeJS.ProcessEnv; project: string }): string; table?: string }): McpConfig {
  const table = spec.table ?? 'mcp_servers';
  const servers = (t: Table) => (t[table] as Table | undefined) ?? {};

  /** The text without the `[table.name]` and `[table.name.*]` sections. */
  function cut(text: string, name: string): string {
    const lines = text.split('\n');
    const headers = tomlHeaders(lines);
    const blank = tomlEol(text) === '\r\n' ? '\r' : '';
    const out: string[] = [];
    let inOurs = false;
    lines.forEach((line, i) => {
      const k = headers[i];
      if (k) {
        const ours = k[0] === table && k[1] === name;
        // The blank lines that set our section off go with it.
        if (ours && !inOurs) while (out.length && !out[out.length - 1]!.trim()) out.pop();
        // A section after ours stays set off from what came before.
        if (!ours && inOurs && out.length) out.push(blank);
        inOurs = ours;
      }
      if (!inOurs) out.push(line);
    });
    return out.join('\n');
  }

  return {
    file: spec.file,
    read(text, name) {
      if (text === null) return null;
      const e = servers(parsed(text))[name] as Table | undefined;
      if (!e) return null;
      return { command: String(e.command ?? ''), args: Array.isArray(e.args) ? e.args.map(String) : [], ...(e.env ? { env: e.env as Record<string, string> } : {}) };
    },
    add(text, name, entry) {
      const rest = this.remove(text ?? '', name) ?? '';
      const eol = tomlEol(text);
      const section = stringifyToml({ [table]: { [name]: { command: entry.command, args: entry.args, ...(entry.env && Object.keys(entry.env).length ? { env: entry.env } : {}) } } })
        .trim()
        .split('\n')
        .join(eol);
      // The user's text stays as it is, to its last byte (blank lines, no newline at the end); ours goes after it, set off by one blank line.
      if (!rest.trim()) return `${section}${eol}`;
      const sep = /\n\r?\n$/.test(rest) ? '' : rest.endsWith('\n') ? eol : eol + eol;
      const next = `${rest}${sep}${section}${!text || text.endsWith('\n') ? eol : ''}`;
      parsed(next);
      return next;
    },
    remove(text, name, keepEmpty) {
      if (!Object.hasOwn(servers(parsed(text)), name)) return text;
      // The line ends left at the end (a CRLF file's lone \r included) become the file's own one, as it had.
      const next = cut(text, name).replace(/[\r\n]*$/, text.endsWith('\n') ? tomlEol(text) : '');
      if (Object.hasOwn(servers(parsed(next)), name)) throw new RewindError('UNSUPPORTED', `[${table}.${name}] is defined inline or with dotted keys: edit it by hand, nothing was changed`);
      if (!next.trim() && !keepEmpty) return null;
      return next;
    },
  };
}
