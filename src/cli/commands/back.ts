import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { rewindTranscript, type RewindResult } from '../../engine/claude/rewind/rewind.js';
import { RewindError } from '../../engine/errors.js';
import { storeDir } from '../../engine/project.js';
import { resolveTranscript } from '../../engine/resolve-transcript.js';
import type { CliIO } from '../io.js';
import { truncate } from '../io.js';

export interface BackArgs {
  n: number;
  both: boolean;
  inPlace: boolean;
  copy: boolean;
  dryRun: boolean;
  json: boolean;
  force: boolean;
  transcript?: string;
  project?: string;
  claudeDir?: string;
}

export function parseCount(raw: unknown): number {
  if (raw === undefined) return 1;
  const s = String(raw);
  if (!/^\d+$/.test(s) || Number(s) <= 0 || !Number.isSafeInteger(Number(s))) {
    throw new RewindError('USAGE', `n must be a whole number of prompts, 1 or more (got "${s}")`);
  }
  return Number(s);
}

export async function backCommand(args: BackArgs, io: CliIO): Promise<number> {
  const resolved = await resolveTranscript({ transcript: args.transcript, project: args.project, cwd: io.cwd, env: io.env, claudeRoot: args.claudeDir });
  io.err(`Transcript: ${resolved.path} (${resolved.source})`);
  const result = await rewindTranscript({
    transcriptPath: resolved.path,
    n: args.n,
    mode: args.inPlace ? 'in-place' : 'fork',
    dryRun: args.dryRun,
    force: args.force,
    projectRoot: resolved.projectRoot,
    claudeRoot: args.claudeDir ?? null,
  });
  let checkpoint: null = null;
  if (args.both) {
    const root = result.projectRoot;
    const store = root ? join(storeDir(root), 'checkpoints') : null;
    const has = store ? await stat(store).catch(() => null) : null;
    io.err(
      has
        ? 'Code restore is not available yet in this version: only the chat was rewound.'
        : `No checkpoint store${root ? ` in ${storeDir(root)}` : ''}: restoring the chat only, the code is unchanged.`,
    );
    checkpoint = null;
  }
  report(result, args, io, checkpoint);
  if (args.copy && !args.json) {
    const text = result.prompts.map((p) => p.text).join('\n\n');
    const { copyToClipboard } = await import('../../engine/clipboard.js');
    const tool = await copyToClipboard(text);
    io.err(tool ? `Copied the reverted prompt${result.prompts.length > 1 ? 's' : ''} to the clipboard (${tool}).` : 'No clipboard tool worked (pbcopy, wl-copy, xclip, xsel, clip.exe): copy the prompt text above.');
  }
  return 0;
}

function report(r: RewindResult, args: BackArgs, io: CliIO, checkpoint: null): void {
  for (const w of r.warnings) io.err(`warning: ${w}`);
  if (args.json) {
    io.out(
      JSON.stringify({
        transcript: r.transcript,
        sessionId: r.sessionId,
        boundaryOffset: r.boundaryOffset,
        resultSize: r.resultSize,
        droppedMessages: r.droppedMessages,
        prompts: r.prompts.map((p) => ({ uuid: p.uuid, text: p.text, timestamp: p.timestamp, images: p.images })),
        mode: r.mode,
        dryRun: r.dryRun,
        forkSessionId: r.forkSessionId,
        forkPath: r.forkPath,
        backupPath: r.backupPath,
        journalId: r.journalId,
        checkpoint,
      }),
    );
  }
  const count = r.prompts.length;
  io.err(`Reverted prompt${count > 1 ? 's' : ''} (${count}), oldest first:`);
  r.prompts.forEach((p, i) => {
    const extra = p.images ? ` [+${p.images} image${p.images > 1 ? 's' : ''}]` : '';
    io.err(`--- ${i + 1} ---\n${p.text}${extra}`);
  });
  if (r.droppedMessages > 0) io.err(`Left out ${r.droppedMessages} message(s) of an abandoned branch so the session resumes where you expect.`);
  if (args.json) return;
  if (r.dryRun) {
    if (r.mode === 'fork') io.out(`Dry run: would fork before prompt "${truncate(r.prompts[0]!.text, 60)}" (cut at byte ${r.boundaryOffset}); nothing written`);
    else io.out(`Dry run: would rewrite in place before prompt "${truncate(r.prompts[0]!.text, 60)}" (cut at byte ${r.boundaryOffset}), backup to ${r.backupPath}; nothing written`);
    return;
  }
  if (r.mode === 'fork') {
    io.out(`Fork created: ${r.forkSessionId}`);
    io.err(`Resume it with: claude --resume ${r.forkSessionId}`);
  } else {
    io.out('Chat rewritten in-place');
    io.out(`Backup: ${r.backupPath}`);
  }
  if (r.journalId) io.err('Undo with: rewind-app undo');
}
