import { existsSync } from 'node:fs';
import type { AgentAdapter, SessionFile } from '../agents/adapter.js';

export interface Source {
  adapter: AgentAdapter;
  root: string;
}

/** Every source's session files, one list per source (in the sources' order). */
export function listSources(sources: Source[]): Promise<SessionFile[][]> {
  return Promise.all(sources.map(({ adapter, root }) => listFiles(adapter, root)));
}

async function listFiles(adapter: AgentAdapter, root: string): Promise<SessionFile[]> {
  // An agent that is not installed has no sessions: its listing code is not even loaded.
  if (!existsSync(root)) return [];
  try {
    return adapter.sessionFilesSync ? adapter.sessionFilesSync(root) : await adapter.sessionFiles(root);
  } catch {
    return [];
  }
}
