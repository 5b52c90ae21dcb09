import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RewindError } from '../../errors.js';
import { readLines } from '../../io/read-lines.js';
import { readRange } from '../../io/read-range.js';
import { isObject, str } from './classify.js';
import type { SessionModel } from './model.js';
import { SessionBuilder, sessionIdFromPath, type SubagentFile } from './session-builder.js';

/** Sniffs the first bytes: a transcript is UTF-8 text; NUL bytes mean a binary file. */
function looksBinary(head: Buffer): boolean {
  return head.subarray(0, 8192).includes(0);
}

/** Parses a whole transcript file into a model, streaming it line by line. */
export async function parseTranscriptFile(path: string, opts: { withSubagents?: boolean } = {}): Promise<SessionModel> {
  const st = await stat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') throw new RewindError('NOT_FOUND', `transcript not found: ${path}`);
    throw e;
  });
  if (!st.isFile()) throw new RewindError('INVALID_TRANSCRIPT', `not a transcript file: ${path}`);
  if (st.size === 0) throw new RewindError('INVALID_TRANSCRIPT', `transcript is empty: ${path}`);
  const builder = new SessionBuilder();
  let checkedHead = false;
  const res = await readLines(path, (line) => {
    if (!checkedHead) {
      checkedHead = true;
      if (looksBinary(line.bytes)) throw new RewindError('INVALID_TRANSCRIPT', `not a transcript (binary data): ${path}`);
    }
    builder.addLine(line);
  });
  if (!checkedHead && res.partial && looksBinary(res.partial.bytes)) {
    throw new RewindError('INVALID_TRANSCRIPT', `not a transcript (binary data): ${path}`);
  }
  if (builder.order.length === 0 && builder.issues.length > 0 && builder.issues.length === builder.lineCount) {
    throw new RewindError('INVALID_TRANSCRIPT', `not a Claude Code transcript (no line parses as JSON): ${path}`);
  }
  const subagentFiles = opts.withSubagents === false ? [] : await readSubagentFiles(path, builder.sessionId ?? sessionIdFromPath(path));
  return builder.build({ transcriptPath: path, size: res.size, endOffset: res.endOffset, hasPartialLine: res.partial !== null, subagentFiles });
}

/**
 * Subagent transcripts: `<session>/subagents/agent-<id>.jsonl` + `.meta.json` (2.1.x), or
 * `agent-<id>.jsonl` next to the session whose lines carry our sessionId (2.0.x).
 */
/** Line counts by file, valid while the file keeps its size: live refreshes recount only what grew. */
export type LineCountCache = Map<string, { size: number; count: number }>;

/**
 * What a live session learnt about its subagent files and will not read again: a `.meta.json` once
 * parsed (written once, when the subagent starts), and whether a 2.0.x sibling names this session
 * once its first 4 KiB are written (they do not change after).
 */
export interface SubagentCache {
  meta: Map<string, Record<string, unknown>>;
  sibling: Map<string, boolean>;
}

export async function readSubagentFiles(transcriptPath: string, sessionId: string, counts?: LineCountCache, known?: SubagentCache): Promise<SubagentFile[]> {
  const countLines = (path: string) => countLinesCached(path, counts);
  const dir = transcriptPath.slice(0, -'.jsonl'.length);
  const out: SubagentFile[] = [];
  const subDir = join(dir, 'subagents');
  const names = await readdir(subDir).catch(() => [] as string[]);
  for (const name of names.sort()) {
    if (!name.startsWith('agent-') || !name.endsWith('.jsonl')) continue;
    const agentId = name.slice('agent-'.length, -'.jsonl'.length);
    const metaPath = join(subDir, `agent-${agentId}.meta.json`);
    let meta: Record<string, unknown> = known?.meta.get(metaPath) ?? {};
    const metaRaw = known?.meta.has(metaPath) ? null : await readFile(metaPath, 'utf8').catch(() => null);
    if (metaRaw) {
      try {
        const v: unknown = JSON.parse(metaRaw);
        if (isObject(v)) {
          meta = v;
          known?.meta.set(metaPath, v);
        }
      } catch {
        // A broken sidecar only loses its description.
      }
    }
    out.push({
      path: join(subDir, name),
      agentId,
      toolUseId: str(meta.toolUseId) ?? null,
      agentType: str(meta.agentType) ?? null,
      description: str(meta.description) ?? null,
      messageCount: await countLines(join(subDir, name)),
    });
  }
  // 2.0.x siblings: agent-<id>.jsonl in the project folder that name this session.
  const projectDir = join(transcriptPath, '..');
  const siblings = await readdir(projectDir).catch(() => [] as string[]);
  for (const name of siblings) {
    if (!name.startsWith('agent-') || !name.endsWith('.jsonl')) continue;
    const p = join(projectDir, name);
    let ours = known?.sibling.get(p);
    if (ours === undefined) {
      const head = await readRange(p, 0, 4096);
      ours = head.toString('utf8').includes(`"${sessionId}"`);
      if (ours || head.length === 4096) known?.sibling.set(p, ours);
    }
    if (!ours) continue;
    out.push({ path: p, agentId: name.slice('agent-'.length, -'.jsonl'.length), toolUseId: null, agentType: null, description: null, messageCount: await countLines(p) });
  }
  return out;
}

async function countLinesCached(path: string, cache: LineCountCache | undefined): Promise<number> {
  if (!cache) return countLines(path);
  const size = (await stat(path).catch(() => null))?.size ?? -1;
  const hit = cache.get(path);
  if (hit && hit.size === size) return hit.count;
  const count = await countLines(path);
  cache.set(path, { size, count });
  return count;
}

async function countLines(path: string): Promise<number> {
  let n = 0;
  await readLines(path, (l) => {
    if (l.bytes.length > 0) n++;
  }).catch(() => undefined);
  return n;
}
