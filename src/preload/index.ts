import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { IPC_EVENT_CHANNEL, OPERATION_NAMES, ipcChannel } from '../shared/operations.js';

// One named method per operation, generated from the contract's names: the page never gets a
// generic `invoke(channel)`. Requests are validated again in main, where they arrive.
const api: Record<string, unknown> = Object.fromEntries(OPERATION_NAMES.map((name) => [name, (request: unknown) => ipcRenderer.invoke(ipcChannel(name), request)]));
api.onEvent = (listener: (e: unknown) => void) => {
  const handler = (_e: IpcRendererEvent, payload: unknown) => listener(payload);
  ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
  return () => ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler);
};
contextBridge.exposeInMainWorld('rewind', Object.freeze(api));
