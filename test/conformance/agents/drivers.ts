import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copilotEnv, qwenEnv, runCli } from './npm-cli.js';
import type { ModelApi } from './suite.js';
import { tempEnv } from '../../temp.js';

/**
 * How each real CLI is run offline against the scripted model (FORMATS.md §2b): its environment, a
 * fresh home, one prompt per run (resuming the session by id). Shared by the chat suites and the
 * code suites.
 */
export interface Driver {
  env(home: string, api: ModelApi): NodeJS.ProcessEnv;
  setup(home: string, project: string, api: ModelApi): Promise<void>;
  /** Runs one prompt; resumes `sessionId` when given. Returns the session id it ran under. */
  run(home: string, project: string, api: ModelApi, sessionId: string | null, prompt: string): Promise<string>;
}

/** Factory Droid 0.225: a custom Chat Completions model, no login. */
export function droidDriver(cmd: string[]): Driver {
  // Without FACTORY_API_BASE_URL answering 404, `exec -s` fails "Failed to fetch session".
  const env = (home: string, api: ModelApi): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, ...tempEnv(), HOME: home, FACTORY_API_BASE_URL: api.url, TERM: 'dumb', CI: '1', NO_COLOR: '1' });
  return {
    env,
    async setup(home, project, api) {
      await mkdir(join(home, '.factory'), { recursive: true });
      await mkdir(project, { recursive: true });
      const model = { model: 'fake-model', displayName: 'Fake', baseUrl: `${api.url}/v1`, apiKey: 'sk-test', provider: 'generic-chat-completion-api', maxOutputTokens: 4096 };
      await writeFile(join(home, '.factory', 'settings.json'), JSON.stringify({ customModels: [model] }));
    },
    async run(home, project, api, sessionId, prompt) {
      const args = ['exec', '-m', 'custom:Fake-0', '--auto', 'high', '-o', 'json', ...(sessionId ? ['-s', sessionId] : []), prompt];
      const r = await runCli(cmd, args, { cwd: project, env: env(home, api) });
      if (r.code !== 0) throw new Error(`droid ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)} ${r.stdout.slice(-1000)}`);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { session_id: string; is_error?: boolean };
      if (out.is_error) throw new Error(`droid reported an error: ${r.stdout.slice(-1000)}`);
      return out.session_id;
    },
  };
}

/** Qwen Code 0.24.4: an OpenAI-compatible model from env. */
export function qwenDriver(cmd: string[]): Driver {
  const env = (home: string, api: ModelApi): NodeJS.ProcessEnv => qwenEnv(home, api.url);
  const chats = async (home: string) => {
    const dir = join(home, '.qwen', 'projects');
    const out: string[] = [];
    for (const p of await readdir(dir).catch(() => [])) for (const f of await readdir(join(dir, p, 'chats')).catch(() => [])) out.push(f.replace(/\.jsonl$/, ''));
    return out;
  };
  return {
    env,
    async setup(_home, project) {
      await mkdir(project, { recursive: true });
    },
    async run(home, project, api, sessionId, prompt) {
      const known = new Set(await chats(home));
      const args = [prompt, '--approval-mode', 'yolo', '-o', 'json', ...(sessionId ? ['--resume', sessionId] : [])];
      const r = await runCli(cmd, args, { cwd: project, env: env(home, api) });
      if (r.code !== 0) throw new Error(`qwen ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)}`);
      if (sessionId) return sessionId;
      const fresh = (await chats(home)).filter((x) => !known.has(x));
      if (fresh.length !== 1) throw new Error(`expected one new Qwen session, found ${fresh.length}`);
      return fresh[0]!;
    },
  };
}

/** Gemini CLI 0.61.0: an API key and a local Gemini API, the workspace trusted. */
export function geminiDriver(cmd: string[]): Driver {
  const env = (home: string, api: ModelApi): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH, ...tempEnv(),
    HOME: home,
    GEMINI_API_KEY: 'test-key',
    GOOGLE_GEMINI_BASE_URL: api.url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    TERM: 'dumb',
    CI: '1',
    NO_COLOR: '1',
  });
  return {
    env,
    async setup(home, project) {
      await mkdir(join(home, '.gemini'), { recursive: true });
      await mkdir(project, { recursive: true });
      await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }));
      // A resume in a later minute than the session's file name leaves a context-only file under the
      // same id, and the CLI's next start deletes both (gemini.test.ts reproduces it): a recording
      // must stay inside one minute so the checks start from the CLI's own state.
      const left = 60 - new Date().getSeconds();
      if (left < 40) await new Promise((r) => setTimeout(r, left * 1000 + 200));
    },
    async run(home, project, api, sessionId, prompt) {
      const args = ['-p', prompt, '--approval-mode', 'yolo', '-o', 'json', ...(sessionId ? ['--resume', sessionId] : [])];
      const r = await runCli(cmd, args, { cwd: project, env: env(home, api) });
      if (r.code !== 0) throw new Error(`gemini ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)} ${r.stdout.slice(-500)}`);
      if (sessionId) return sessionId;
      const out = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as { session_id?: string };
      if (!out.session_id) throw new Error(`gemini printed no session_id: ${r.stdout.slice(0, 500)}`);
      return out.session_id;
    },
  };
}

/** GitHub Copilot CLI 1.0.102: BYOK against the scripted Chat Completions model, every tool allowed. */
export function copilotDriver(cmd: string[]): Driver {
  const env = (home: string, api: ModelApi): NodeJS.ProcessEnv => copilotEnv(home, api.url);
  return {
    env,
    async setup(_home, project) {
      await mkdir(project, { recursive: true });
    },
    async run(home, project, api, sessionId, prompt) {
      const args = ['-p', prompt, '--allow-all', '--output-format', 'json', ...(sessionId ? ['--resume', sessionId] : [])];
      const r = await runCli(cmd, args, { cwd: project, env: env(home, api) });
      if (r.code !== 0) throw new Error(`copilot ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)} ${r.stdout.slice(-500)}`);
      // One JSON event a line; the last is the run's result, with its session id.
      const result = r.stdout.split('\n').map(jsonOrNull).find((e) => e?.type === 'result');
      if (!result?.sessionId) throw new Error(`copilot printed no result with a sessionId: ${r.stdout.slice(-500)}`);
      return result.sessionId;
    },
  };
}

function jsonOrNull(line: string): { type?: string; sessionId?: string } | null {
  try {
    return JSON.parse(line) as { type?: string; sessionId?: string };
  } catch {
    return null;
  }
}
