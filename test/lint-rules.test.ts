import { ESLint } from 'eslint';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The import rules of eslint.config.js (eslint-rules/house.js), each proved to fail on a planted
// violation and to pass the import it allows. The planted files need not exist: lintText judges
// the path it is given, through the project's own config.
const ROOT = resolve(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: join(ROOT, 'eslint.config.js') });

/** The house rules' complaints about `code` as if it were the file at `path`. */
async function complaints(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return result!.messages.filter((m) => m.ruleId?.startsWith('house/') || m.fatal).map((m) => `${m.ruleId}: ${m.message}`);
}
const importing = (spec: string) => `import { x } from '${spec}';\nexport const y = x;\n`;

describe('house/floors: the floors point one way', () => {
  it.each([
    ['src/shared/planted.ts', '../engine/agents/registry.js', 'src/shared may not import src/engine'],
    ['src/shared/planted.ts', '../main/app-runtime.js', 'src/shared may not import src/main'],
    ['src/shared/planted.ts', '../cli/main.js', 'src/shared may not import src/cli'],
    ['src/engine/store/planted.ts', '../../main/doors/socket-path.js', 'src/engine may not import src/main'],
    ['src/engine/planted.ts', '../cli/main.js', 'src/engine may not import src/cli'],
    ['src/main/doors/planted.ts', '../../cli/main.js', 'src/main may not import src/cli'],
  ])('%s importing %s fails', async (path, spec, message) => {
    expect(await complaints(path, importing(spec))).toEqual([expect.stringContaining(message)]);
  });

  it('catches a re-export and a dynamic import as well as an import', async () => {
    expect(await complaints('src/main/planted.ts', "export { x } from '../cli/main.js';\n")).toEqual([expect.stringMatching(/^house\/floors: src\/main may not import src\/cli/)]);
    expect(await complaints('src/shared/planted.ts', "export const y = () => import('../engine/errors.js');\n")).toEqual([expect.stringMatching(/^house\/floors: src\/shared may not import src\/engine/)]);
  });

  it.each([
    ['src/engine/planted.ts', '../shared/agent-ids.js'],
    ['src/main/planted.ts', '../engine/errors.js'],
    ['src/cli/planted.ts', '../main/app-runtime.js'],
    ['src/cli/commands/planted.ts', '../../engine/errors.js'],
    ['src/shared/planted.ts', './agent-ids.js'],
  ])('%s importing %s (down a floor or level) passes', async (path, spec) => {
    expect(await complaints(path, importing(spec))).toEqual([]);
  });
});

describe("house/agent-seam: an agent's folder is reached only through the registry", () => {
  it.each([
    ['src/main/service/planted.ts', '../../engine/agents/claude/x.js'],
    ['src/cli/commands/planted.ts', '../../engine/agents/codex/paths.js'],
    ['src/engine/planted.ts', './agents/gemini/x.js'],
    ['src/engine/agents/planted.ts', './claude/x.js'],
  ])('%s importing %s fails', async (path, spec) => {
    expect(await complaints(path, importing(spec))).toEqual([expect.stringMatching(/^house\/agent-seam: .* may not import agent \w+'s folder/)]);
  });

  it('fails an agent importing another agent, passes its own folder and the seam', async () => {
    expect(await complaints('src/engine/agents/codex/planted.ts', importing('../claude/discover.js'))).toEqual([expect.stringContaining("agent codex may not import agent claude's folder")]);
    expect(await complaints('src/engine/agents/qwen/sub/planted.ts', importing('../../gemini/x.js'))).toEqual([expect.stringContaining("agent qwen may not import agent gemini's folder")]);
    expect(await complaints('src/engine/agents/codex/planted.ts', importing('./parse.js'))).toEqual([]);
    expect(await complaints('src/engine/agents/codex/sub/planted.ts', importing('../parse.js'))).toEqual([]);
    expect(await complaints('src/engine/agents/codex/planted.ts', importing('../adapter.js'))).toEqual([]);
  });

  it('passes the registry, imports of the seam itself, and tests', async () => {
    expect(await complaints('src/engine/agents/registry.ts', importing('./claude/adapter.js'))).toEqual([]);
    expect(await complaints('src/main/service/planted.ts', importing('../../engine/agents/registry.js'))).toEqual([]);
    expect(await complaints('src/main/service/planted.test.ts', importing('../../engine/agents/claude/x.js'))).toEqual([]);
  });
});
