import { RewindError } from '../../engine/errors.js';
import { nameFor, readRemotes, RemoteHostSchema, remotesFile, writeRemotes, type RemoteHost } from '../../engine/remote/remotes.js';
import { shellQuote, sshProgram } from '../../engine/remote/ssh-command.js';
import { checkRemote } from '../../engine/remote/ssh-run.js';
import { CONTRACT, EventSchema, type RemoteStatus, type Result, type RewindEvent } from '../../shared/contract.js';
import type { OperationName } from '../../shared/operations.js';
import { RemoteLink, type LinkStatus } from './remote-link.js';
import { prefixRemote, stripRemote } from './remote-paths.js';

type Local = (op: OperationName, payload: unknown) => Promise<Result<unknown>>;

/** Operations whose answer gathers every machine's: the list and search. */
const GATHERED = new Set<OperationName>(['listSessions', 'searchPrompts']);
/** Rewind's own settings and the hosts themselves are this machine's business. */
const LOCAL_ONLY = new Set<OperationName>(['getSettings', 'setSettings', 'getPrefs', 'renameSession', 'getPrices', 'listRemotes', 'addRemote', 'removeRemote', 'reconnectRemote']);

/**
 * The remote hosts the window shows: one ssh link each, and the routing of the contract. A request
 * that names a remote ref goes to that host (validated here and again there); the list and search
 * gather every connected host's answer; every path a host answers with comes back as a ref to it.
 */
export class RemoteHub {
  private links = new Map<string, { host: RemoteHost; link: RemoteLink }>();

  constructor(private readonly o: { env: NodeJS.ProcessEnv; localVersion: string; emit: (e: RewindEvent) => void; backoffMs?: number[] }) {}

  private get file(): string {
    return remotesFile(this.o.env);
  }

  async start(): Promise<void> {
    const { hosts } = await readRemotes(this.file).catch(() => ({ hosts: [] as RemoteHost[] }));
    for (const h of hosts) this.open(h);
  }

  private open(host: RemoteHost): void {
    const link = new RemoteLink({
      name: host.name,
      target: host.target,
      env: this.o.env,
      localVersion: this.o.localVersion,
      backoffMs: this.o.backoffMs,
      onStatus: (s) => {
        this.o.emit({ type: 'remoteStatus', host: this.statusOf(host, s) });
        // A host that (re)connects has sessions to show.
        if (s.state === 'connected') this.o.emit({ type: 'sessionsChanged' });
      },
      onEvent: (e) => this.relay(host.name, e),
    });
    this.links.set(host.name, { host, link });
  }

  private statusOf(host: RemoteHost, s: LinkStatus): RemoteStatus {
    return { name: host.name, target: host.target, state: s.state, message: s.message, version: s.version ?? host.version };
  }

  list(): RemoteStatus[] {
    return [...this.links.values()].map(({ host, link }) => this.statusOf(host, link.current));
  }

  async add(target: string, name?: string): Promise<RemoteStatus[]> {
    const n = name ?? nameFor(target);
    if (!RemoteHostSchema.shape.name.safeParse(n).success) throw new RewindError('USAGE', `a host name takes letters, digits, ".", "_" and "-" (got "${n}")`);
    const version = await checkRemote(this.o.env, n, target, this.o.localVersion);
    const { hosts } = await readRemotes(this.file);
    const host: RemoteHost = { name: n, target, version, addedAt: new Date().toISOString() };
    await writeRemotes(this.file, [...hosts.filter((h) => h.name !== n), host]);
    this.links.get(n)?.link.close();
    this.open(host);
    return this.list();
  }

  async remove(name: string): Promise<RemoteStatus[]> {
    const { hosts } = await readRemotes(this.file);
    await writeRemotes(this.file, hosts.filter((h) => h.name !== name));
    this.links.get(name)?.link.close();
    this.links.delete(name);
    this.o.emit({ type: 'sessionsChanged' });
    return this.list();
  }

  reconnect(name: string): RemoteStatus[] {
    const l = this.links.get(name);
    if (!l) throw new RewindError('NOT_FOUND', `no remote host named "${name}"`);
    l.link.reconnect();
    return this.list();
  }

  close(): void {
    for (const { link } of this.links.values()) link.close();
    this.links.clear();
  }

  /** For tests: a host's link. */
  linkOf(name: string): RemoteLink | null {
    return this.links.get(name)?.link ?? null;
  }

  /** A host's event, its paths made refs, checked as the contract says. */
  private relay(host: string, raw: unknown): void {
    const parsed = EventSchema.safeParse(raw);
    if (!parsed.success || parsed.data.type === 'remoteStatus') return;
    const e = prefixRemote(host, parsed.data);
    if (e.type === 'sessionUpdated') e.session.host = host;
    this.o.emit(e);
  }

  /** One call on one host: validated here before it goes, and its answer validated when it comes back. */
  async callHost(host: string, op: OperationName, payload: unknown): Promise<Result<unknown>> {
    const l = this.links.get(host);
    if (!l) return { ok: false, error: { code: 'NOT_FOUND', message: `no remote host named "${host}" (add it first)` } };
    const req = CONTRACT[op].request.safeParse(payload ?? {});
    if (!req.success) return { ok: false, error: { code: 'INVALID_REQUEST', message: `invalid ${op} request for ${host}: ${req.error.issues[0]?.message ?? 'bad payload'}` } };
    const r = await l.link.call(op, payload);
    if (!r.ok) return r;
    const res = CONTRACT[op].response.safeParse(r.value);
    if (!res.success) return { ok: false, error: { code: 'REMOTE', message: `${host} answered ${op} with an unexpected document (is its rewind-app the same version?)` } };
    const value = prefixRemote(host, res.data) as Record<string, unknown>;
    if (op === 'applyRewind' && typeof value.resumeCommand === 'string') value.resumeCommand = this.resumeOn(l.host, value.resumeCommand, (res.data as { projectRoot: string | null }).projectRoot);
    return { ok: true, value };
  }

  /** `ssh -t host 'cd … && claude --resume …'`: the resume command as it runs on that host. */
  private resumeOn(host: RemoteHost, command: string, dir: string | null): string {
    const ssh = sshProgram(this.o.env)[0] === 'ssh' ? 'ssh' : sshProgram(this.o.env).map(shellQuote).join(' ');
    const inner = dir ? `cd ${shellQuote(dir)} && ${command}` : command;
    return `${ssh} -t ${shellQuote(host.target)} ${shellQuote(inner)}`;
  }

  /**
   * The routing: null when the request is this machine's alone. A request naming a host's ref goes
   * there; the list and search add every connected host's sessions to this machine's.
   */
  async route(op: OperationName, payload: unknown, local: Local): Promise<Result<unknown> | null> {
    if (LOCAL_ONLY.has(op) || this.links.size === 0) return null;
    let routed: { host: string; payload: unknown } | null;
    try {
      routed = stripRemote(payload);
    } catch (e) {
      return { ok: false, error: { code: 'UNSUPPORTED', message: e instanceof Error ? e.message : String(e) } };
    }
    if (routed) return this.callHost(routed.host, op, routed.payload);
    if (!GATHERED.has(op)) return null;
    const mine = await local(op, payload);
    const connected = [...this.links.values()].filter((l) => l.link.current.state === 'connected');
    const theirs = await Promise.all(connected.map(async (l) => ({ host: l.host.name, r: await this.callHost(l.host.name, op, payload) })));
    // A local list that failed (no ~/.claude here) still shows the hosts' sessions.
    const base = (mine.ok ? mine.value : op === 'listSessions' ? { root: '', exists: false, rootState: 'missing', sessions: [], agents: [] } : null) as Record<string, unknown[] | number | boolean> | null;
    if (!base) return mine;
    for (const { host, r } of theirs) {
      if (!r.ok) continue;
      const v = r.value as Record<string, unknown>;
      if (op === 'listSessions') {
        (base.sessions as unknown[]).push(...(v.sessions as { host?: string }[]).map((s) => ({ ...s, host })));
        if (!(base.agents as unknown[]).length) base.agents = v.agents as unknown[];
      } else {
        for (const k of ['matches', 'sessions', 'notSearched'] as const) (base[k] as unknown[]).push(...((v[k] as unknown[]) ?? []));
        base.totalHits = (base.totalHits as number) + ((v.totalHits as number) ?? 0);
        base.truncated = !!base.truncated || !!v.truncated;
      }
    }
    return { ok: true, value: base };
  }
}

