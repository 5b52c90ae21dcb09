import { readOwnText } from '../io/own-file.js';
import { join } from 'node:path';
import { storeDir } from '../project.js';

export interface StoreConfig {
  /** Files larger than this are recorded as skipped, not stored. */
  maxFileBytes: number;
}

export const DEFAULT_CONFIG: StoreConfig = { maxFileBytes: 20 * 1024 * 1024 };

/** `<store>/config.json`, e.g. {"maxFileBytes": 52428800}; anything invalid falls back to defaults. */
export async function readStoreConfig(projectRoot: string): Promise<StoreConfig> {
  try {
    const v = JSON.parse((await readOwnText(join(storeDir(projectRoot), 'config.json'))) ?? '') as Partial<StoreConfig>;
    const max = typeof v.maxFileBytes === 'number' && v.maxFileBytes > 0 ? v.maxFileBytes : DEFAULT_CONFIG.maxFileBytes;
    return { maxFileBytes: max };
  } catch {
    return DEFAULT_CONFIG;
  }
}
