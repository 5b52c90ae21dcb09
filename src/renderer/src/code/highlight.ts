import type { HLJSApi, LanguageFn } from 'highlight.js';

type Loader = () => Promise<{ default: LanguageFn }>;

// Each language is its own chunk, loaded the first time a file of that type is shown.
const LANGUAGES: Record<string, Loader> = {
  typescript: () => import('highlight.js/lib/languages/typescript'),
  javascript: () => import('highlight.js/lib/languages/javascript'),
  json: () => import('highlight.js/lib/languages/json'),
  markdown: () => import('highlight.js/lib/languages/markdown'),
  python: () => import('highlight.js/lib/languages/python'),
  bash: () => import('highlight.js/lib/languages/bash'),
  css: () => import('highlight.js/lib/languages/css'),
  scss: () => import('highlight.js/lib/languages/scss'),
  xml: () => import('highlight.js/lib/languages/xml'),
  go: () => import('highlight.js/lib/languages/go'),
  rust: () => import('highlight.js/lib/languages/rust'),
  java: () => import('highlight.js/lib/languages/java'),
  kotlin: () => import('highlight.js/lib/languages/kotlin'),
  c: () => import('highlight.js/lib/languages/c'),
  cpp: () => import('highlight.js/lib/languages/cpp'),
  csharp: () => import('highlight.js/lib/languages/csharp'),
  ruby: () => import('highlight.js/lib/languages/ruby'),
  php: () => import('highlight.js/lib/languages/php'),
  swift: () => import('highlight.js/lib/languages/swift'),
  yaml: () => import('highlight.js/lib/languages/yaml'),
  ini: () => import('highlight.js/lib/languages/ini'),
  sql: () => import('highlight.js/lib/languages/sql'),
  dockerfile: () => import('highlight.js/lib/languages/dockerfile'),
  makefile: () => import('highlight.js/lib/languages/makefile'),
};

const BY_EXT: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
  js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  json: 'json', jsonl: 'json', md: 'markdown', markdown: 'markdown', py: 'python',
  sh: 'bash', bash: 'bash', zsh: 'bash', css: 'css', scss: 'scss',
  html: 'xml', htm: 'xml', xml: 'xml', svg: 'xml', vue: 'xml',
  go: 'go', rs: 'rust', java: 'java', kt: 'kotlin', kts: 'kotlin',
  c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', cs: 'csharp',
  rb: 'ruby', php: 'php', swift: 'swift', yml: 'yaml', yaml: 'yaml', toml: 'ini', ini: 'ini', sql: 'sql',
};

/** The highlight.js language for a path, by extension (or a well-known file name). */
export function languageOf(path: string): string | null {
  const name = path.split('/').pop()!.toLowerCase();
  if (name === 'dockerfile') return 'dockerfile';
  if (name === 'makefile') return 'makefile';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (BY_EXT[name.slice(dot + 1)] ?? null) : null;
}

let core: Promise<HLJSApi> | null = null;
/** highlight.js once loaded: highlighting itself is synchronous. */
let hljs: HLJSApi | null = null;
const loaded = new Map<string, Promise<boolean>>();

/** Loads highlight.js and one language on first use; false when it cannot. */
export function loadLanguage(lang: string): Promise<boolean> {
  let p = loaded.get(lang);
  if (!p) {
    const loader = LANGUAGES[lang];
    core ??= import('highlight.js/lib/core').then((m) => (hljs = m.default));
    p = loader
      ? Promise.all([core, loader()])
          .then(([api, l]) => (api.registerLanguage(lang, l.default), true))
          .catch(() => false)
      : Promise.resolve(false);
    loaded.set(lang, p);
  }
  return p;
}

export const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Highlighted HTML cut into lines, each with its spans closed and reopened: a comment or string
 * that spans lines stays coloured on every line.
 */
export function splitHighlighted(html: string): string[] {
  const out: string[] = [];
  const open: string[] = [];
  let line = '';
  const re = /(<span[^>]*>)|(<\/span>)|(\n)|([^<\n]+|<)/g;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    if (m[1]) {
      open.push(m[1]);
      line += m[1];
    } else if (m[2]) {
      open.pop();
      line += m[2];
    } else if (m[3]) {
      out.push(line + '</span>'.repeat(open.length));
      line = open.join('');
    } else line += m[4];
  }
  out.push(line + '</span>'.repeat(open.length));
  return out;
}

/** Past these, a block is shown plain: highlighting is the slowest part of drawing a big diff. */
export const MAX_HIGHLIGHT_LINES = 3000;
const MAX_LINE = 1000;

/**
 * Each line of `lines` (consecutive lines of one file) as HTML, highlighted together so a construct
 * spanning lines keeps its colour; plain (escaped) when the language is not loaded or it is too big.
 */
export function highlightLines(lines: string[], lang: string | null): string[] {
  const plain = () => lines.map(escapeHtml);
  if (!lang || !hljs?.getLanguage(lang) || lines.length > MAX_HIGHLIGHT_LINES || lines.some((l) => l.length > MAX_LINE)) return plain();
  try {
    const split = splitHighlighted(hljs.highlight(lines.join('\n'), { language: lang, ignoreIllegals: true }).value);
    return split.length === lines.length ? split : plain();
  } catch {
    return plain();
  }
}
