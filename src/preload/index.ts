import { contextBridge, ipcRenderer } from 'electron';
import { OPERATION_NAMES, ipcChannel } from '../shared/operations.js';

// One named method per operation, generated from the contract's names: the page never gets a
// generic `invoke(channel)`.
const api = Object.fromEntries(OPERATION_NAMES.map((name) => [name, (request: unknown) => ipcRenderer.invoke(ipcChannel(name), request)]));
contextBridge.exposeInMainWorld('rewind', Object.freeze(api));
