/** Reading Rewind's MCP tool results as an agent handed them to its model. */

/**
 * A tool result as the model got it: Claude Code 2.1.330 hands the model a tool's structured content
 * (as JSON) when it has one, else its text. Either way the judge reads the same facts.
 */
export function structured(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function hitsOf(text: string): { sessionId: string; promptUuid: string; snippet: string }[] {
  const s = structured(text);
  if (s) return s.matches as never;
  const out: { sessionId: string; promptUuid: string; snippet: string }[] = [];
  let session = '';
  for (const line of text.split('\n')) {
    const m = /^session (\S+)/.exec(line);
    if (m) session = m[1]!;
    const p = /^ {2}prompt (\S+): (.*)$/.exec(line);
    if (p) out.push({ sessionId: session, promptUuid: p[1]!, snippet: p[2]! });
  }
  return out;
}

export function promptsOf(text: string): { number: number | null; uuid: string; text: string }[] {
  const s = structured(text);
  if (s) return (s.prompts as { number: number | null; uuid: string; text: string }[]).map((p) => ({ number: p.number, uuid: p.uuid, text: p.text }));
  return [...text.matchAll(/^ *#(\d+) (\S+) {2}(.*)$/gm)].map((m) => ({ number: Number(m[1]), uuid: m[2]!, text: m[3]! }));
}

export const fieldOf = (text: string, name: string) => (structured(text)?.[name] as string | undefined) ?? new RegExp(`${name}: (\\S+)`).exec(text)?.[1];

