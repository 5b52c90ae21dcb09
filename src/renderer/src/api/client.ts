import type { RewindApi } from '../../../shared/contract.js';

declare global {
  interface Window {
    rewind?: RewindApi;
  }
}

/** The preload's API in Electron. Browser mode (an HTTP client) plugs in here too. */
export function getApi(): RewindApi | null {
  return window.rewind ?? null;
}
