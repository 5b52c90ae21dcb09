import { parseTranscriptFile } from '../src/engine/agents/claude/parse-transcript.js';
import { toTimeline } from '../src/engine/agents/claude/timeline.js';
const f = process.argv[2]!;
const t = toTimeline(await parseTranscriptFile(f));
for (const p of t.prompts) console.log(p.index, p.number, p.active, p.lane, JSON.stringify(p.text.slice(0, 50)), p.turn.toolCalls.map(c=>c.name+':'+c.summary).join(','), p.nativeCheckpoint?.files.map(f=>f.path+'@'+f.version+(f.backupFileName?'':'(new)')).join(' '));
console.log('commands', t.commands.map(c=>c.name+(c.active?'':'(dead)')), 'compactions', t.compactions.length, 'branches', JSON.stringify(t.branches), 'subagents', JSON.stringify(t.subagents));
console.log('issues', t.issues, 'title', t.session.title, t.stats);
