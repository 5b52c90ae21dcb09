/** Words the CLI and the window both say: the same outcome reads the same in both. */

export function plural(n: number, word: string): string {
  if (n === 1) return `${n} ${word}`;
  return `${n} ${/(s|x|ch|sh)$/.test(word) ? `${word}es` : `${word}s`}`;
}

/** What a code restore did, in one line: "Restored 3 files (1 written back, 2 deleted)". */
export function restoredSummary(applied: { written: number; deleted: number }): string {
  const { written, deleted } = applied;
  if (written + deleted === 0) return 'Restored: the files already matched';
  if (deleted === 0) return `Restored ${plural(written, 'file')}`;
  if (written === 0) return `Restored: deleted ${plural(deleted, 'file')} made since`;
  return `Restored ${plural(written + deleted, 'file')} (${written} written back, ${deleted} deleted)`;
}

/** Each agent's product name, as the CLI and the window say it. */
export const AGENT_NAME = { claude: 'Claude Code', codex: 'Codex CLI', droid: 'Factory Droid', qwen: 'Qwen Code', gemini: 'Gemini CLI' } as const;

/** The command that resumes a session in its agent's own CLI. */
export function resumeCommand(agent: keyof typeof AGENT_NAME, id: string): string {
  switch (agent) {
    case 'droid':
      return `droid exec -s ${id}`;
    case 'qwen':
      return `qwen --resume ${id}`;
    case 'gemini':
      return `gemini --resume ${id}`;
    case 'codex':
      return `codex resume ${id}`;
    default:
      return `claude --resume ${id}`;
  }
}
