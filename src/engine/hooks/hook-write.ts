/**
 * What a tool's post-hook needs to record the agent's write (the file's hash, the record, the link
 * check), behind one import: the built CLI makes it one small file of its own (scripts/build-cli.mjs),
 * so a PostToolUse loads neither the checkpoint code nor the ignore rules.
 */
export { hashFile } from '../store/objects.js';
export { recordAgentWrite } from '../store/agent-writes.js';
export { linkOnTheWay } from '../store/safe-path.js';
