/**
 * Secrets an export must not carry, as one table of patterns (docs/redaction.md). Each pattern names
 * what it finds; a match becomes `[REDACTED <name>]`. Provider tokens are anchored on the shapes
 * their issuers document (prefixes, lengths); names that say "secret" (`NAME=value`, JSON and YAML
 * keys in any case style, escaped JSON inside a tool input) take their value whatever it looks like,
 * except what is plainly code (a call, a dotted name, a `${VAR}`, a type). No well-kept pure-JS,
 * synchronous pattern library exists on npm (secretlint is an async rule engine of many packages), so
 * the table lives here; each row has a planted secret in redact.test.ts and the corpus test there
 * counts survivors.
 */

import { escapedStrings, replaceStrings } from './json-strings.js';

/** Quotes as they appear in a transcript: plain, or escaped inside a JSON string (`\"`). */
const Q = String.raw`(?:\\?["'])`;
/**
 * A line break, real or escaped in a JSON string (once, or again for JSON inside JSON: `\\n`); while
 * the patterns run an escape's letter is a mark (see `scan`).
 */
const NL = String.raw`(?:\\+[r\u0002])?\\+[n\u0001]|\r?\n`;

/**
 * Words a secret's name ends with (`PGPASSWORD`, `STRIPE_SECRET_KEY`, `clientSecret`, `_authToken`).
 * The prefix is bounded: unbounded, a long run of `a.b-c` would be tried from every word start (quadratic).
 */
const SECRET_NAME = String.raw`[A-Za-z0-9_.-]{0,64}?(?:secret|token|passw(?:or)?d|pwd|passphrase|api[_-]?key|apikey|access[_-]?key|private[_-]?key|account[_-]?key|shared[_-]?access[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|session[_-]?key|auth|credentials?|sig|signature|[_-]key)(?:[_-]?(?:key|base|value))?`;

/** A PEM key's five dashes, also as `\u002d` escapes (what some JSON writers make of them). */
const DASHES = String.raw`(?:-|\\+u002[dD]){5}`;

const PRIVATE_KEY = new RegExp(
  // The BEGIN line, then base64 or header lines, then the END line if it is there (a key cut by a
  // clip or pasted without its end is still taken whole).
  String.raw`${DASHES}BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?${DASHES}(?:(?:${NL}|[ \t])+(?:[A-Za-z0-9+/=]{2,}|(?:Proc-Type|DEK-Info|Comment):[^\n\\]*))*(?:(?:${NL}|\s)*${DASHES}END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?${DASHES})?`,
  'g',
);

export const SECRET_PATTERNS: ReadonlyArray<{ name: string; re: RegExp }> = [
  { name: 'private key', re: PRIVATE_KEY },
  { name: 'Anthropic key', re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'OpenAI key', re: /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'AWS access key', re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  { name: 'GitHub token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
  { name: 'GitLab token', re: /\bgl(?:pat|dt|rt|ptt|ft|cbt|imt|agent|oas|soat)-[A-Za-z0-9_-]{20,}/g },
  { name: 'Slack webhook', re: /\bhttps:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+/g },
  { name: 'Slack token', re: /\bx(?:ox[a-z]|app)-[A-Za-z0-9-]{10,}/g },
  { name: 'Google API key', re: /\bAIza[0-9A-Za-z_-]{35}/g },
  { name: 'Google OAuth secret', re: /\bGOCSPX-[A-Za-z0-9_-]{20,}/g },
  { name: 'Google OAuth token', re: /\b(?:ya29\.[A-Za-z0-9_-]{20,}|1\/\/0[A-Za-z0-9_-]{30,})/g },
  { name: 'Stripe key', re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { name: 'webhook secret', re: /\bwhsec_[A-Za-z0-9+/=]{20,}/g },
  { name: 'SendGrid key', re: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g },
  { name: 'Hugging Face token', re: /\bhf_[A-Za-z0-9]{30,}/g },
  { name: 'npm token', re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'PyPI token', re: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g },
  { name: 'Shopify token', re: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g },
  { name: 'DigitalOcean token', re: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
  { name: 'Vault token', re: /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/g },
  { name: 'Linear key', re: /\blin_(?:api|oauth)_[A-Za-z0-9]{32,}/g },
  { name: 'Databricks token', re: /\bdapi[a-f0-9]{32}\b/g },
  { name: 'Twilio key', re: /\bSK[0-9a-f]{32}\b/g },
  { name: 'Mailgun key', re: /\bkey-[0-9a-zA-Z]{32}\b/g },
  { name: 'Telegram bot token', re: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g },
  { name: 'Atlassian token', re: /\bATATT3[A-Za-z0-9_=-]{50,}/g },
  { name: 'age key', re: /\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b/g },
  { name: 'Postman key', re: /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/g },
  { name: 'New Relic key', re: /\bNRAK-[A-Z0-9]{27}\b/g },
  { name: 'Discord webhook', re: /\bhttps:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]+/g },
  { name: 'Discord bot token', re: /\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b/g },
  { name: 'Mailchimp key', re: /\b[0-9a-f]{32}-us\d{1,2}\b/g },
  { name: 'Square token', re: /\b(?:sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}|EAAA[A-Za-z0-9_-]{60})/g },
  { name: 'Firebase key', re: /\bAAAA[A-Za-z0-9_-]{7}:[A-Za-z0-9_-]{100,}/g },
  { name: 'Braintree token', re: /\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}/g },
  { name: 'GitLab runner token', re: /\bGR1348941[A-Za-z0-9_-]{20,}/g },
  { name: 'JWT', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // An Authorization header (any scheme) or a bare `Bearer`/`Basic` credential: the scheme stays.
  { name: 'auth header', re: /\b((?:proxy-)?authorization\\?["']?\s*[:=]\s*\\?["']?(?:(?:bearer|basic|token|digest|bot|apikey|sso-key|negotiate)\s+)?)[^\s"'\\,;]{6,}/gi },
  { name: 'bearer token', re: /\b((?:Bearer|Basic)\s+)[A-Za-z0-9._~+/-]{16,}=*/g },
  { name: 'password in URL', re: /\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@"'\\]*:)[^\s@/"'\\]+(@)/gi },
  // A token as a URL's user (`https://<token>@host`, a Sentry DSN, a git remote with a token).
  { name: 'token in URL', re: /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[A-Za-z0-9_-]{20,}(@)/gi },
  { name: 'cookie', re: /\b((?:set-)?cookie\\?["']?\s*:\s*\\?["']?)[^\s"'\\][^\n"\\]{5,}/gi },
  // `--password x`, `--token=x`, `docker login -p x`, `.netrc`'s `password x`.
  { name: 'command-line secret', re: /((?:^|\s)--(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token|access-token|private-key)(?:\s+|=)|\b(?:docker|podman|helm|oc|mysql)\b[^\n]*?\s-p\s*|\blogin\s+\S+\s+password\s+)(?!-)[^\s"'\\]{3,}/g },
  { name: 'curl credentials', re: /((?:^|\s)(?:-u|--user)\s+\\?["']?[^\s:"'\\]+:)[^\s"'\\]+/g },
  {
    // NAME=value, "name": "value", name: value, `\"name\": \"value\"` (JSON inside a tool input).
    name: 'secret assignment',
    re: new RegExp(String.raw`(${Q}?\b${SECRET_NAME}${Q}?\s*(?:=>|:=|[:=])[ \t]*)(\\"(?:[^"\\\n]|\\(?!"))*\\"|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s"'\x60,;(){}\[\]<>\\]+)(?=(\(?))`, 'gi'),
  },
];

/** Values named as secrets that are plainly not one: code, placeholders, types, other redactions. */
function plainValue(v: string): boolean {
  const inner = v.replace(/^\\?["']|\\?["']$/g, '');
  if (inner.length < 3 || inner.includes('[REDACTED')) return true;
  // `process.env.X`, `config.token`, `${VAR}`, `%VAR%`, `<your-key>`, `$VAR`, `*****`.
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(inner) || /^[$%<{*]/.test(inner) || /^x{3,}$/i.test(inner)) return true;
  return /^(?:string|number|boolean|bool|null|undefined|true|false|none|nil|str|int|bytes|required|optional|redacted|hidden|masked|secret|password|token|env|include|omit|same-origin)$/i.test(inner);
}

/** A name that is only `*_KEY` (`STORAGE_KEY`, `APP_KEY`): its value is a secret only when it looks like one (digits). */
function weakName(assigned: string): boolean {
  const name = assigned.replace(/\\?["']?\s*(?:=>|:=|[:=])[ \t]*$/, '').replace(/^\\?["']/, '');
  return /[_-]key$/i.test(name) && !/secret|token|passw|pwd|api|access|private|account|signing|encryption|master|session|auth|cred/i.test(name);
}

export interface Redaction {
  text: string;
  /** How many secrets of each kind were replaced. */
  found: Record<string, number>;
}

/** How deep JSON inside JSON is unescaped (a tool input holding a file holding a key is 2). */
const MAX_DEPTH = 4;

/**
 * Replaces every secret the pattern set finds; keeps a key's name (`API_KEY=`), a URL's user and an
 * auth scheme. Inside a JSON string that holds escapes (a tool's input or result, a file's JSON in
 * it) a secret is looked for in the string as decoded, where a key's lines are lines again and a
 * token no longer touches an escape's letter; that string alone is then encoded again.
 */
export function redact(text: string): Redaction {
  const found: Record<string, number> = {};
  return { text: redactIn(text, found, 0), found };
}

function redactIn(text: string, found: Record<string, number>, depth: number): string {
  return scan(depth < MAX_DEPTH ? redactStrings(text, found, depth) : text, found);
}

/** Between decoded strings scanned together: no pattern reaches across it (each stops at a line break or a control character). */
const SEP = '\n\u0000\u0000\u0000\u0000\n';

/**
 * The escapes a string is decoded for: `\u` escapes, and an escaped backslash (JSON inside JSON,
 * where a key's line breaks are `\\n`), and `\/`. Strings with only `\n`, `\t`, `\"` escapes are
 * scanned as they are (the patterns read those; see `scan`): decoding every string of a big export
 * cost it four times its time.
 */
const DECODED_ESCAPES = 'u\\/';

/**
 * The escaped JSON strings of `text`, decoded and scanned (and the strings inside them, in turn).
 * All of a text's strings go through one scan, joined by SEP: a tool result holds thousands, and a
 * scan each cost seven times the export. Should a match ever swallow a separator, each string is
 * scanned alone instead.
 */
function redactStrings(text: string, found: Record<string, number>, depth: number): string {
  const strings = escapedStrings(text, DECODED_ESCAPES);
  if (!strings.length) return text;
  const decoded = strings.map((s) => (depth + 1 < MAX_DEPTH ? redactStrings(s.decoded, found, depth + 1) : s.decoded));
  let local: Record<string, number> = {};
  let values = scan(decoded.join(SEP), local).split(SEP);
  if (values.length !== decoded.length) {
    local = {};
    values = decoded.map((d) => scan(d, local));
  }
  for (const [k, n] of Object.entries(local)) found[k] = (found[k] ?? 0) + n;
  return replaceStrings(text, strings, values);
}

/** The escapes whose letter touches a token (`\nAKIA…`, `\tghp_…`), each with the mark it has while the patterns run. */
const ESCAPE_MARKS: ReadonlyArray<[string, string]> = ['n', 'r', 't', 'b', 'f'].map((c, i) => [`\\${c}`, `\\${String.fromCharCode(i + 1)}`]);

function scan(text: string, found: Record<string, number>): string {
  // In escaped text an escape's letter touches the token after it (`\nAKIA…`), so there is no word
  // boundary for a pattern's `\b`. While the patterns run, the letter of each `\n`, `\r`, `\t`, `\b`,
  // `\f` is a control character no pattern takes for part of a token; then the letters come back.
  const marked = text.includes('\\') && !ESCAPE_MARKS.some(([, mark]) => text.includes(mark[1]!));
  let out = marked ? ESCAPE_MARKS.reduce((t, [escape, mark]) => t.replaceAll(escape, mark), text) : text;
  for (const { name, re } of SECRET_PATTERNS) {
    out = out.replace(re, (...m: string[]) => {
      const tag = `[REDACTED ${name}]`;
      let kept = '';
      if (name === 'secret assignment') {
        // A call (`getPassword(`) is code, not a value.
        if (m[3] || plainValue(m[2]!) || (weakName(m[1]!) && !/\d.*\d/.test(m[2]!))) return m[0]!;
        kept = m[1]!;
      } else if (name === 'auth header' || name === 'bearer token' || name === 'curl credentials' || name === 'cookie' || name === 'command-line secret') {
        if (m[0]!.includes('[REDACTED')) return m[0]!;
        kept = m[1]!;
      } else if (name === 'password in URL' || name === 'token in URL') {
        found[name] = (found[name] ?? 0) + 1;
        return `${m[1]}${tag}${m[2]}`;
      }
      found[name] = (found[name] ?? 0) + 1;
      return `${kept}${tag}`;
    });
  }
  return marked ? ESCAPE_MARKS.reduce((t, [escape, mark]) => t.replaceAll(mark, escape), out) : out;
}

/** What a cut (`…`) may have left of a secret: a token that begins like one, or a value after `=`/`:`. */
const CUT_SECRET = /(?:\b(?:sk-|gh[pousr]_|github_pat_|xox[a-z]-|AKIA|ASIA|AIza|GOCSPX-|ya29\.|whsec_|SG\.|hf_|npm_|glpat-|eyJ|-----BEGIN)|([=:]\s*)\\?["']?)[^\s]*…$/;

/**
 * A text cut to a heading or a title and then redacted: a secret cut in half no longer matches its
 * pattern, so a fragment before the `…` that begins like one is dropped as well.
 */
export function redactCut(text: string): Redaction {
  const r = redact(text);
  if (!CUT_SECRET.test(r.text)) return r;
  r.found['cut secret'] = (r.found['cut secret'] ?? 0) + 1;
  return { text: r.text.replace(CUT_SECRET, (_m, kept?: string) => `${kept ?? ''}[REDACTED cut secret]…`), found: r.found };
}
