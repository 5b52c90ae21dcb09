import type { RevertedPrompt } from '../../adapter.js';
import type { FileHandle } from 'node:fs/promises';
import { RewindError } from '../../../errors.js';
import { ReverseLineReader } from '../../../io/reverse-lines.js';
import { classifyUser, readUserContent, str, type Json } from '../classify.js';
import { parseJsonLine } from '../../../io/json-line.js';
import { plural } from '../../../../shared/wording.js';

const LEAF_TYPES = new Set(['user', 'assistant', 'system', 'attachment']);
const MESSAGE_TYPES = new Set(['user', 'assistant', 'system', 'attachment', 'progress']);

/** One line of the scanned tail, reduced to what planning needs. */
export interface TailLine {
  offset: number;
  length: number;
  type: string | null;
  uuid: string | null;
  parentUuid: string | null;
  logicalParentUuid: string | null;
  isSidechain: boolean;
  isMessage: boolean;
  /** For metadata lines: the message uuid they name (snapshot/delta/last-prompt/summary). */
  refersTo: string | null;
  /** queue-operation kind and content, to match an enqueue to its prompt. */
  queueOp: string | null;
  queueContent: string | null;
  /** A line that does not parse. */
  garbage: string | null;
  /** A human prompt (not a tool result, command or meta line): what the rewind statement names. */
  prompt: { text: string; images: number; timestamp: string | null } | null;
}

export type { RevertedPrompt };

export interface TailScan {
  size: number;
  /** Tail lines in file order, from the scan's first line to the end. */
  lines: TailLine[];
  leafUuid: string;
  /** The n reverted prompts, oldest first. */
  prompts: RevertedPrompt[];
  /** Where the Nth-last prompt's parent (the intended new leaf) is, when it exists. */
  keepLeaf: { uuid: string; offset: number } | null;
  /**
   * The scan goes on to the live prompt before the reverted ones (one more turn), so the queue
   * operations of that turn are known: a prompt queued while the agent was busy has its enqueue
   * line there.
   */
  contextFrom: number;
  /** Bytes read by the scan: grows with the tail, not the file. */
  bytesScanned: number;
  partialTail: { offset: number; length: number } | null;
  cwd: string | null;
  sessionId: string | null;
}

function reduce(offset: number, length: number, e: Json | null, garbage: string | null): TailLine {
  if (!e) {
    return { offset, length, type: null, uuid: null, parentUuid: null, logicalParentUuid: null, isSidechain: false, isMessage: false, refersTo: null, queueOp: null, queueContent: null, garbage, prompt: null };
  }
  const type = str(e.type) ?? null;
  const uuid = str(e.uuid) ?? null;
  const isMessage = !!type && MESSAGE_TYPES.has(type) && !!uuid;
  let refersTo: string | null = null;
  if (type === 'file-history-snapshot') refersTo = str(e.messageId) ?? null;
  else if (type === 'file-history-delta') refersTo = str(e.snapshotMessageId) ?? str(e.messageId) ?? null;
  else if (type === 'last-prompt' || type === 'summary') refersTo = str(e.leafUuid) ?? null;
  let prompt: TailLine['prompt'] = null;
  if (type === 'user' && isMessage && e.isSidechain !== true) {
    const content = readUserContent(e);
    if (classifyUser(e, content) === 'prompt') prompt = { text: content.text, images: content.images, timestamp: str(e.timestamp) ?? null };
  }
  return {
    offset,
    length,
    type,
    uuid,
    parentUuid: str(e.parentUuid) ?? null,
    logicalParentUuid: str(e.logicalParentUuid) ?? null,
    isSidechain: e.isSidechain === true,
    isMessage,
    refersTo,
    queueOp: type === 'queue-operation' ? (str(e.operation) ?? null) : null,
    queueContent: type === 'queue-operation' ? (str(e.content) ?? null) : null,
    garbage: null,
    prompt,
  };
}

/**
 * Finds the n newest prompts on the live path by reading the transcript backwards: the leaf a
 * resume takes is the last message written outside sidechains; from there we follow `parentUuid`
 * (and `logicalParentUuid` across compactions) and stop at the parent of the Nth prompt. Dead
 * branches are skipped because only the chain is followed.
 */
export type ScanTarget = { n: number } | { promptUuid: string };

export async function scanTail(fh: FileHandle, size: number, target: number | ScanTarget, chunkSize?: number): Promise<TailScan> {
  const t: ScanTarget = typeof target === 'number' ? { n: target } : target;
  const n = 'n' in t ? t.n : Number.POSITIVE_INFINITY;
  const targetUuid = 'promptUuid' in t ? t.promptUuid : null;
  const reader = new ReverseLineReader(fh, size, chunkSize);
  const lines: TailLine[] = [];
  const prompts: RevertedPrompt[] = [];
  let leafUuid: string | null = null;
  let wanted: string | null = null;
  let keepLeaf: TailScan['keepLeaf'] = null;
  let cwd: string | null = null;
  let sessionId: string | null = null;
  let done = false;
  let contextFrom = 0;
  let inContext = false;
  /** Set once the target prompt is found: from then on we only need its ancestors. */
  let targetFound = false;
  for await (const raw of reader.lines()) {
    const parsed = raw.bytes.length === 0 ? null : parseJsonLine(raw.bytes);
    if (parsed === null) {
      lines.push(reduce(raw.offset, raw.length, null, null));
      continue;
    }
    if (!parsed.ok) {
      lines.push(reduce(raw.offset, raw.length, null, parsed.reason));
      continue;
    }
    const e = parsed.value;
    const line = reduce(raw.offset, raw.length, e, null);
    lines.push(line);
    if (!line.isMessage || line.isSidechain) continue;
    if (inContext) {
      if (line.uuid !== wanted) continue;
      if (line.type === 'user' && classifyUser(e, readUserContent(e)) === 'prompt') {
        contextFrom = line.offset;
        break;
      }
      wanted = line.parentUuid ?? line.logicalParentUuid;
      if (wanted === null) break;
      continue;
    }
    cwd ??= str(e.cwd) ?? null;
    sessionId ??= str(e.sessionId) ?? null;
    if (leafUuid === null) {
      if (!LEAF_TYPES.has(line.type!)) continue;
      leafUuid = line.uuid;
      wanted = line.uuid;
    }
    if (targetUuid && !targetFound && line.uuid === targetUuid && line.uuid !== wanted) {
      // The target is off the live path (a dead branch): it alone is reverted, its parent is kept.
      const content = line.type === 'user' ? readUserContent(e) : null;
      if (!content || classifyUser(e, content) !== 'prompt') throw new RewindError('NOT_FOUND', `${targetUuid} is not a prompt`);
      prompts.length = 0;
      prompts.push({ uuid: line.uuid!, text: content.text, images: content.images, timestamp: str(e.timestamp) ?? null, offset: line.offset });
      targetFound = true;
      wanted = line.parentUuid ?? line.logicalParentUuid;
      if (wanted === null) {
        done = true;
        break;
      }
      continue;
    }
    if (line.uuid !== wanted) continue;
    if (prompts.length === n || targetFound) {
      keepLeaf = { uuid: line.uuid!, offset: line.offset };
      done = true;
      inContext = true;
      contextFrom = line.offset;
      wanted = line.parentUuid ?? line.logicalParentUuid;
      if (wanted === null) break;
      continue;
    }
    if (line.type === 'user') {
      const content = readUserContent(e);
      if (classifyUser(e, content) === 'prompt') {
        prompts.push({ uuid: line.uuid!, text: content.text, images: content.images, timestamp: str(e.timestamp) ?? null, offset: line.offset });
        if (line.uuid === targetUuid) targetFound = true;
      } else if (line.uuid === targetUuid) {
        throw new RewindError('NOT_FOUND', `${targetUuid} is not a prompt`);
      }
    }
    wanted = line.parentUuid ?? line.logicalParentUuid;
    if (wanted === null) {
      done = prompts.length === n || targetFound;
      break;
    }
  }
  if (leafUuid === null) {
    throw new RewindError('NOT_ENOUGH_PROMPTS', size === 0 ? 'transcript is empty: nothing to rewind' : 'transcript has no messages: nothing to rewind');
  }
  if (targetUuid && !targetFound) throw new RewindError('NOT_FOUND', `no prompt ${targetUuid} in this transcript`);
  if (!done && !targetUuid && prompts.length < n) {
    const what = prompts.length === 0 ? 'no prompts' : `only ${plural(prompts.length, 'prompt')}`;
    throw new RewindError('NOT_ENOUGH_PROMPTS', `cannot go back ${n}: the live path has ${what}`);
  }
  lines.reverse();
  prompts.reverse();
  return { size, lines, leafUuid, prompts, keepLeaf, contextFrom: keepLeaf ? contextFrom : 0, bytesScanned: reader.bytesRead, partialTail: reader.partialTail, cwd, sessionId };
}
