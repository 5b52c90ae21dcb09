import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseTranscriptFile } from '../../src/engine/agents/claude/parse-transcript.js';
import { PRINT_FLAGS, runClaude, type ClaudeEnv } from './claude-cli.js';
import { textOf, type ApiMessage, type ScriptedApi } from './scripted-api.js';
import { tempDir } from '../temp.js';

export interface Step {
  prompt: string;
  /** Resume at the last assistant message of this earlier step (1-based): a native branch. */
  branchAfterStep?: number;
}

export interface ScenarioSpec {
  name: string;
  files: Record<string, string>;
  steps: Step[];
}

export interface StepRecord {
  prompt: string;
  /** The working tree right before the step ran. */
  treeBefore: Record<string, string>;
  /** The history the CLI sent to the model with this prompt (normalized, prompt included). */
  history: string[] | null;
}

export interface Scenario {
  spec: ScenarioSpec;
  env: ClaudeEnv;
  api: ScriptedApi;
  project: string;
  sessionId: string;
  transcript: string;
  steps: StepRecord[];
}

export const SCENARIOS: Record<string, ScenarioSpec> = {
  linear: {
    name: 'linear',
    files: { 'a.txt': 'v0\n', 'notes.md': 'alpha beta\n' },
    steps: [
      { prompt: 'WRITE a.txt version one' },
      { prompt: 'WRITE a.txt version two' },
      { prompt: 'BASH echo bashmade > c.txt' },
      { prompt: 'EDIT notes.md alpha gamma' },
      { prompt: 'WRITE b.txt bee' },
    ],
  },
  branched: {
    name: 'branched',
    files: { 'a.txt': 'v0\n' },
    steps: [
      { prompt: 'WRITE a.txt version one' },
      { prompt: 'WRITE a.txt version two' },
      { prompt: 'BASH echo bashmade > c.txt' },
      { prompt: 'WRITE b.txt bee' },
      { prompt: 'WRITE d.txt branch two', branchAfterStep: 2 },
      { prompt: 'WRITE e.txt after branch' },
    ],
  },
  subagent: {
    name: 'subagent',
    files: { 'notes.md': 'alpha beta\n' },
    steps: [{ prompt: 'SPAWN sub.txt' }, { prompt: 'EDIT notes.md alpha gamma' }, { prompt: '/compact' }, { prompt: 'WRITE post.txt after compaction' }],
  },
};

/** The working tree as path -> content (Claude's and our own folders left out). */
export async function snapshotTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const p = relative(dir, join(e.parentPath, e.name));
    if (p.startsWith('.agent') || p.startsWith('.claude')) continue;
    out[p] = await readFile(join(dir, p), 'utf8');
  }
  return out;
}

const isReminder = (t: string) => t.trimStart().startsWith('<system-reminder>');

/** A history as comparable lines: user words, tool calls, tool results, assistant text. */
export function normalizeHistory(messages: ApiMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks) {
      if (b.type === 'text') {
        const t = String(b.text);
        if (!isReminder(t) && t.trim()) out.push(`${m.role}: ${t.trim()}`);
      } else if (b.type === 'tool_use') out.push(`tool_use: ${String(b.name)} ${JSON.stringify(b.input)}`);
      else if (b.type === 'tool_result') out.push(`tool_result: ${String(b.tool_use_id)}`);
      else if (b.type === 'image') out.push(`${m.role}: [image]`);
    }
  }
  return out;
}

/** The main-loop request that carried `prompt` as the newest user words, among `from..`. */
export function findPromptRequest(api: ScriptedApi, prompt: string, from = 0): ApiMessage[] | null {
  for (let i = from; i < api.requests.length; i++) {
    const msgs = api.requests[i]!.body.messages ?? [];
    if (!(api.requests[i]!.body.tools ?? []).length) continue;
    const users = msgs.filter((m) => m.role === 'user');
    const last = users[users.length - 1];
    if (last && textOf(last.content).split('\n').some((l) => l.trim() === prompt)) return msgs;
    if (last && typeof last.content !== 'string' && last.content.some((b) => b.type === 'text' && String(b.text).trim() === prompt)) return msgs;
  }
  return null;
}

async function lastAssistantOfStep(transcript: string, step: number): Promise<string> {
  const model = await parseTranscriptFile(transcript);
  const prompt = model.prompts[step - 1];
  if (!prompt) throw new Error(`no prompt ${step}`);
  const next = model.prompts[step];
  let uuid: string | null = null;
  for (const n of model.order) {
    if (n.offset <= prompt.offset) continue;
    if (next && n.offset >= next.offset) break;
    if (n.type === 'assistant' && !n.isSidechain) uuid = n.uuid;
  }
  if (!uuid) throw new Error(`no assistant reply for step ${step}`);
  return uuid;
}

export async function runScenario(
  spec: ScenarioSpec,
  env0: Omit<ClaudeEnv, 'home' | 'configDir'>,
  api: ScriptedApi,
  extraEnv: NodeJS.ProcessEnv = {},
  setup?: (project: string) => Promise<void>,
  /** The user's own edits before step i (no hook sees them). */
  beforeStep?: (project: string, i: number) => Promise<void>,
): Promise<Scenario> {
  const base = await tempDir(`rewind-conf-${spec.name}-`);
  const home = join(base, 'home');
  const project = join(base, spec.name);
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  for (const [p, c] of Object.entries(spec.files)) await writeFile(join(project, p), c);
  await setup?.(project);
  const env: ClaudeEnv = { ...env0, home, configDir: join(home, '.claude') };
  let sessionId: string | null = null;
  let transcript = '';
  const steps: StepRecord[] = [];
  for (const [i, step] of spec.steps.entries()) {
    await beforeStep?.(project, i);
    const treeBefore = await snapshotTree(project);
    const from = api.requests.length;
    const args = ['-p', step.prompt, ...PRINT_FLAGS];
    if (sessionId) args.push('--resume', sessionId);
    if (step.branchAfterStep) args.push('--resume-session-at', await lastAssistantOfStep(transcript, step.branchAfterStep));
    const r = await runClaude(env, project, args, extraEnv);
    if (r.code !== 0 || !r.json?.session_id) throw new Error(`scenario ${spec.name} step ${i + 1} failed (${r.code}): ${r.stderr || r.stdout}`);
    sessionId = r.json.session_id;
    transcript = await findTranscript(env.configDir, sessionId);
    const req = findPromptRequest(api, step.prompt, from);
    steps.push({ prompt: step.prompt, treeBefore, history: req ? normalizeHistory(req) : null });
  }
  return { spec, env, api, project, sessionId: sessionId!, transcript, steps };
}

export async function findTranscript(configDir: string, sessionId: string): Promise<string> {
  const projects = join(configDir, 'projects');
  for (const d of await readdir(projects)) {
    const p = join(projects, d, `${sessionId}.jsonl`);
    try {
      await readFile(p, { flag: 'r' });
      return p;
    } catch {
      // not here
    }
  }
  throw new Error(`no transcript for ${sessionId} under ${projects}`);
}

/** The judge: resume `sessionId` with `prompt` and return the history the model saw before it. */
export async function resumedHistory(s: Scenario, sessionId: string, prompt = 'RESUMED probe'): Promise<string[]> {
  const from = s.api.requests.length;
  const r = await runClaude(s.env, s.project, ['-p', prompt, '--resume', sessionId, ...PRINT_FLAGS]);
  if (r.code !== 0) throw new Error(`resume of ${sessionId} failed (${r.code}): ${r.stderr || r.stdout}`);
  const req = findPromptRequest(s.api, prompt, from);
  if (!req) throw new Error(`the CLI sent no request with "${prompt}"`);
  const h = normalizeHistory(req);
  const last = h.lastIndexOf(`user: ${prompt}`);
  return last === -1 ? h : h.slice(0, last);
}

/** The judge for code: `claude --resume X --rewind-files <prompt uuid>`, then the working tree. */
export async function rewindFilesTree(s: Scenario, sessionId: string, promptUuid: string, cwd = s.project): Promise<Record<string, string>> {
  const r = await runClaude(s.env, cwd, ['--resume', sessionId, '--rewind-files', promptUuid]);
  if (r.code !== 0) throw new Error(`--rewind-files failed (${r.code}): ${r.stderr || r.stdout}`);
  return snapshotTree(cwd);
}
