// Writes openapi.json and docs/api.md from the zod contract (src/shared/openapi.ts); the
// openapi test fails when they are out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiMarkdown, openApiDocument } from '../src/shared/openapi.js';

const root = join(import.meta.dirname, '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const doc = openApiDocument(version);
writeFileSync(join(root, 'openapi.json'), `${JSON.stringify(doc, null, 2)}\n`);
writeFileSync(join(root, 'docs', 'api.md'), apiMarkdown(doc));
console.log('wrote openapi.json and docs/api.md');
