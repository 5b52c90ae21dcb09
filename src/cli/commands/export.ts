import { resolve } from 'node:path';
import { AGENT_PRIMARY, adapterFor, rootsFor } from '../../engine/agents/registry.js';
import { RewindError } from '../../engine/errors.js';
import { runExport } from '../../engine/insight/run.js';
import { insightTimeline } from '../../engine/insight/session-input.js';
import { checkExportTarget, writeExportFile, type ExportTarget } from '../../engine/insight/export-file.js';
import { findPrompt } from './compare.js';
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

export async function exportCommand(args: ExportArgs, io: CliIO): Promise<number> {
  const format = args.format ?? (args.out?.endsWith('.html') ? 'html' : 'md');
  if (format !== 'md' && format !== 'html') throw new RewindError('USAGE', `--format takes md or html (got "${format}")`);
  const out = args.out ? resolve(io.cwd, args.out) : null;
  const roots = rootsFor(io.env, { [AGENT_PRIMARY]: args.claudeDir }).map((r) => r.root);
  // Refused before any work (and checked again as it is written): see writeExportFile.
  if (out) await checkExportTarget(out, { force: args.force, roots });
  const { file, timeline, book, notice } = await insightTimeline(args.session, { cwd: io.cwd, env: io.env, claudeRoot: adapterFor(AGENT_PRIMARY).root(io.env, args.claudeDir) });
  if (notice) io.err(`warning: ${notice}`);
  let branch: string | undefined;
  if (args.branch) {
    const hit = findPrompt(timeline, args.branch);
    if (!hit) throw new RewindError('NOT_FOUND', `no prompt ${args.branch} in session ${timeline.session.id}`);
    branch = hit.uuid;
  }
  const r = await runExport({ file, timeline, book }, { branch, format, redact: args.redact });
  if (!out) io.out(r.content);
  else {
    const target: ExportTarget = { force: args.force, roots, source: file };
    await writeExportFile(out, r.content, target);
    io.out(`Exported ${r.prompts} prompts to ${out}`);
  }
  const total = Object.values(r.redacted).reduce((a, b) => a + b, 0);
  io.err(args.redact ? `${total} secret${total === 1 ? '' : 's'} redacted` : 'warning: secrets were not redacted (--no-redact)');
  return 0;
}
