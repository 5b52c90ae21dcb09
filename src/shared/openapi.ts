import { z } from 'zod';
import {
  ChatPlanSchema,
  CheckpointSummarySchema,
  CodePlanSchema,
  CompareResultSchema,
  CONTRACT,
  ErrorPayloadSchema,
  EventSchema,
  FileChangeSchema,
  HistoryEntrySchema,
  RevertPlanSchema,
  StatementSchema,
  ToolViewSchema,
  TurnImageSchema,
  TurnItemSchema,
} from './contract.js';
import { CostSchema, SessionSummarySchema, TimelinePromptSchema, TimelineSchema } from './session-schema.js';
import { OPERATION_NAMES, type OperationName } from './operations.js';

/**
 * The HTTP door (`rewind-app serve`, main/doors/http-door.ts) as an OpenAPI 3.1 document, generated
 * from the zod contract every door validates with: one POST route per operation, its request body
 * and its `{ok, value}` / `{ok, error}` answer, and the event stream. `npm run gen:api` writes it
 * (openapi.json) and docs/api.md; a test regenerates both and compares.
 */

type Json = Record<string, unknown>;

/** Shared parts of the answers, named once in components (the rest inline where used). */
const NAMED: Record<string, z.ZodType> = {
  Timeline: TimelineSchema,
  TimelinePrompt: TimelinePromptSchema,
  SessionSummary: SessionSummarySchema,
  Cost: CostSchema,
  ChatPlan: ChatPlanSchema,
  CodePlan: CodePlanSchema,
  FileChange: FileChangeSchema,
  Statement: StatementSchema,
  TurnItem: TurnItemSchema,
  TurnImage: TurnImageSchema,
  ToolView: ToolViewSchema,
  CheckpointSummary: CheckpointSummarySchema,
  RevertPlan: RevertPlanSchema,
  HistoryEntry: HistoryEntrySchema,
  CompareResult: CompareResultSchema,
  ErrorPayload: ErrorPayloadSchema,
  Event: EventSchema,
};

/**
 * Every schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), the named ones referenced by
 * `$ref`. Requests are described as sent (`input`: a field with a default may be left out),
 * answers as received (`output`).
 */
function componentSchemas(): Json {
  const uri = (id: string) => `#/components/schemas/${id}`;
  const out: Json = {};
  const add = (registry: z.core.$ZodRegistry<{ id?: string }>, io: 'input' | 'output') => {
    const { schemas } = z.toJSONSchema(registry, { io, target: 'draft-2020-12', unrepresentable: 'any', uri }) as { schemas: Record<string, Json> };
    for (const [id, { $schema: _drop, $id: _id, ...rest }] of Object.entries(schemas)) out[id] = rest;
  };
  const requests = z.registry<{ id?: string }>();
  const answers = z.registry<{ id?: string }>();
  for (const op of OPERATION_NAMES) {
    requests.add(CONTRACT[op].request, { id: `${cap(op)}Request` });
    answers.add(CONTRACT[op].response, { id: `${cap(op)}Response` });
  }
  for (const [id, schema] of Object.entries(NAMED)) answers.add(schema, { id });
  add(requests, 'input');
  add(answers, 'output');
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const cap = (op: string) => `${op[0]!.toUpperCase()}${op.slice(1)}`;

/** What each operation does, in one line (the contract's own comments, for readers of the API). */
export const OPERATION_SUMMARIES: Record<OperationName, string> = {
  listSessions: 'Every session of every agent, newest first (optionally of one project)',
  getTimeline: 'One session’s prompts, branches, compactions and subagents',
  getTurn: 'One prompt’s turn, item by item',
  searchPrompts: 'Search every prompt of every session (optionally of one agent or project)',
  previewRewind: 'Plan a fork or an in-place rewrite before a prompt (and the code restore with withCode); writes nothing',
  applyRewind: 'Write the fork or the in-place rewrite (refused when the session changed since expectSize)',
  listCheckpoints: 'Rewind’s checkpoints of a project',
  takeCheckpoint: 'Take a checkpoint of a project now',
  previewRestore: 'Plan restoring a project’s files to a checkpoint or to before a prompt; writes nothing',
  applyRestore: 'Restore a project’s files',
  undo: 'Take back Rewind’s last change in a project, or any entry of its history by id (dryRun: say what it would be)',
  revertPreview: 'Plan taking back one prompt’s code changes while keeping later ones: the files, the conflicts and their choices; writes nothing',
  revert: 'Take back one prompt’s code changes, later ones kept (conflicts resolved by `take`)',
  redo: 'Put back the last undone action (dryRun: say what it would be)',
  history: 'Every action in a project (forks, rewrites, restores, reverts, undos, redos) and which can be undone',
  hooksStatus: 'Whether Rewind’s checkpoint hooks are installed, per settings scope',
  installHooks: 'Install Rewind’s checkpoint hooks in Claude Code’s settings',
  uninstallHooks: 'Remove Rewind’s checkpoint hooks for one agent',
  getSettings: 'The app’s settings',
  setSettings: 'Change the Claude folder read, or show the demo',
  getPrefs: 'Rewind’s own preferences (session names, dismissed notices)',
  renameSession: 'Name a session in Rewind (not in the transcript)',
  dismissHooksNotice: 'Stop offering the hooks for a project',
  getPrices: 'The model prices costs are computed with',
  comparePrompts: 'Two prompts or sessions side by side from their common ancestor',
  exportSession: 'A session as Markdown or one self-contained HTML file',
  cancelExport: 'Stops a running export started with the same job id (nothing is returned)',
  listRemotes: 'The remote hosts added, each with its connection’s state',
  addRemote: 'Add a remote host reached through the user’s own ssh',
  removeRemote: 'Remove a remote host',
  reconnectRemote: 'Connect to a lost remote host again',
};

export function openApiDocument(version: string): Json {
  const schemas = componentSchemas();
  const paths: Json = {};
  for (const op of OPERATION_NAMES) {
    paths[`/api/${op}`] = {
      post: {
        operationId: op,
        summary: OPERATION_SUMMARIES[op],
        requestBody: { required: true, content: { 'application/json': { schema: ref(`${cap(op)}Request`) } } },
        responses: {
          '200': {
            description: 'The value, or an error with a stable code (the operation ran and failed: not found, conflict, changed since the preview...)',
            content: {
              'application/json': {
                schema: {
                  oneOf: [
                    { type: 'object', properties: { ok: { const: true }, value: ref(`${cap(op)}Response`) }, required: ['ok', 'value'], additionalProperties: false },
                    { $ref: '#/components/schemas/Failure' },
                  ],
                },
              },
            },
          },
          '400': { description: 'The request does not match the contract (code INVALID_REQUEST), or the body is not JSON', content: { 'application/json': { schema: ref('Failure') } } },
          '401': { description: 'Missing or wrong token', content: { 'application/json': { schema: ref('Failure') } } },
          '403': { description: 'Host or Origin is not this app on loopback', content: { 'application/json': { schema: ref('Failure') } } },
          '413': { description: 'Body over 1 MiB', content: { 'application/json': { schema: ref('Failure') } } },
        },
      },
    };
  }
  schemas.Failure = { type: 'object', properties: { ok: { const: false }, error: ref('ErrorPayload') }, required: ['ok', 'error'], additionalProperties: false };
  paths['/api/events'] = {
    get: {
      operationId: 'events',
      summary: 'Server-sent events: each `data:` line is one Event (sessions changed, a timeline grew, an operation’s progress)',
      responses: { '200': { description: 'An event stream', content: { 'text/event-stream': { schema: ref('Event') } } }, '401': { description: 'Missing or wrong token', content: { 'application/json': { schema: ref('Failure') } } } },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Rewind HTTP API',
      version,
      description:
        'The contract behind the window, served on loopback by `rewind-app serve` (browser mode). Every request carries the token the command printed (`?token=`, the `rewind_token` cookie, `X-Rewind-Token` or `Authorization: Bearer`); Host and Origin must be this app on loopback. Generated from src/shared/contract.ts: do not edit by hand (npm run gen:api).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:{port}', variables: { port: { default: '0', description: 'The port `rewind-app serve` printed' } } }],
    security: [{ header: [] }, { bearer: [] }, { cookie: [] }, { query: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        header: { type: 'apiKey', in: 'header', name: 'X-Rewind-Token' },
        bearer: { type: 'http', scheme: 'bearer' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'rewind_token' },
        query: { type: 'apiKey', in: 'query', name: 'token' },
      },
    },
  };
}

interface Prop {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  description?: string;
  default?: unknown;
  items?: Prop;
  anyOf?: Prop[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
}

function typeOf(p: Prop): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  if (p.const !== undefined) return JSON.stringify(p.const);
  if (p.anyOf) return p.anyOf.map(typeOf).join(' \\| ');
  if (p.type === 'array') return `${p.items ? typeOf(p.items) : 'any'}[]`;
  const t = Array.isArray(p.type) ? p.type.join(' \\| ') : (p.type ?? 'any');
  const limits = [p.minLength !== undefined && `≥${p.minLength} chars`, p.maxLength !== undefined && `≤${p.maxLength} chars`, p.exclusiveMinimum !== undefined && `>${p.exclusiveMinimum}`, p.minimum !== undefined && `≥${p.minimum}`, p.maximum !== undefined && `≤${p.maximum}`].filter(Boolean);
  return limits.length ? `${t} (${limits.join(', ')})` : t;
}

/** docs/api.md: the same document for people, one section per route. */
export function apiMarkdown(doc: Json): string {
  const schemas = (doc.components as { schemas: Record<string, { properties?: Record<string, Prop>; required?: string[] }> }).schemas;
  const lines = [
    '# Rewind HTTP API',
    '',
    '<!-- Generated from src/shared/contract.ts by `npm run gen:api`: do not edit by hand. -->',
    '',
    'The window, the browser mode and the terminal share one contract (`src/shared/contract.ts`, zod), validated where each request arrives. `rewind-app serve` serves it over HTTP on loopback; the machine-readable form is [`openapi.json`](../openapi.json) (OpenAPI 3.1). Agents reach the same operations as MCP tools through `rewind-app mcp` ([docs/mcp.md](mcp.md)).',
    '',
    '## Calling it',
    '',
    '- `rewind-app serve [--port N]` prints `http://127.0.0.1:PORT/?token=TOKEN`.',
    '- Every operation is `POST /api/<operation>` with a JSON body; pass the token as `X-Rewind-Token: TOKEN` (or `Authorization: Bearer TOKEN`, the `rewind_token` cookie, or `?token=`).',
    '- Host and Origin must be this app on loopback: other sites cannot drive it.',
    '- The answer is `{"ok": true, "value": …}` or `{"ok": false, "error": {"code", "message"}}` with a stable code (`src/engine/errors.ts`). A body that does not match the contract gets HTTP 400 and code `INVALID_REQUEST`; an unknown operation 404.',
    '- `GET /api/events` is a server-sent event stream of `Event`s (sessions changed, a timeline grew, an operation’s progress).',
    '',
    '```sh',
    'curl -s -X POST -H "X-Rewind-Token: $TOKEN" -H "content-type: application/json" \\',
    '  -d \'{"query":"billing webhook","limit":5}\' http://127.0.0.1:$PORT/api/searchPrompts',
    '```',
    '',
    '## Operations',
    '',
    '| Route | What it does |',
    '| --- | --- |',
  ];
  for (const op of OPERATION_NAMES) lines.push(`| [\`POST /api/${op}\`](#${op.toLowerCase()}) | ${OPERATION_SUMMARIES[op]} |`);
  for (const op of OPERATION_NAMES) {
    const req = schemas[`${cap(op)}Request`]!;
    const props = Object.entries(req.properties ?? {});
    lines.push('', `### ${op}`, '', `\`POST /api/${op}\`: ${OPERATION_SUMMARIES[op]}.`, '');
    if (props.length === 0) lines.push('Body: `{}`.');
    else {
      lines.push('| Field | Type | Required | Notes |', '| --- | --- | --- | --- |');
      for (const [name, p] of props) {
        const notes = [p.description, p.default !== undefined ? `default ${JSON.stringify(p.default)}` : ''].filter(Boolean).join('; ');
        lines.push(`| \`${name}\` | ${typeOf(p)} | ${req.required?.includes(name) ? 'yes' : 'no'} | ${notes.replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
      }
    }
    const res = schemas[`${cap(op)}Response`]!;
    const fields = Object.keys(res.properties ?? {});
    lines.push('', fields.length ? `Value: \`${cap(op)}Response\` (${fields.map((f) => `\`${f}\``).join(', ')}); see openapi.json.` : `Value: \`${cap(op)}Response\`; see openapi.json.`);
  }
  return `${lines.join('\n')}\n`;
}
