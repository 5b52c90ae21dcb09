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
    const out: string[] = [];
    let inOurs = false;
    for (const line of lines) {
      const h = headerRe.exec(line);
      if (h) {
        const k = keyPath(h[1]!);
        const ours = k[0] === table && k[1] === name;
        // The blank lines that set our section off go with it.
        if (ours && !inOurs) while (out.length && !out[out.length - 1]!.trim()) out.pop();
        // A section after ours stays set off from what came before.
        if (!ours && inOurs && out.length) out.push('');
        inOurs = ours;
      }
      if (!inOurs) out.push(line);
    }
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
      const section = stringifyToml({ [table]: { [name]: { command: entry.command, args: entry.args, ...(entry.env && Object.keys(entry.env).length ? { env: entry.env } : {}) } } });
      const body = rest.replace(/\s*$/, '');
      const next = `${body}${body ? '\n\n' : ''}${section.trim()}\n`;
      parsed(next);
      return next;
    },
    remove(text, name, keepEmpty) {
      if (!Object.hasOwn(servers(parsed(text)), name)) return text;
      const next = cut(text, name);
      if (Object.hasOwn(servers(parsed(next)), name)) throw new RewindError('UNSUPPORTED', `[${table}.${name}] is defined inline or with dotted keys: edit it by hand, nothing was changed`);
      if (!next.trim() && !keepEmpty) return null;
      return next.replace(/\n*$/, text.endsWith('\n') ? '\n' : '');
    },
  };
}
