/**
 * The store's half of `rewind-app hook`: everything a prompt's checkpoint and a tool's write record
 * need, behind one import. The built CLI makes it one file of its own (scripts/build-cli.mjs), so
 * a tool hook, which needs none of it, loads none of it (a post-hook loads hook-write.ts), and a
 * prompt hook loads one file instead of a score of chunks.
 */
export { transcriptCursor } from './transcript-cursor.js';
export { takeCheckpoint } from '../store/checkpoint.js';
export { keepPreImages, queueIfBackground, runBackground, tieQueued, waitForPromptCheckpoint } from '../store/background-checkpoint.js';
export { tieToPrompt } from '../store/prompt-tie.js';
