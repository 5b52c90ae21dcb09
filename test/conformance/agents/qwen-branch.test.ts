import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { qwen } from '../../../src/engine/agents/qwen/adapter.js';
import { ensureCliBuilt, rewindApp } from '../harness.js';
import { chatModelApi } from './chat-model.js';
import { QWEN_CLI, ensureNpmCli, orSkip, qwenEnv, runCli } from './npm-cli.js';
import type { ModelApi } from './suite.js';

/**
 * Qwen Code 0.24.4 judges an in-place rewrite of a BRANCHED session, where Rewind keeps every
 * branch not below the cut and ends the file on Qwen's own `rewind` record when something kept
 * comes after the resume point: the resume must send exactly the kept chain, and the statement
 * must name what it no longer sends (live list), its last prompt (kept end) and what left the file.
 */
const QWEN = orSkip('Qwen Code', ensureNpmCli(QWEN_CLI));

const env = (home: string, api: ModelApi): NodeJS.ProcessEnv => qwenEnv(home, api.url);

interface Said {
  keptEnd: { text: string } | null;
  droppedLive: { text: string }[];
  droppedBranch: { text: string }[];
  droppedOther: { text: string }[];
  keptAbandoned: number;
  handedBack: { text: string }[];
}

describe.runIf(QWEN)('Qwen Code resumes what an in-place rewrite of a branched session keeps', () => {
  let api: ModelApi;
  let home: string;
  let project: string;
  let path: string;
  let id: string;
  const firstSent = new Map<string, string[]>();

  async function send(sessionId: string | null, prompt: string): Promise<string[]> {
    const before = api.histories().length;
    const args = [prompt, '--approval-mode', 'yolo', '-o', 'json', ...(sessionId ? ['--resume', sessionId] : [])];
    const r = await runCli(QWEN!.cmd, args, { cwd: project, env: env(home, api) });
    if (r.code !== 0) throw new Error(`qwen ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)}`);
    const h = api.histories().slice(before).find((x) => x[x.length - 1] === `user: ${prompt}`);
    expect(h, `a model request carrying "${prompt}"`).toBeTruthy();
    if (!firstSent.has(prompt)) firstSent.set(prompt, h!);
    return h!.slice(0, h!.lastIndexOf(`user: ${prompt}`));
  }
  const sentBefore = (prompt: string) => firstSent.get(prompt)!.slice(0, firstSent.get(prompt)!.lastIndexOf(`user: ${prompt}`));
  const userLines = (h: string[]) => h.filter((l) => l.startsWith('user: ')).map((l) => l.slice(6));

  beforeAll(async () => {
    ensureCliBuilt();
    api = await chatModelApi();
    home = await mkdtemp(join(tmpdir(), 'qwen-branch-conf-'));
    project = join(home, 'proj');
    await mkdir(project, { recursive: true });
    await send(null, 'first prompt');
    const dir = join(home, '.qwen', 'projects');
    const [slug] = await readdir(dir);
    const [file] = await readdir(join(dir, slug!, 'chats'));
    id = file!.replace(/\.jsonl$/, '');
    path = join(dir, slug!, 'chats', file!);
    await send(id, 'second prompt');
    await send(id, 'third prompt');
    // Qwen's own /rewind to the second prompt: a `rewind` record hung off the message before it.
    const t = await qwen.timeline(path);
    const second = t.prompts.find((p) => p.text === 'second prompt')!;
    const cwd = t.session.cwd;
    await appendFile(path, `${JSON.stringify({ uuid: randomUUID(), parentUuid: second.parentUuid, sessionId: id, timestamp: new Date().toISOString(), type: 'system', provenance: 'system', cwd, version: '0.24.4', subtype: 'rewind', systemPayload: { truncatedCount: 2 } })}\n`);
    // The real CLI goes on from there: prompts 2 and 3 are an abandoned branch.
    expect(await send(id, 'fourth prompt')).toEqual(sentBefore('second prompt'));
  }, 300_000);
  afterAll(async () => {
    await api?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  async function rewriteCopy(target: (t: Awaited<ReturnType<typeof qwen.timeline>>) => string): Promise<{ copy: string; said: Said; held: string[] }> {
    const copyId = randomUUID();
    const copy = join(path, '..', `${copyId}.jsonl`);
    await appendFile(copy, (await readFile(path, 'utf8')).split(`"sessionId":"${id}"`).join(`"sessionId":"${copyId}"`));
    const past = new Date(Date.now() - 60_000);
    await utimes(copy, past, past);
    const t = await qwen.timeline(copy);
    const r = rewindApp(['back', '--to', target(t), '--in-place', '--transcript', copy, '--project', project, '--json'], env(home, api));
    expect(r.code, r.stderr).toBe(0);
    const said = (JSON.parse(r.stdout) as { statement: Said }).statement;
    const held = (await qwen.timeline(copy)).prompts.map((p) => p.text);
    return { copy: copyId, said, held };
  }

  it('at the abandoned third prompt: resumes after the second; the fourth stays as an abandoned branch; the statement says so', async () => {
    const { copy, said, held } = await rewriteCopy((t) => t.prompts.find((p) => p.text === 'third prompt')!.uuid);
    expect(held.sort()).toEqual(['first prompt', 'fourth prompt', 'second prompt']);
    const sent = await send(copy, 'after the third');
    expect(sent).toEqual(sentBefore('third prompt'));
    expect(userLines(sent)).not.toContain('fourth prompt');
    expect(said.droppedLive.map((p) => p.text), '(a)').toEqual(['fourth prompt']);
    expect(said.keptEnd?.text, '(b)').toBe(userLines(sent).pop());
    expect(said.handedBack.map((p) => p.text), '(c): the one prompt that left the file').toEqual(['third prompt']);
    expect([...said.droppedBranch, ...said.droppedOther]).toEqual([]);
  }, 300_000);

  it('at the live fourth prompt: resumes after the first; the abandoned second and third stay, and the statement says it keeps them', async () => {
    const { copy, said, held } = await rewriteCopy((t) => t.prompts.find((p) => p.text === 'fourth prompt')!.uuid);
    expect(held.sort()).toEqual(['first prompt', 'second prompt', 'third prompt']);
    const sent = await send(copy, 'after the fourth');
    expect(sent).toEqual(sentBefore('second prompt'));
    expect(said.droppedLive.map((p) => p.text), '(a)').toEqual(['fourth prompt']);
    expect(said.keptEnd?.text, '(b)').toBe(userLines(sent).pop());
    expect(said.droppedOther).toEqual([]);
    expect(said.keptAbandoned).toBe(2);
  }, 300_000);
});
