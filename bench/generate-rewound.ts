import { writeFile } from 'node:fs/promises';

/**
 * A long, heavily rewound Claude Code session, the shape of a real one: `messages` messages in
 * turns of four (prompt, tool call, tool result, reply) and `rewinds` native rewinds, each going
 * back 1 to 6 prompts on the live path (sometimes to the same point again) and going on from there.
 * Returns what it wrote, counted from its own tree (not by the engine): the test's expectation.
 */
export async function generateRewound(
  path: string,
  opts: { messages: number; rewinds: number; seed?: number },
): Promise<{ prompts: number; livePrompts: number; abandonedPrompts: number; branchPoints: number; texts: string[] }> {
  let seed = opts.seed ?? 11;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const sessionId = '00000000-0000-4000-8000-0000000e7ee0';
  const base = { isSidechain: false, userType: 'external', cwd: '/home/dev/project', sessionId, version: '2.1.330', gitBranch: 'main' };
  let t = Date.parse('2026-11-01T00:00:00Z');
  const ts = () => new Date((t += 900)).toISOString();
  const out: string[] = [];
  let n = 0;
  const uuid = () => {
    n++;
    const h = n.toString(16).padStart(12, '0');
    return `5e551010-0000-4000-8000-${h}`;
  };
  // The live path as the list of prompts, each with the message a next prompt hangs off.
  type P = { uuid: string; parentUuid: string | null; last: string };
  const path_: P[] = [];
  const parentOf = new Map<string, string | null>();
  const isPrompt = new Set<string>();
  const texts: string[] = [];
  const turns = Math.floor(opts.messages / 4);
  // Spread the rewinds over the session (none in the first few turns).
  const rewindAt = new Set<number>();
  while (rewindAt.size < Math.min(opts.rewinds, turns - 10)) rewindAt.add(8 + Math.floor(rand() * (turns - 10)));
  const words = ['refactor', 'the', 'parser', 'so', 'tests', 'pass', 'again', 'and', 'rename', 'module', 'handler', 'cache', 'before', 'release', 'fix', 'flaky', 'timeout', 'in', 'CI'];
  for (let i = 0; i < turns; i++) {
    if (rewindAt.has(i) && path_.length > 1) {
      const back = 1 + Math.floor(rand() * Math.min(6, path_.length - 1));
      path_.length -= back;
    }
    const parent = path_.length ? path_[path_.length - 1]!.last : null;
    const u = uuid();
    const a = uuid();
    const r = uuid();
    const f = uuid();
    let text = `#${i + 1} `;
    const len = 4 + Math.floor(rand() * 14);
    for (let w = 0; w < len; w++) text += `${words[Math.floor(rand() * words.length)]} `;
    text = text.trim();
    texts.push(text);
    out.push(JSON.stringify({ ...base, type: 'user', uuid: u, parentUuid: parent, promptId: u, timestamp: ts(), message: { role: 'user', content: text } }));
    out.push(JSON.stringify({ ...base, type: 'assistant', uuid: a, parentUuid: u, timestamp: ts(), message: { id: `m${i}`, role: 'assistant', model: 'claude-opus-5-5', content: [{ type: 'tool_use', id: `t${i}`, name: 'Edit', input: { file_path: `src/m${i % 97}.ts`, old_string: 'a', new_string: 'b' } }], usage: { input_tokens: 900, output_tokens: 60 } } }));
    out.push(JSON.stringify({ ...base, type: 'user', uuid: r, parentUuid: a, timestamp: ts(), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'ok' }] } }));
    out.push(JSON.stringify({ ...base, type: 'assistant', uuid: f, parentUuid: r, timestamp: ts(), message: { id: `n${i}`, role: 'assistant', content: [{ type: 'text', text: 'Done.' }], usage: { input_tokens: 1000, output_tokens: 20 } } }));
    parentOf.set(u, parent);
    isPrompt.add(u);
    path_.push({ uuid: u, parentUuid: parent, last: f });
  }
  await writeFile(path, `${out.join('\n')}\n`);
  const live = new Set(path_.map((p) => p.uuid));
  const liveEnds = new Set(path_.map((p) => p.last));
  // A dead prompt hangs off the live path where its own parent is a live turn's end (or nothing).
  const points = new Set<string>();
  for (const u of isPrompt) {
    if (live.has(u)) continue;
    const parent = parentOf.get(u) ?? null;
    if (parent !== null && liveEnds.has(parent)) points.add(parent);
  }
  return { prompts: turns, livePrompts: live.size, abandonedPrompts: turns - live.size, branchPoints: points.size, texts };
}
