import { randomUUID } from 'node:crypto';
import { open } from 'node:fs/promises';

/**
 * Writes a Claude Code-shaped transcript of about `targetBytes`: prompts, assistant tool calls,
 * tool results with outputs of mixed sizes (a few large), metadata lines, and an abandoned branch
 * every so often, so the parser does what it does on real files.
 */
export interface GenerateOptions {
  seed?: number;
  sessionId?: string;
  cwd?: string;
  start?: number;
  /** Extra words for the n-th prompt (0-based), e.g. a planted search word. */
  plant?: (n: number) => string | null;
  /** An abandoned attempt every this many prompts (a native rewind). */
  branchEvery?: number;
  /** One tool result of this many bytes in the first turn (one huge line). */
  hugeLine?: number;
  /** Chance of a 2 MB tool result per tool call (big sessions). */
  bigChance?: number;
}

export async function generateTranscript(path: string, targetBytes: number, opts: GenerateOptions = {}): Promise<{ prompts: number; lines: number; livePrompts: number }> {
  let seed = opts.seed ?? 42;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const sessionId = opts.sessionId ?? '00000000-0000-4000-8000-00000000beef';
  const base = { isSidechain: false, userType: 'external', cwd: opts.cwd ?? '/home/dev/project', sessionId, version: '2.1.330', gitBranch: 'main' };
  const fh = await open(path, 'w');
  let size = 0;
  let lines = 0;
  let prompts = 0;
  let parent: string | null = null;
  let t = opts.start ?? Date.parse('2026-11-01T00:00:00Z');
  let abandoned = 0;
  const every = opts.branchEvery ?? 50;
  const buf: string[] = [];
  let bufBytes = 0;
  const emit = async (o: object) => {
    const s = `${JSON.stringify(o)}\n`;
    buf.push(s);
    bufBytes += s.length;
    size += Buffer.byteLength(s);
    lines++;
    if (bufBytes > 4 << 20) {
      await fh.write(buf.join(''));
      buf.length = 0;
      bufBytes = 0;
    }
  };
  const ts = () => new Date((t += 500)).toISOString();
  const filler = (n: number) => {
    const words = ['const', 'value', 'return', 'function', 'import', 'export', 'await', 'result', 'error', 'string', 'number', '\n', '  ', '{', '}', '=>'];
    let s = '';
    while (s.length < n) s += `${words[Math.floor(rand() * words.length)]} `;
    return s;
  };
  try {
    while (size < targetBytes) {
      const branchPoint = parent;
      const turns = prompts > 0 && prompts % every === 0 ? 2 : 1; // every so often, an abandoned attempt
      if (turns === 2) abandoned++;
      for (let attempt = 0; attempt < turns; attempt++) {
        parent = branchPoint;
        const promptUuid = randomUUID();
        const planted = opts.plant?.(prompts);
        const text = `prompt ${prompts + 1}: ${filler(60 + Math.floor(rand() * 400))}${planted ? ` ${planted}` : ''}`;
        await emit({ type: 'queue-operation', operation: 'enqueue', timestamp: ts(), sessionId, content: text });
        await emit({ type: 'queue-operation', operation: 'dequeue', timestamp: ts(), sessionId });
        await emit({ ...base, parentUuid: parent, promptId: randomUUID(), type: 'user', message: { role: 'user', content: text }, uuid: promptUuid, timestamp: ts() });
        await emit({ type: 'file-history-snapshot', messageId: promptUuid, snapshot: { messageId: promptUuid, trackedFileBackups: {}, timestamp: ts() }, isSnapshotUpdate: false });
        prompts++;
        parent = promptUuid;
        const tools = 1 + Math.floor(rand() * 6);
        for (let i = 0; i < tools; i++) {
          const a = randomUUID();
          const id = `toolu_${randomUUID().slice(0, 12)}`;
          const name = ['Read', 'Edit', 'Bash', 'Write', 'Grep'][Math.floor(rand() * 5)]!;
          await emit({ ...base, parentUuid: parent, type: 'assistant', uuid: a, timestamp: ts(), message: { id: `msg_${a.slice(0, 8)}`, role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'tool_use', id, name, input: { file_path: `src/file${i}.ts`, command: 'npm test' } }], usage: { input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 20000 } } });
          const huge = opts.hugeLine && prompts === 1 && i === 0 ? opts.hugeLine : 0;
          const big = huge || (rand() < (opts.bigChance ?? 0.01) ? 2_000_000 : rand() < 0.2 ? 20_000 : 1_500);
          const r = randomUUID();
          await emit({ ...base, parentUuid: a, type: 'user', uuid: r, timestamp: ts(), message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: filler(big) }] }, toolUseResult: { stdout: filler(Math.min(big, 4000)), stderr: '' } });
          parent = r;
        }
        const fin = randomUUID();
        await emit({ ...base, parentUuid: parent, type: 'assistant', uuid: fin, timestamp: ts(), message: { id: `msg_${fin.slice(0, 8)}`, role: 'assistant', content: [{ type: 'text', text: filler(300) }], usage: { input_tokens: 1500, output_tokens: 200 } } });
        await emit({ type: 'last-prompt', lastPrompt: text.slice(0, 100), leafUuid: fin, sessionId });
        parent = fin;
      }
    }
    if (buf.length) await fh.write(buf.join(''));
  } finally {
    await fh.close();
  }
  return { prompts, lines, livePrompts: prompts - abandoned };
}

/** A session of `count` short prompts (one tool call each): the UI benchmark's 10,000-prompt timeline. */
export async function generatePrompts(path: string, count: number, opts: { sessionId?: string; cwd?: string; start?: number } = {}): Promise<void> {
  const sessionId = opts.sessionId ?? '00000000-0000-4000-8000-00000000beef';
  const base = { isSidechain: false, userType: 'external', cwd: opts.cwd ?? '/home/dev/project', sessionId, version: '2.1.330' };
  let parent: string | null = null;
  let t = opts.start ?? Date.parse('2026-11-01T00:00:00Z');
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const u = randomUUID();
    const a = randomUUID();
    const r = randomUUID();
    const f = randomUUID();
    const ts = () => new Date((t += 700)).toISOString();
    out.push(JSON.stringify({ ...base, type: 'user', uuid: u, parentUuid: parent, timestamp: ts(), message: { role: 'user', content: `prompt ${i + 1}: please change module ${i % 97} and run the tests again` } }));
    out.push(JSON.stringify({ ...base, type: 'assistant', uuid: a, parentUuid: u, timestamp: ts(), message: { id: `m${i}`, role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'Edit', input: { file_path: `src/m${i % 97}.ts`, old_string: 'a', new_string: 'b' } }], usage: { input_tokens: 900, output_tokens: 60 } } }));
    out.push(JSON.stringify({ ...base, type: 'user', uuid: r, parentUuid: a, timestamp: ts(), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'ok' }] } }));
    out.push(JSON.stringify({ ...base, type: 'assistant', uuid: f, parentUuid: r, timestamp: ts(), message: { id: `n${i}`, role: 'assistant', content: [{ type: 'text', text: 'Done.' }], usage: { input_tokens: 1000, output_tokens: 20 } } }));
    parent = f;
  }
  const { writeFile } = await import('node:fs/promises');
  await writeFile(path, `${out.join('\n')}\n`);
}
