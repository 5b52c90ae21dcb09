import type { CodePlan } from '../../shared/contract.js';

/**
 * A confirm is drawn red (.button.danger) when it takes something away from where the user works:
 * the chat rewritten in place, files deleted or overwritten, or a warning overridden. A fork that
 * leaves every file alone only adds a session, and stays the blue primary.
 */
export function isDestructive(p: { action: 'fork' | 'rewrite' | 'restore' | 'fork-restore'; code: CodePlan | null; force: boolean }): boolean {
  if (p.force || p.action === 'rewrite') return true;
  return !!p.code?.changes.some((c) => c.action === 'delete' || c.action === 'modify');
}
