import { RewindError } from '../../engine/errors.js';
import { hostNamed, nameFor, readRemotes, RemoteHostSchema, remotesFile, writeRemotes, type RemoteHost } from '../../engine/remote/remotes.js';
import { checkRemote } from '../../engine/remote/ssh-run.js';
import type { CliIO } from '../io.js';
import { EXIT } from '../exit-codes.js';
import { LOCAL_VERSION } from '../remote-run.js';

export interface RemoteArgs {
  action?: string;
  target?: string;
  name?: string;
  json: boolean;
}

/** `rewind-app remote add|list|remove`: the hosts the window and `--host` reach over ssh. */
export async function remoteCommand(args: RemoteArgs, io: CliIO): Promise<number> {
  const file = remotesFile(io.env);
  const { hosts, warning } = await readRemotes(file);
  if (warning) io.err(`rewind-app: ${warning}`);
  switch (args.action) {
    case 'add': {
      if (!args.target) throw new RewindError('USAGE', 'remote add needs an ssh target: rewind-app remote add <user@host | ssh alias> [--name N]');
      const name = args.name ?? nameFor(args.target);
      const parsed = RemoteHostSchema.shape.name.safeParse(name);
      if (!parsed.success) throw new RewindError('USAGE', `--name takes letters, digits, ".", "_" and "-" (got "${name}")`);
      const version = await checkRemote(io.env, name, args.target, LOCAL_VERSION);
      const host: RemoteHost = { name, target: args.target, version, addedAt: new Date().toISOString() };
      await writeRemotes(file, [...hosts.filter((h) => h.name !== name), host]);
      if (args.json) io.out(JSON.stringify(host));
      else io.out(`Added ${name} (${args.target}), rewind-app ${version}. Use --host ${name}, or see it in the window.`);
      return EXIT.ok;
    }
    case 'remove': {
      if (!args.target) throw new RewindError('USAGE', 'remote remove needs the host name');
      const h = hostNamed(hosts, args.target);
      await writeRemotes(file, hosts.filter((x) => x !== h));
      io.out(`Removed ${h.name}.`);
      return EXIT.ok;
    }
    case 'list':
    case undefined: {
      if (args.json) io.out(JSON.stringify(hosts));
      else if (!hosts.length) io.out('No remote hosts. Add one with rewind-app remote add <ssh target> [--name N].');
      else for (const h of hosts) io.out(`${h.name}\t${h.target}\trewind-app ${h.version ?? '?'}`);
      return EXIT.ok;
    }
    default:
      throw new RewindError('USAGE', `unknown remote action "${args.action}" (add, list or remove)`);
  }
}
