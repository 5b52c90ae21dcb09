// Rewind's own import rules: the floors point one way, and agents plug in only through the seam
// (docs/architecture.md). Local rules rather than `no-restricted-imports` patterns because they
// judge the file an import RESOLVES to (a `../` chain matches no fixed pattern), and because a
// plugin that resolves TypeScript's `.js` specifiers would pull in a native resolver. Proved by
// test/lint-rules.test.ts.
import { dirname, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
/** Every folder under here is one agent's (`src/engine/agents/<id>/`). */
const AGENTS = 'src/engine/agents/';

/** A project-relative path with forward slashes, or null when it leaves the project. */
const fromRoot = (abs) => {
  const rel = relative(ROOT, abs).replaceAll('\\', '/');
  return rel.startsWith('../') || rel === '..' ? null : rel;
};
const under = (path, folder) => path === folder || path.startsWith(`${folder}/`);
/** The agent folder a path is in (its id), or null. */
const agentOf = (path) => (path.startsWith(AGENTS) ? (/^([^/]+)\//.exec(path.slice(AGENTS.length))?.[1] ?? null) : null);

/** Calls `check(node, target)` for every relative import, re-export and import() of the file. */
function eachImport(context, check) {
  const file = fromRoot(context.filename);
  if (!file) return {};
  const seen = (node, source) => {
    if (!source || source.type !== 'Literal' || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
    const target = fromRoot(resolve(dirname(context.filename), source.value));
    if (target) check(node, file, target, source.value);
  };
  return {
    ImportDeclaration: (n) => seen(n, n.source),
    ExportNamedDeclaration: (n) => seen(n, n.source),
    ExportAllDeclaration: (n) => seen(n, n.source),
    ImportExpression: (n) => seen(n, n.source),
  };
}

/** Options: `{ floors: { 'src/shared': ['src/engine', ...], ... } }`: what each floor may not import. */
const floors = {
  meta: {
    type: 'problem',
    docs: { description: 'A floor imports nothing from the floors above it (shared < engine < main < cli).' },
    schema: [{ type: 'object', properties: { floors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } }, required: ['floors'], additionalProperties: false }],
    messages: { up: '{{from}} may not import {{to}} ("{{spec}}"): floors point one way (docs/architecture.md).' },
  },
  create(context) {
    const table = context.options[0].floors;
    return eachImport(context, (node, file, target, spec) => {
      for (const [floor, above] of Object.entries(table)) {
        if (!under(file, floor)) continue;
        const to = above.find((f) => under(target, f));
        if (to) context.report({ node, messageId: 'up', data: { from: floor, to, spec } });
      }
    });
  },
};

/** Only the registry (the config leaves it out) reaches into an agent's folder; agents never into each other's. */
const agentSeam = {
  meta: {
    type: 'problem',
    docs: { description: "An agent's folder is imported only by itself and the registry; no agent imports another." },
    schema: [],
    messages: {
      outside: "{{file}} may not import agent {{agent}}'s folder (\"{{spec}}\"): go through the registry and an adapter member (src/engine/agents/adapter.ts).",
      across: "agent {{from}} may not import agent {{agent}}'s folder (\"{{spec}}\"): shared code lives in the seam's own files (src/engine/agents/*.ts).",
    },
  },
  create(context) {
    return eachImport(context, (node, file, target, spec) => {
      const agent = agentOf(target);
      if (!agent) return;
      const from = agentOf(file);
      if (from === agent) return;
      if (from) context.report({ node, messageId: 'across', data: { from, agent, spec } });
      else context.report({ node, messageId: 'outside', data: { file, agent, spec } });
    });
  },
};

export default { meta: { name: 'rewind-house' }, rules: { floors, 'agent-seam': agentSeam } };
