import type { RewindApi } from '../../../shared/contract.js';
import { createHttpClient } from './http-client.js';

declare global {
  interface Window {
    rewind?: RewindApi;
  }
}

let api: RewindApi | null = null;

/** The preload's API in Electron, the HTTP client in browser mode: the same contract. */
export function getApi(): RewindApi {
  api ??= window.rewind ?? createHttpClient();
  return api;
}
