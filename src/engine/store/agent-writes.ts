import { join } from 'node:path';
import { appendOwnFile, readOwnText } from '../io/own-file.js';
import { storeDir } from '../project.js';

/** One edit the agent reported (PostToolUse), with the file's hash after it; null: file gone. */
export interface AgentWrite {
  time: string;
  path: string;
  ref: string | null;
  tool: string;
}

const file = (root: string) => join(storeDir(root), 'agent-writes.jsonl');

export async function recordAgentWrite(root: string, w: AgentWrite): Promise<void> {
  // Never through a link the project shipped in its place (it would land outside the project).
  await appendOwnFile(file(root), `${JSON.stringify(w)}\n`);
}

export async function readAgentWrites(root: string, since: string | null): Promise<AgentWrite[]> {
  const raw = (await readOwnText(file(root)).catch(() => null)) ?? '';
  const out: AgentWrite[] = [];
  for (const line of raw.split('\n')) {
    if (!line) continue;
    try {
      const w = JSON.parse(line) as AgentWrite;
      if (typeof w.path === 'string' && (!since || w.time > since)) out.push(w);
    } catch {
      // torn line
    }
  }
  return out;
}
