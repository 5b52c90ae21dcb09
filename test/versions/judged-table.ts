import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ALL_ADAPTERS } from '../../src/engine/agents/registry.js';
import { compareVersions, newestJudged, type JudgedVersions } from '../../src/engine/agents/judged.js';

/** Where docs/agents.md keeps the judged-versions table, generated from the agents' judged.json. */
export const TABLE_START = '<!-- judged-versions: generated from src/engine/agents/<id>/judged.json by `npm run conformance -- --write`; a test keeps them equal -->';
export const TABLE_END = '<!-- /judged-versions -->';

export const AGENTS_DIR = join(import.meta.dirname, '..', '..', 'src', 'engine', 'agents');

export interface AgentJudged {
  id: string;
  name: string;
  judged: JudgedVersions;
}

/** Every agent with a judged.json in its folder, in the registry's order. */
export async function readAllJudged(): Promise<AgentJudged[]> {
  const out: AgentJudged[] = [];
  for (const a of ALL_ADAPTERS) {
    const text = await readFile(join(AGENTS_DIR, a.id, 'judged.json'), 'utf8').catch(() => null);
    if (text !== null) out.push({ id: a.id, name: a.displayName, judged: JSON.parse(text) as JudgedVersions });
  }
  return out;
}

/** The markdown table: one row per agent, its judged versions newest first, and what a newer one gets. */
export function judgedTable(agents: AgentJudged[]): string {
  const rows = agents.map(({ id, name, judged: j }) => {
    const versions = [...j.judged].sort((a, b) => compareVersions(b.version, a.version));
    const list = versions.map((v) => `${v.version} (${v.date}: ${v.cases})`).join(', ');
    const newer = j.recordsVersion
      ? `read only (newer than ${j.sameLayout === 'minor' ? newestJudged(j).replace(/^(\d+\.\d+)\..*$/, '$1.x') : newestJudged(j)})`
      : 'rewound (its sessions do not record the CLI version)';
    return `| ${name} (\`${id}\`) | \`${j.cli}\` | ${list} | ${newer} |`;
  });
  return [TABLE_START, '| agent | npm package | judged right (date: conformance cases) | a session of a newer release |', '|---|---|---|---|', ...rows, TABLE_END].join('\n');
}

/** `doc` with its generated block replaced by `table` (or null when the doc has no block). */
export function withTable(doc: string, table: string): string | null {
  const a = doc.indexOf(TABLE_START);
  const b = doc.indexOf(TABLE_END);
  if (a < 0 || b < a) return null;
  return doc.slice(0, a) + table + doc.slice(b + TABLE_END.length);
}
