import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/temp.js';
import { startServe, withServe } from './agent-serve.js';

/**
 * A stand-in for `<agent> serve`: a real HTTP server on 127.0.0.1 that prints its address as the
 * agent does and answers 500 to the first `failures` requests (counted over every process started
 * with it), counting every request in a file.
 */
async function fakeServe(dir: string, failures: number): Promise<{ bin: string; count: () => Promise<number>; lines: () => Promise<string[]> }> {
  const log = join(dir, 'requests');
  await writeFile(log, '');
  const bin = join(dir, 'fake-serve');
  await writeFile(
    bin,
    `#!${process.execPath}
const http = require('node:http'); const fs = require('node:fs');
const s = http.createServer((req, res) => { fs.appendFileSync(${JSON.stringify(log)}, req.method + ' ' + req.url + '\\n');
  if (fs.readFileSync(${JSON.stringify(log)}, 'utf8').split('\\n').filter(Boolean).length <= ${failures}) { res.writeHead(500, { 'content-type': 'application/json' }); res.end(JSON.stringify({ message: 'Unexpected server error' })); return; }
  res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ok":true}'); });
s.listen(0, '127.0.0.1', () => console.log('server listening on http://127.0.0.1:' + s.address().port));
`,
  );
  await chmod(bin, 0o755);
  const lines = async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  return { bin, count: async () => (await lines()).length, lines };
}

const spec = { command: 'fake-agent', envBin: 'FAKE_AGENT_BIN', envDb: 'FAKE_AGENT_DB', name: 'Fake agent' };

describe.skipIf(process.platform === 'win32')("the agent's own server", () => {
  it('an idempotent request is asked again after a 5xx, and goes through', async () => {
    const dir = await tempDir('agent-serve-');
    const f = await fakeServe(dir, 2);
    await expect(withServe(spec, join(dir, 'x.db'), dir, (s) => s.call('POST', '/session/x/unrevert', {}, { idempotent: true }), { ...process.env, FAKE_AGENT_BIN: f.bin })).resolves.toEqual({ ok: true });
    expect(await f.count()).toBe(3);
  }, 30_000);

  it('a fork (not idempotent) is never asked twice: the 5xx is said in one line', async () => {
    const dir = await tempDir('agent-serve-');
    const f = await fakeServe(dir, 1);
    await expect(withServe(spec, join(dir, 'x.db'), dir, (s) => s.call('POST', '/session/x/fork', { messageID: 'm' }), { ...process.env, FAKE_AGENT_BIN: f.bin })).rejects.toThrow(/^Fake agent refused POST \/session\/x\/fork: Unexpected server error$/);
    expect(await f.count()).toBe(1);
  }, 30_000);

  it('a server that fails an idempotent request every time is replaced by a fresh one, once', async () => {
    const dir = await tempDir('agent-serve-');
    const f = await fakeServe(dir, 3);
    const env = { ...process.env, FAKE_AGENT_BIN: f.bin };
    await expect(withServe(spec, join(dir, 'x.db'), dir, (s) => s.call('POST', '/session/x/unrevert', {}, { idempotent: true }), env)).resolves.toEqual({ ok: true });
    expect(await f.lines()).toEqual(Array(4).fill(`POST /session/x/unrevert?directory=${encodeURIComponent(dir)}`));
    // Never a third server: the error is said.
    const g = await fakeServe(await tempDir('agent-serve-'), 9);
    await expect(withServe(spec, join(dir, 'x.db'), dir, (s) => s.call('POST', '/session/x/unrevert', {}, { idempotent: true }), { ...process.env, FAKE_AGENT_BIN: g.bin })).rejects.toMatchObject({ code: 'CONFLICT', message: 'Fake agent refused POST /session/x/unrevert: Unexpected server error' });
    expect(await g.count()).toBe(6);
  }, 30_000);

  it('gives up after three answers of 5xx', async () => {
    const dir = await tempDir('agent-serve-');
    const f = await fakeServe(dir, 5);
    const s = await startServe(spec, join(dir, 'x.db'), dir, { ...process.env, FAKE_AGENT_BIN: f.bin });
    try {
      await expect(s.call('POST', '/session/x/revert', { messageID: 'm' }, { idempotent: true })).rejects.toMatchObject({ code: 'CONFLICT' });
      expect(await f.count()).toBe(3);
    } finally {
      s.stop();
    }
  }, 30_000);
});
