import mri from 'mri';
import { describeError, RewindError } from '../engine/errors.js';
import { exitCodeFor, EXIT } from './exit-codes.js';
import { processIO, type CliIO } from './io.js';
import { USAGE } from './usage.js';

declare const __APP_VERSION__: string;

/**
 * Each command's options: the one place a command says what it accepts. Anything else is a usage
 * error (exit 2). Adding a command: one row here (its booleans and its valued options), one case
 * in `run`. `help` and `version` are accepted everywhere.
 */
export const COMMAND_FLAGS: Record<string, { boolean?: readonly string[]; string?: readonly string[] }> = {
  '': { boolean: ['demo'], string: ['claude-dir'] },
  // `host` on the commands that run on a remote host (ON_HOST); on `serve` it is the address to listen on.
  sessions: { boolean: ['json'], string: ['project', 'claude-dir', 'host'] },
  search: { boolean: ['json'], string: ['project', 'agent', 'limit', 'claude-dir', 'host'] },
  timeline: { boolean: ['json'], string: ['claude-dir', 'host'] },
  back: { boolean: ['json', 'in-place', 'both', 'copy', 'dry-run', 'force'], string: ['to', 'transcript', 'project', 'claude-dir', 'host'] },
  hook: { string: ['agent'] },
  hooks: { boolean: ['json', 'dry-run', 'trust'], string: ['agent', 'scope', 'project', 'claude-dir'] },
  checkpoint: { boolean: ['json'], string: ['label', 'project', 'host'] },
  checkpoints: { boolean: ['json'], string: ['project', 'host'] },
  restore: { boolean: ['json', 'dry-run', 'force'], string: ['source', 'project', 'transcript', 'claude-dir', 'host'] },
  undo: { boolean: ['json', 'dry-run', 'force'], string: ['project', 'claude-dir', 'host'] },
  revert: { boolean: ['json', 'dry-run', 'force'], string: ['take', 'project', 'transcript', 'host'] },
  redo: { boolean: ['json', 'dry-run', 'force'], string: ['project', 'claude-dir', 'host'] },
  history: { boolean: ['json'], string: ['project', 'claude-dir', 'host'] },
  compare: { boolean: ['json'], string: ['project', 'claude-dir'] },
  export: { boolean: ['redact', 'force'], string: ['branch', 'format', 'out', 'claude-dir'] },
  mcp: { boolean: ['allow-writes', 'dry-run', 'json'], string: ['agent', 'scope', 'project', 'claude-dir'] },
  serve: { boolean: ['demo', 'stdio'], string: ['port', 'host', 'claude-dir'] },
  remote: { boolean: ['json'], string: ['name'] },
};
const GLOBAL = ['help', 'version', 'h', 'v', '_'];
const allOf = (kind: 'boolean' | 'string') => [...new Set(Object.values(COMMAND_FLAGS).flatMap((f) => f[kind] ?? []))];
const BOOLEAN = [...allOf('boolean'), 'help', 'version'];
const STRING = allOf('string');

/** The usage error for an option the command does not take (one line). */
function checkFlags(command: string | undefined, args: Record<string, unknown>): void {
  const spec = COMMAND_FLAGS[command ?? ''];
  if (!spec) return; // an unknown command is reported as such
  const allowed = new Set([...GLOBAL, ...(spec.boolean ?? []), ...(spec.string ?? [])]);
  for (const k of Object.keys(args)) {
    if (allowed.has(k)) continue;
    const what = command ? `${command} does not take --${k}` : `unknown option --${k}`;
    throw new RewindError('USAGE', `${k.length === 1 ? what.replace(`--${k}`, `-${k}`) : what} (see rewind-app --help)`);
  }
}
/** Commands that write: when the app runs, it performs them (a single writer, the window updates). */
export const FORWARDED: ReadonlySet<string> = new Set(['back', 'restore', 'checkpoint', 'undo', 'revert', 'redo']);
/** Commands that `--host NAME` runs on a remote host (`serve --host` is the address it listens on). */
export const ON_HOST: ReadonlySet<string> = new Set(['sessions', 'search', 'timeline', 'back', 'restore', 'undo', 'history', 'checkpoint', 'checkpoints', 'revert', 'redo']);

/** The command word of an argv, as `run` reads it (options and their values skipped). */
export function commandOf(argv: string[]): string | undefined {
  const args = mri(argv, { boolean: [...BOOLEAN], string: [...STRING], alias: { h: 'help', v: 'version' } });
  const first = args._[0];
  return first === undefined ? undefined : String(first);
}

/** Cheap check before loading the socket client: is there a socket file at all? */
async function appMayBeRunning(io: CliIO): Promise<boolean> {
  const { socketPath } = await import('../main/doors/socket-path.js');
  const path = socketPath(io.env);
  if (process.platform === 'win32') return true;
  const { existsSync } = await import('node:fs');
  return existsSync(path);
}

/**
 * A restore killed half-way is rolled back (or finished) by the next run of any command in its
 * project. Cheap when there is nothing to do: a walk up for `.agent/rewind/` and one stat.
 */
async function recoverInterrupted(project: unknown, io: CliIO, cleanTemps: boolean): Promise<void> {
  const { findProjectRoot } = await import('../engine/project.js');
  const { join, resolve } = await import('node:path');
  const root = await findProjectRoot(resolve(io.cwd, typeof project === 'string' && project ? project : '.')).catch(() => null);
  if (!root) return;
  if (cleanTemps) {
    // What a killed checkpoint left behind (a pre-restore one, say) goes too.
    const { cleanStaleTemps } = await import('../engine/io/atomic-write.js');
    await cleanStaleTemps(join(root, '.agent', 'rewind', 'checkpoints'));
    await cleanStaleTemps(join(root, '.agent', 'rewind'));
  }
  const { existsSync } = await import('node:fs');
  if (!existsSync(join(root, '.agent', 'rewind', 'pending'))) return;
  const { recoverPending } = await import('../engine/store/restore-intent.js');
  try {
    for (const line of await recoverPending(root)) io.err(`rewind-app: ${line}`);
  } catch (e) {
    io.err(`rewind-app: could not finish an interrupted restore: ${describeError(e).message}`);
  }
}

/** Runs one CLI invocation and returns its exit code; never throws. */
export async function run(argv: string[], io: CliIO = processIO()): Promise<number> {
  try {
    // mri pushes aliases into the arrays it is given: hand it fresh ones on every call.
    const given = mri(argv, { boolean: [...BOOLEAN], string: [...STRING], alias: { h: 'help', v: 'version' } });
    const first = given._[0] === undefined ? undefined : String(given._[0]);
    // An agent's hook must never exit non-zero (2 blocks Claude Code's prompt): `hook` ignores what it does not know.
    if (first !== 'hook') checkFlags(first, given);
    const args = mri(argv, { boolean: [...BOOLEAN], string: [...STRING], alias: { h: 'help', v: 'version' }, default: { redact: true } });
    if (args.version) {
      io.out(typeof __APP_VERSION__ === 'string' ? __APP_VERSION__ : 'dev');
      return EXIT.ok;
    }
    const [command, ...rest] = args._.map(String);
    if (args.help || command === 'help') {
      io.out(USAGE);
      return EXIT.ok;
    }
    if (args.host !== undefined && command !== 'serve') {
      if (!command || !ON_HOST.has(command)) throw new RewindError('USAGE', `--host is not taken by ${command ?? 'the app'} (it is for ${[...ON_HOST].join(', ')})`);
      if (typeof args.host !== 'string' || !args.host) throw new RewindError('USAGE', '--host needs the name of a remote host (rewind-app remote list)');
      const { runOnHost, withoutHost } = await import('./remote-run.js');
      return await runOnHost(args.host, withoutHost(argv), io);
    }
    if (command && FORWARDED.has(command) && !io.inApp && !io.env.REWIND_NO_FORWARD && (await appMayBeRunning(io))) {
      const { forwardToApp } = await import('./forward.js');
      const answered = await forwardToApp(argv, io);
      if (answered !== null) return answered;
    }
    // `back` stays lean (it cleans beside the transcript it writes); the others also sweep the store's temps.
    if (command && command !== 'hook' && command !== 'serve' && command !== 'remote' && command !== 'mcp') await recoverInterrupted(args.project, io, command !== 'back');
    const claudeDir = args['claude-dir'] as string | undefined;
    const single = (flag: string): string | undefined => {
      const v = args[flag] as unknown;
      if (Array.isArray(v)) throw new RewindError('USAGE', `--${flag} given more than once`);
      if (v === '') throw new RewindError('USAGE', `--${flag} needs a value`);
      return v as string | undefined;
    };
    const noExtra = (max: number) => {
      if (rest.length > max) throw new RewindError('USAGE', `unexpected argument "${rest[max]}" for ${command}`);
    };
    switch (command) {
      case 'sessions': {
        noExtra(0);
        const { sessionsCommand } = await import('./commands/sessions.js');
        return await sessionsCommand({ project: single('project'), json: !!args.json, claudeDir }, io);
      }
      case 'search': {
        const { searchCommand } = await import('./commands/search.js');
        return await searchCommand({ query: rest.join(' '), json: !!args.json, project: single('project'), agent: single('agent'), limit: single('limit'), claudeDir }, io);
      }
      case 'timeline': {
        noExtra(1);
        const { timelineCommand } = await import('./commands/timeline.js');
        return await timelineCommand({ session: rest[0], json: !!args.json, claudeDir }, io);
      }
      case 'back': {
        noExtra(1);
        const { backCommand, parseCount } = await import('./commands/back.js');
        const to = single('to');
        if (to !== undefined && rest[0] !== undefined) throw new RewindError('USAGE', 'give either n or --to, not both');
        return await backCommand(
          {
            n: parseCount(rest[0]),
            to,
            both: !!args.both,
            inPlace: !!args['in-place'],
            copy: !!args.copy,
            dryRun: !!args['dry-run'],
            json: !!args.json,
            force: !!args.force,
            transcript: single('transcript'),
            project: single('project'),
            claudeDir,
          },
          io,
        );
      }
      case 'hook': {
        const { hookCommand } = await import('./commands/hook.js');
        return await hookCommand(io, typeof args.agent === 'string' ? args.agent : undefined);
      }
      case 'hooks': {
        noExtra(1);
        const { hooksCommand } = await import('./commands/hooks.js');
        return await hooksCommand(
          { action: rest[0], agent: single('agent'), scope: single('scope'), project: single('project'), claudeDir, json: !!args.json, dryRun: !!args['dry-run'], trust: !!args.trust },
          io,
        );
      }
      case 'checkpoint': {
        noExtra(0);
        const { checkpointCommand } = await import('./commands/checkpoint.js');
        return await checkpointCommand({ label: single('label'), project: single('project'), json: !!args.json }, io);
      }
      case 'checkpoints': {
        noExtra(0);
        const { checkpointsCommand } = await import('./commands/checkpoint.js');
        return await checkpointsCommand({ project: single('project'), json: !!args.json }, io);
      }
      case 'restore': {
        noExtra(1);
        const { restoreCommand } = await import('./commands/restore.js');
        return await restoreCommand(
          { ref: rest[0], source: single('source'), dryRun: !!args['dry-run'], json: !!args.json, force: !!args.force, project: single('project'), transcript: single('transcript'), claudeDir },
          io,
        );
      }
      case 'undo': {
        noExtra(1);
        const { undoCommand } = await import('./commands/undo.js');
        return await undoCommand({ id: rest[0], dryRun: !!args['dry-run'], json: !!args.json, force: !!args.force, project: single('project'), claudeDir }, io);
      }
      case 'revert': {
        noExtra(1);
        const { revertCommand } = await import('./commands/revert.js');
        const take = ([] as unknown[]).concat(args.take ?? []).map(String);
        return await revertCommand({ ref: rest[0], take, dryRun: !!args['dry-run'], json: !!args.json, force: !!args.force, project: single('project'), transcript: single('transcript') }, io);
      }
      case 'redo': {
        noExtra(0);
        const { redoCommand } = await import('./commands/redo.js');
        return await redoCommand({ dryRun: !!args['dry-run'], json: !!args.json, force: !!args.force, project: single('project'), claudeDir }, io);
      }
      case 'history': {
        noExtra(0);
        const { historyCommand } = await import('./commands/history.js');
        return await historyCommand({ project: single('project'), json: !!args.json, claudeDir }, io);
      }
      case 'compare': {
        noExtra(2);
        const { compareCommand } = await import('./commands/compare.js');
        return await compareCommand({ a: rest[0], b: rest[1], json: !!args.json, project: single('project'), claudeDir }, io);
      }
      case 'export': {
        noExtra(1);
        const { exportCommand } = await import('./commands/export.js');
        return await exportCommand({ session: rest[0], branch: single('branch'), format: single('format'), out: single('out'), redact: args.redact !== false, force: !!args.force, claudeDir }, io);
      }
      case 'mcp': {
        noExtra(1);
        const { mcpCommand } = await import('./commands/mcp.js');
        return await mcpCommand({ action: rest[0], agent: single('agent'), scope: single('scope'), project: single('project'), allowWrites: !!args['allow-writes'], dryRun: !!args['dry-run'], json: !!args.json, claudeDir }, io);
      }
      case 'serve': {
        noExtra(0);
        const { serveCommand } = await import('./commands/serve.js');
        if (args.stdio) {
          const { serveStdioCommand } = await import('./commands/serve-stdio.js');
          return await serveStdioCommand({ claudeDir, demo: !!args.demo }, io);
        }
        return await serveCommand({ port: single('port'), host: single('host'), claudeDir, demo: !!args.demo }, io);
      }
      case 'remote': {
        noExtra(2);
        const { remoteCommand } = await import('./commands/remote.js');
        return await remoteCommand({ action: rest[0], target: rest[1], name: single('name'), json: !!args.json }, io);
      }
      case undefined: {
        const { openApp } = await import('./commands/open-app.js');
        return await openApp(io, { claudeDir, demo: !!args.demo });
      }
      default:
        throw new RewindError('USAGE', `unknown command "${command}" (see rewind-app --help)`);
    }
  } catch (e) {
    const { code, message } = describeError(e);
    io.err(`rewind-app: ${message}`);
    if (io.env.REWIND_DEBUG && e instanceof Error && e.stack) io.err(e.stack);
    return exitCodeFor(code);
  }
}
