import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpDoor, type HttpDoor } from './http-door.js';
import { RewindService } from '../service/rewind-service.js';
import { CONTRACT } from '../../shared/contract.js';
import { apiMarkdown, openApiDocument } from '../../shared/openapi.js';
import { OPERATION_NAMES } from '../../shared/operations.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const doc = openApiDocument(pkg.version) as { openapi: string; paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> } };

describe('openapi.json and docs/api.md', () => {
  it('are what the contract generates now (run npm run gen:api after changing it)', async () => {
    expect(JSON.parse(await readFile(join(ROOT, 'openapi.json'), 'utf8')), 'openapi.json is stale: npm run gen:api').toEqual(doc);
    expect(await readFile(join(ROOT, 'docs', 'api.md'), 'utf8'), 'docs/api.md is stale: npm run gen:api').toBe(apiMarkdown(doc));
  });

  it('is OpenAPI 3.1 with one POST route per operation, described by the contract’s own fields', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([...OPERATION_NAMES.map((op) => `/api/${op}`), '/api/events'].sort());
    for (const op of OPERATION_NAMES) {
      expect(Object.keys(doc.paths[`/api/${op}`]!)).toEqual(['post']);
      const schema = doc.components.schemas[`${op[0]!.toUpperCase()}${op.slice(1)}Request`]!;
      expect(Object.keys(schema.properties ?? {}).sort(), op).toEqual(Object.keys(CONTRACT[op].request.shape).sort());
    }
    const rewind = doc.components.schemas.ApplyRewindRequest!;
    expect(rewind.required?.sort()).toEqual(['mode', 'promptUuid', 'session']);
  });
});

describe('the documented routes are the HTTP door’s routes', () => {
  let base: string;
  let service: RewindService;
  let door: HttpDoor;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'rewind-openapi-'));
    service = new RewindService({ claudeRoot: join(base, '.claude'), env: { HOME: base }, cacheDir: join(base, 'cache'), prefsFile: join(base, 'prefs.json'), watch: false });
    await service.start();
    door = await startHttpDoor(service, { rendererDir: null });
  });
  afterAll(async () => {
    await door.close();
    await service.close();
    await rm(base, { recursive: true, force: true });
  });

  const post = (path: string, body: string) =>
    new Promise<{ status: number; body: string }>((done, fail) => {
      const req = request({ host: '127.0.0.1', port: door.port, path, method: 'POST', headers: { host: `127.0.0.1:${door.port}`, 'x-rewind-token': door.token, 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', fail);
      req.end(body);
    });

  it('every documented operation is answered (a bad body gets the contract’s 400, not a 404); an undocumented one is not', async () => {
    for (const path of Object.keys(doc.paths).filter((p) => p !== '/api/events')) {
      const r = await post(path, '{"notAField": 1}');
      expect(r.status, path).toBe(400);
      expect(JSON.parse(r.body), path).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    }
    const missing = await post('/api/deleteEverything', '{}');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({ ok: false, error: { code: 'USAGE', message: 'unknown operation "deleteEverything"' } });
  });
});
