import { cp, mkdtemp, readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_PRIMARY, adapterFor } from './agents/registry.js';

/** Where the bundled sessions were recorded; rewritten to the demo's own folder. */
const RECORDED_PROJECTS = '/home/dev/projects';

/**
 * Copies the bundled demo (real Claude Code sessions and their working trees) into a fresh temp
 * folder, with every recorded path pointing there: the demo can be rewound and restored for real
 * without touching anything of the user's. Returns the demo's Claude config root.
 */
export async function materializeDemo(resourcesDir: string): Promise<{ base: string; claudeRoot: string; projectsDir: string }> {
  const base = await mkdtemp(join(tmpdir(), 'rewind-demo-'));
  const claudeRoot = join(base, 'claude');
  const projectsDir = join(base, 'projects');
  await cp(join(resourcesDir, 'demo', 'claude'), claudeRoot, { recursive: true });
  await cp(join(resourcesDir, 'demo', 'projects'), projectsDir, { recursive: true });
  const rewrite = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await rewrite(p);
      else if (e.name.endsWith('.jsonl') || e.name.endsWith('.json')) {
        const text = await readFile(p, 'utf8');
        if (text.includes(RECORDED_PROJECTS)) await writeFile(p, text.split(RECORDED_PROJECTS).join(projectsDir), { mode: 0o600 });
        // Recorded sessions are not being written now: they must not look live.
        const past = new Date(Date.now() - 3600_000);
        await utimes(p, past, past);
      }
    }
  };
  await rewrite(join(claudeRoot, 'projects'));
  await adapterFor(AGENT_PRIMARY).relocate?.(claudeRoot, RECORDED_PROJECTS, projectsDir);
  return { base, claudeRoot, projectsDir };
}
