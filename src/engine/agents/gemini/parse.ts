import type { Timeline, TimelinePrompt } from '../../../shared/session-schema.js';
import { num, obj, str } from '../jsonl.js';
import { addToolCall, promptRow, timelineDoc, titleOf } from '../timeline-parts.js';
import { geminiPromptText, partsOf, replayGemini, type GeminiMessage } from './replay.js';

/**
 * The timeline of a Gemini session: the replayed conversation is the live path; prompts a
 * `$rewindTo` dropped stay visible as dead branches, one lane per rewind.
 */
export function geminiTimeline(buf: Buffer, path: string, cwd: string | null = null): Timeline {
  const r = replayGemini(buf);
  const liveIds = new Set(r.messages.map((m) => m.id));
  const laneOf = new Map<string, { lane: number; forkPoint: string | null }>();
  r.rewinds.forEach((rw, i) => {
    for (const id of rw.dropped) if (!liveIds.has(id) && !laneOf.has(id)) laneOf.set(id, { lane: i + 1, forkPoint: rw.before });
  });
  // Prompts in the order they were first written; each turn is what followed it in the final records.
  const all = [...r.seen.values()].sort((a, b) => a.line.offset - b.line.offset);
  const prompts: TimelinePrompt[] = [];
  let model = null as string | null;
  let live = 0;
  let messages = 0;
  const turnOf = new Map<string, TimelinePrompt>();
  const ordered: GeminiMessage[] = [];
  for (const m of all) {
    const p = geminiPromptText(m.record);
    const latest = r.messages.find((x) => x.id === m.id) ?? m;
    ordered.push(latest);
    if (!p) continue;
    const active = liveIds.has(m.id);
    const dead = laneOf.get(m.id);
    const row = promptRow({ uuid: m.id, index: prompts.length + 1, number: active ? ++live : null, text: p.text, images: p.images, timestamp: str(m.record.timestamp), offset: m.line.offset, length: m.line.length, line: m.line.index, parentUuid: prompts[prompts.length - 1]?.uuid ?? null, lane: active ? 0 : (dead?.lane ?? 1), forkPoint: active ? null : (dead?.forkPoint ?? null) });
    prompts.push(row);
  }
  // Attach each non-prompt message to the prompt before it in its own list (live or dropped).
  const attach = (list: GeminiMessage[]) => {
    let cur: TimelinePrompt | undefined;
    for (const m of list) {
      const p = prompts.find((x) => x.uuid === m.id);
      if (p) {
        cur = p;
        continue;
      }
      if (!cur || turnOf.has(m.id)) continue;
      turnOf.set(m.id, cur);
      messages++;
      // A `$set` list holds messages in Gemini's API shape: the record line of the same id has the details.
      const line = r.records.get(m.id);
      const rec = line && line.record.type === m.record.type ? line.record : m.record;
      const t = cur.turn;
      t.messageCount++;
      if (rec.type === 'gemini') {
        t.assistantMessages++;
        model = str(rec.model) ?? model;
        const tokens = obj(rec.tokens);
        t.inputTokens += num(tokens.input);
        t.outputTokens += num(tokens.output);
        const calls = Array.isArray(rec.toolCalls) ? (rec.toolCalls as Record<string, unknown>[]) : partsOf(rec.content).filter((x) => x.functionCall).map((x) => obj(x.functionCall));
        for (const c of calls) addToolCall(t, str(c.name) ?? 'tool', obj(c.args));
      }
      const ts = str(rec.timestamp);
      if (ts && cur.timestamp) {
        const d = Date.parse(ts) - Date.parse(cur.timestamp);
        if (Number.isFinite(d) && d >= 0) t.durationMs = Math.max(t.durationMs ?? 0, d);
      }
    }
  };
  attach(r.messages);
  for (const rw of r.rewinds) attach(rw.dropped.map((id) => r.seen.get(id)!).filter(Boolean));
  const timestamps = ordered.map((m) => str(m.record.timestamp)).filter((x): x is string => !!x);
  const branches = r.rewinds
    .map((rw) => ({ forkPoint: rw.before ?? '', afterPromptUuid: null as string | null, liveChild: null as string | null, deadRoots: rw.dropped.filter((id) => prompts.some((p) => p.uuid === id && !p.active)).slice(0, 1) }))
    .filter((b) => b.forkPoint && b.deadRoots.length > 0);
  return timelineDoc({
    session: {
      id: r.meta.sessionId ?? path.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, ''),
      agent: 'gemini',
      title: titleOf(prompts),
      cwd,
      transcriptPath: path,
      version: null,
      gitBranch: null,
      sizeBytes: buf.length,
      firstTimestamp: r.meta.startTime ?? timestamps[0] ?? null,
      lastTimestamp: r.meta.lastUpdated ?? timestamps[timestamps.length - 1] ?? null,
      model,
      readOnly: null,
    },
    prompts,
    branches,
    activeLeaf: r.messages[r.messages.length - 1]?.id ?? null,
    lines: r.lines.length,
    messages: messages + prompts.length,
    issues: r.issues,
  });
}
