/**
 * Secrets an export must not carry, as a documented pattern set (README: "Export"). Each pattern
 * names what it finds; a match becomes `[REDACTED <name>]`. Patterns are anchored on the shapes the
 * issuers document (prefixes, lengths), so ordinary code and prose are left alone.
 */
export const SECRET_PATTERNS: ReadonlyArray<{ name: string; re: RegExp }> = [
  { name: 'private key', re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g },
  { name: 'Anthropic key', re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'OpenAI key', re: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'AWS access key', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { name: 'GitHub token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
  { name: 'GitLab token', re: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { name: 'Slack token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { name: 'Google API key', re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: 'Stripe key', re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g },
  { name: 'npm token', re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'JWT', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g },
  { name: 'bearer token', re: /\b(Bearer)\s+[A-Za-z0-9._~+/-]{20,}=*/g },
  { name: 'password in URL', re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]{3,}(@)/gi },
  {
    // KEY=value, "token": "value": the name ends in a secret word; the value is quoted, or has a digit
    // (so `password = getPassword()` and `tokenCount = items.length` stay).
    name: 'secret assignment',
    re: /\b((?:[A-Za-z0-9]*[_-])?(?:api[_-]?key|secret|token|passw(?:or)?d|auth|access[_-]?key|private[_-]?key)["']?\s*[:=]\s*)("[^"\s]{8,}"|'[^'\s]{8,}'|(?=[^\s"'`,;()]*\d)[^\s"'`,;()]{8,})/gi,
  },
];

export interface Redaction {
  text: string;
  /** How many secrets of each kind were replaced. */
  found: Record<string, number>;
}

/** Replaces every secret the pattern set finds; keeps a key's name (`API_KEY=`) and a URL's user. */
export function redact(text: string): Redaction {
  const found: Record<string, number> = {};
  let out = text;
  for (const { name, re } of SECRET_PATTERNS) {
    out = out.replace(re, (...m: string[]) => {
      found[name] = (found[name] ?? 0) + 1;
      const tag = `[REDACTED ${name}]`;
      if (name === 'bearer token') return `${m[1]} ${tag}`;
      if (name === 'password in URL') return `${m[1]}${tag}${m[2]}`;
      if (name === 'secret assignment') return `${m[1]}${tag}`;
      return tag;
    });
  }
  return { text: out, found };
}
