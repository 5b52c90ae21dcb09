import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { claudeConfigRoot } from '../../engine/agents/claude/paths.js';
import { RewindError } from '../../engine/errors.js';
import { exportedPrompts, toHtml, toMarkdown } from '../../engine/insight/export.js';
import { insightTimeline, readTurns } from '../../engine/insight/session-input.js';
import { writeFileAtomic } from '../../engine/io/atomic-write.js';
import type { CliIO } from '../io.js';

export interface ExportArgs {
  session?: string;
  branch?: string;
  format?: string;
  out?: string;
  redact: boolean;
  force: boolean;
  claudeDir?: string;
}

const AGENT_NAME: Record<string, string> = { claude: 'Claude Code', codex: 'Codex CLI' };

export async function exportCommand(args: ExportArgs, io: CliIO): Promise<number> {
  const format = args.format ?? (args.out?.endsWith('.html') ? 'html' : 'md');
  if (format !== 'md' && format !== 'html') throw new RewindError('USAGE', `--format takes md or html (got "${format}")`);
  const out = args.out ? resolve(io.cwd, args.out) : null;
  if (out && existsSync(out) && !args.force) throw new RewindError('USAGE', `${out} exists (pass --force to replace it)`);
  const { file, timeline, notice } = await insightTimeline(args.session, { cwd: io.cwd, env: io.env, claudeRoot: args.claudeDir ?? claudeConfigRoot(io.env) });
  if (notice) io.err(`warning: ${notice}`);
  let branch: string | undefined;
  if (args.branch) {
    const n = /^#(\d+)$/.exec(args.branch);
    const hit = n ? timeline.prompts.find((p) => p.number === Number(n[1])) : timeline.prompts.find((p) => p.uuid === args.branch || (args.branch!.length >= 8 && p.uuid.startsWith(args.branch!)));
    if (!hit) throw new RewindError('NOT_FOUND', `no prompt ${args.branch} in session ${timeline.session.id}`);
    branch = hit.uuid;
  }
  const prompts = exportedPrompts(timeline, branch);
  const turns = await readTurns(file, timeline, prompts.map((p) => p.uuid));
  const input = { timeline, agentName: AGENT_NAME[timeline.session.agent] ?? timeline.session.agent, branch, turns, redact: args.redact, exportedAt: new Date().toISOString() };
  const result = format === 'html' ? toHtml(input) : toMarkdown(input);
  if (!out) {
    io.out(result.content);
  } else {
    await writeFileAtomic(out, async (fh) => {
      await fh.writeFile(result.content);
    }, { mode: 0o600 });
    io.out(`Exported ${result.prompts} prompts to ${out}`);
  }
  const total = Object.values(result.redacted).reduce((a, b) => a + b, 0);
  io.err(args.redact ? `${total} secret${total === 1 ? '' : 's'} redacted` : 'warning: secrets were not redacted (--no-redact)');
  return 0;
}
