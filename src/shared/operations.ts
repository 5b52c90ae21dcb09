/**
 * The names of the operations the UI can ask for. Kept free of zod so the sandboxed preload can
 * generate one method per operation without bundling the schemas.
 */
export const OPERATION_NAMES = [
  'listSessions',
  'getTimeline',
  'getTurn',
  'searchPrompts',
  'previewRewind',
  'applyRewind',
  'listCheckpoints',
  'takeCheckpoint',
  'previewRestore',
  'applyRestore',
  'undo',
  'revertPreview',
  'revert',
  'redo',
  'history',
  'hooksStatus',
  'installHooks',
  'uninstallHooks',
  'getSettings',
  'setSettings',
  'getPrefs',
  'renameSession',
  'dismissHooksNotice',
  'getPrices',
  'comparePrompts',
  'exportSession',
  'cancelExport',
  'listRemotes',
  'addRemote',
  'removeRemote',
  'reconnectRemote',
] as const;
export type OperationName = (typeof OPERATION_NAMES)[number];

export const IPC_PREFIX = 'rewind:';
export const ipcChannel = (name: OperationName): string => `${IPC_PREFIX}${name}`;
export const IPC_EVENT_CHANNEL = 'rewind:event';
