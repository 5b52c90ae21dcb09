import { readLines } from '../../io/read-lines.js';
import { classifyUser, isObject, readUserContent } from './classify.js';

const USER_MARK = Buffer.from('"user"');

/**
 * Counts human prompts (all branches) by streaming the file; only lines that mention "user" are
 * parsed, so assistant and metadata lines cost a byte search.
 */
export async function countPrompts(path: string): Promise<number> {
  let n = 0;
  await readLines(path, (line) => {
    if (line.bytes.indexOf(USER_MARK) === -1) return;
    let v: unknown;
    try {
      v = JSON.parse(line.bytes.toString('utf8'));
    } catch {
      return;
    }
    if (!isObject(v) || v.type !== 'user') return;
    if (classifyUser(v, readUserContent(v)) === 'prompt') n++;
  });
  return n;
}
