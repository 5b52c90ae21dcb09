import { describe, expect, it } from 'vitest';
import { toolTitle, toolView } from './tool-view.js';

describe('tool view', () => {
  it("draws each of Claude Code's tools for what it is", () => {
    expect(toolView('MultiEdit', { file_path: 'a.ts', edits: [{ old_string: 'x', new_string: 'y' }, { old_string: 'p', new_string: 'q' }] })).toMatchObject({ view: 'edit', path: 'a.ts', edits: [{ oldText: 'x', newText: 'y' }, { oldText: 'p', newText: 'q' }] });
    expect(toolView('Grep', { pattern: 'TODO', path: 'src' })).toMatchObject({ view: 'search', command: 'TODO', path: 'src' });
    expect(toolView('Read', { file_path: '/p/a.ts', offset: 3 })).toMatchObject({ view: 'read', path: '/p/a.ts' });
    const other = toolView('WebFetch', { url: 'https://x', prompt: 'a\nb' });
    expect(other.view).toBe('other');
    expect(JSON.parse(other.input!)).toEqual({ url: 'https://x', prompt: 'a\nb' });
    expect(toolTitle(other)).toBe('WebFetch https://x');
    expect(toolTitle(toolView('mcp__synthetic__lookup', { query: 'fixture\nmore' }))).toBe('mcp__synthetic__lookup fixture');
    expect(toolTitle(toolView('Bash', { command: 'npm test\nnpm run lint' }))).toBe('Bash npm test');
  });

  it("and Codex's: a shell command given as argv, apply_patch's free-form patch", () => {
    expect(toolView('exec_command', { cmd: 'ls -la' })).toMatchObject({ view: 'bash', command: 'ls -la' });
    expect(toolView('shell', { command: ['bash', '-lc', 'cat a && ls'], workdir: '/w' })).toMatchObject({ view: 'bash', command: 'cat a && ls', path: '/w' });
    expect(toolView('local_shell', { type: 'exec', command: ['git', 'status'] })).toMatchObject({ view: 'bash', command: 'git status' });
    expect(toolView('apply_patch', '*** Begin Patch\n*** Update File: src/x.ts\n@@\n-a\n+b\n*** End Patch')).toMatchObject({ view: 'patch', path: 'src/x.ts' });
  });
});
