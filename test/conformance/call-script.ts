/**
 * The scripted models' `CALL tool {json} THEN tool {json} ...` script (scripted-api.ts for Claude,
 * agents/chat-api.ts for the OpenAI-style CLIs): one tool call per reply, each after the previous
 * one's result; `$name` in a later call's JSON is the `name` that result says.
 */
export interface CallStep {
  name: string;
  json: string;
}

/** The steps of the script in the user's words, or null when they hold none. */
export function callChain(text: string): CallStep[] | null {
  const m = /(?:^|\s)CALL (.+)$/s.exec(text);
  if (!m) return null;
  return m[1]!.split(/\s+THEN\s+/).map((step) => {
    const at = step.indexOf(' ');
    return { name: step.slice(0, at), json: step.slice(at + 1).trim() };
  });
}

/** A step's arguments, `$name` filled in from the previous result (text `name: value` or JSON `"name":"value"`). */
export function callArgs(step: CallStep, previous: string): Record<string, unknown> {
  const json = step.json.replace(/\$([A-Za-z]+)/g, (all, name: string) => new RegExp(`\\b${name}"?\\s*:\\s*"?([^\\s",}\\\\]+)`).exec(previous)?.[1] ?? all);
  return JSON.parse(json) as Record<string, unknown>;
}

/** An MCP tool under the name a CLI offers it: `mcp__server__tool`, `server__tool`, `mcp_server_tool` or `tool`. */
export function offeredName(name: string, tools: Set<string>): string {
  const m = /^mcp__(\w+?)__(\w+)$/.exec(name);
  const candidates = m ? [name, `${m[1]}__${m[2]}`, `mcp_${m[1]}_${m[2]}`, m[2]!] : [name];
  return candidates.find((c) => tools.has(c)) ?? name;
}
