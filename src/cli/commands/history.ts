import { listHistory } from '../../engine/journal/history.js';
import { projectRootOrCwd } from '../../engine/sessions/resolve-transcript.js';
import { historyTitle, undoableText } from '../../shared/wording.js';
import type { CliIO } from '../io.js';

export interface HistoryArgs {
  project?: string;
  json: boolean;
  claudeDir?: string;
}

export async function historyCommand(args: HistoryArgs, io: CliIO): Promise<number> {
  const root = await projectRootOrCwd({ project: args.project, cwd: io.cwd, env: io.env });
  const { rootsFor } = await import('../../engine/agents/registry.js');
  const agentRoots = rootsFor(io.env, args.claudeDir ? { claude: args.claudeDir } : {}).map((r) => ({ id: r.adapter.id, root: r.root }));
  const entries = await listHistory(root, { agentRoots });
  if (args.json) {
    io.out(JSON.stringify({ projectRoot: root, entries }));
    return 0;
  }
  if (entries.length === 0) {
    io.out(`No operations yet in ${root}`);
    return 0;
  }
  const byId = new Map(entries.map((e) => [e.id, e]));
  for (const e of entries) {
    const of = e.refers ? byId.get(e.refers) : null;
    const who = [e.agent, e.sessionId ? `session ${e.sessionId.slice(0, 8)}` : null].filter(Boolean).join(' · ');
    io.out(`${e.time.replace('T', ' ').slice(0, 19)}  ${e.id.slice(0, 8)}  ${historyTitle({ ...e, of })}${who ? `  (${who})` : ''}`);
    if (e.files.length) io.out(`    files: ${e.files.slice(0, 8).join(', ')}${e.files.length > 8 ? `, and ${e.files.length - 8} more` : ''}`);
    if (e.dropped) io.out(`    ${e.dropped}`);
    io.out(`    ${undoableText(e)}${e.undoable ? ` (rewind-app undo ${e.id.slice(0, 8)})` : ''}`);
  }
  return 0;
}
