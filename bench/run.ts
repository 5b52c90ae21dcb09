import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { generateTranscript } from './generate-transcript.js';

const ROOT = resolve(import.meta.dirname, '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const results: Record<string, unknown> = { date: new Date().toISOString(), node: process.version };
const only = process.argv.slice(2);
const want = (name: string) => only.length === 0 || only.includes(name);
const mb = (b: number) => b / (1024 * 1024);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function timeCmd(cmd: string, args: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  }
  return median(times);
}

const dir = join(tmpdir(), 'rewind-bench');
await mkdir(dir, { recursive: true });

if (want('parse')) {
  const file = join(dir, 'parse-200mb.jsonl');
  const st = await stat(file).catch(() => null);
  if (!st || st.size < 200 * 1024 * 1024) await generateTranscript(file, 200 * 1024 * 1024);
  const size = (await stat(file)).size;
  const run = (mode: string) => JSON.parse(execFileSync(TSX, [join(ROOT, 'bench', 'parse-worker.ts'), mode, file], { encoding: 'utf8', maxBuffer: 1 << 20 }));
  const bare: { ms: number; peakRss: number; baseRss: number }[] = [];
  const engine: { ms: number; peakRss: number; baseRss: number; detail: unknown }[] = [];
  for (let i = 0; i < 3; i++) {
    bare.push(run('bare'));
    engine.push(run('engine'));
  }
  const bareMs = median(bare.map((b) => b.ms));
  const engMs = median(engine.map((b) => b.ms));
  const peak = Math.max(...engine.map((e) => e.peakRss));
  const r = {
    fileMiB: +mb(size).toFixed(1),
    bareMiBs: +(mb(size) / (bareMs / 1000)).toFixed(1),
    engineMiBs: +(mb(size) / (engMs / 1000)).toFixed(1),
    ratio: +(bareMs / engMs).toFixed(2),
    enginePeakRssMiB: +mb(peak).toFixed(0),
    memoryVsFile: +(peak / size).toFixed(2),
    detail: engine[0]!.detail,
    targets: { ratio: '>= 0.5', memoryVsFile: '< 2' },
  };
  results.parse = r;
  console.log(`parse: ${r.fileMiB} MiB  bare JSON.parse loop ${r.bareMiBs} MiB/s  engine ${r.engineMiBs} MiB/s  (ratio ${r.ratio}, target >= 0.5)  peak RSS ${r.enginePeakRssMiB} MiB = ${r.memoryVsFile}x file (target < 2x)`);
}

if (want('back')) {
  const file = join(dir, 'back-1gib', 'projects', '-home-dev-project', '00000000-0000-4000-8000-00000000beef.jsonl');
  await mkdir(join(file, '..'), { recursive: true });
  const st = await stat(file).catch(() => null);
  if (!st || st.size < 1024 * 1024 * 1024) await generateTranscript(file, 1024 * 1024 * 1024);
  const size = (await stat(file)).size;
  const cli = join(ROOT, 'out', 'cli', 'rewind-app.mjs');
  // Interleaved, so a slow stretch of the machine weighs on both sides alike.
  const nodeRuns: number[] = [];
  const backRuns: number[] = [];
  for (let i = 0; i < 15; i++) {
    nodeRuns.push(timeCmd(process.execPath, ['-e', ''], 1));
    backRuns.push(timeCmd(process.execPath, [cli, 'back', '1', '--dry-run', '--transcript', file], 1));
  }
  const nodeMs = median(nodeRuns);
  const backMs = median(backRuns);
  const project = join(dir, 'back-project');
  await mkdir(project, { recursive: true });
  const forks: number[] = [];
  const cps: number[] = [];
  const cpSyncs: number[] = [];
  // Before each timed copy: no dirty pages left by the previous one, and the source back in the page
  // cache (this VM reclaims cold pages), so neither side reads from disk while the other does not.
  const settle = () => {
    spawnSync('sync');
    spawnSync('sh', ['-c', `cat '${file}' > /dev/null`]);
  };
  for (let i = 0; i < 7; i++) {
    settle();
    const t0 = performance.now();
    const out = execFileSync(process.execPath, [cli, 'back', '1', '--transcript', file, '--project', project], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    forks.push(performance.now() - t0);
    const id = /Fork created: (\S+)/.exec(out)?.[1];
    if (id) await rm(join(file, '..', `${id}.jsonl`));
    const copy = join(dir, 'cp-copy.jsonl');
    settle();
    cps.push(timeCmd('cp', [file, copy], 1));
    await rm(copy);
  }
  for (let i = 0; i < 3; i++) {
    settle();
    const copy = join(dir, 'cp-copy.jsonl');
    cpSyncs.push(timeCmd('sh', ['-c', `cp '${file}' '${copy}' && sync '${copy}'`], 1));
    await rm(copy);
  }
  if (process.env.BENCH_VERBOSE) console.log({ forks, cps, cpSyncs, nodeRuns, backRuns });
  // A 1 GiB copy on this VM's disk is bimodal: about 0.27 s, or 1.3-1.8 s at random, for `cp` itself
  // as much as for us. The target compares the fast mode (best of 7); the medians are kept too.
  const forkMs = Math.min(...forks);
  const cpMs = Math.min(...cps);
  const r = {
    fileMiB: +mb(size).toFixed(0),
    nodeEmptyMs: +nodeMs.toFixed(1),
    backDryRunMs: +backMs.toFixed(1),
    dryRunVsNode: +(backMs / nodeMs).toFixed(2),
    forkBestMs: +forkMs.toFixed(0),
    cpBestMs: +cpMs.toFixed(0),
    forkMedianMs: +median(forks).toFixed(0),
    cpMedianMs: +median(cps).toFixed(0),
    cpSyncMs: +median(cpSyncs).toFixed(0),
    forkVsCp: +(forkMs / cpMs).toFixed(2),
    targets: { dryRunVsNode: '<= 1.5 (medians of 15, interleaved)', forkVsCp: '<= 2 (best of 7 each)' },
  };
  results.back = r;
  console.log(`back: ${r.fileMiB} MiB transcript  back 1 --dry-run ${r.backDryRunMs} ms vs node -e '' ${r.nodeEmptyMs} ms (${r.dryRunVsNode}x, target <= 1.5x)  fork ${r.forkBestMs} ms vs cp ${r.cpBestMs} ms best of 7 (${r.forkVsCp}x, target <= 2x; medians ${r.forkMedianMs} vs ${r.cpMedianMs}; cp+sync ${r.cpSyncMs} ms)`);
}

if (want('checkpoint')) {
  const { generateTree } = await import('./generate-tree.js');
  const { takeCheckpoint } = await import('../src/engine/store/checkpoint.js');
  const { resolveRestoreTarget, restore } = await import('../src/engine/store/restore.js');
  const { recordAgentWrite } = await import('../src/engine/store/agent-writes.js');
  const { hashFile } = await import('../src/engine/store/objects.js');
  const { appendFile, readdir } = await import('node:fs/promises');
  const tree = join(dir, 'tree-20k');
  await rm(tree, { recursive: true, force: true });
  await mkdir(tree, { recursive: true });
  await generateTree(tree, 20_000, 300 * 1024 * 1024);
  const gitDir = join(dir, 'shadow.git');
  await rm(gitDir, { recursive: true, force: true });
  execFileSync('git', ['init', '-q', '--bare', gitDir]);
  const git = (...args: string[]) => {
    const t0 = performance.now();
    const out = execFileSync('git', [`--git-dir=${gitDir}`, `--work-tree=${tree}`, ...args], { cwd: tree, encoding: 'utf8', maxBuffer: 1 << 26 });
    return { ms: performance.now() - t0, out: out.trim() };
  };
  const gitSnap = () => {
    const a = git('add', '-A');
    const w = git('write-tree');
    return { ms: a.ms + w.ms, tree: w.out };
  };
  const ours = async (touched?: string[]) => {
    const t0 = performance.now();
    const r = await takeCheckpoint({ projectRoot: tree, trigger: touched ? 'prompt' : 'manual', touched: touched ?? null });
    return { ms: performance.now() - t0, r };
  };
  const gitFirst = gitSnap();
  const first = await ours();
  const gitAgain = gitSnap();
  const again = await ours();
  const pick: string[] = [];
  for (const d of ['pkg1/mod1/d1', 'pkg2/mod2/d2']) for (const f of (await readdir(join(tree, d))).slice(0, 5)) pick.push(`${d}/${f}`);
  for (const p of pick) await appendFile(join(tree, p), '// touched\n');
  const gitTouched = gitSnap();
  const touched = await ours(pick);
  // Restore: the agent changes 10 files again (reported edits), then we go back.
  for (const p of pick) {
    await appendFile(join(tree, p), '// agent edit\n');
    await recordAgentWrite(tree, { time: new Date(Date.now() + 1000).toISOString(), path: p, ref: await hashFile(join(tree, p)), tool: 'Edit' });
  }
  const target = await resolveRestoreTarget({ projectRoot: tree, ref: touched.r.manifest.id });
  const t0 = performance.now();
  const rr = await restore(tree, target, {});
  const restoreMs = performance.now() - t0;
  for (const p of pick) await appendFile(join(tree, p), '// agent edit 2\n');
  const gitRestore = git('restore', `--source=${gitTouched.tree}`, '--worktree', '--', '.');
  const r = {
    files: first.r.manifest.entries.length,
    firstMs: Math.round(first.ms),
    gitFirstMs: Math.round(gitFirst.ms),
    firstVsGit: +(first.ms / gitFirst.ms).toFixed(2),
    unchangedMs: Math.round(again.ms),
    unchangedHashed: again.r.hashed,
    gitUnchangedMs: Math.round(gitAgain.ms),
    touchedMs: Math.round(touched.ms),
    touchedHashed: touched.r.hashed,
    gitTouchedMs: Math.round(gitTouched.ms),
    restore10Ms: Math.round(restoreMs),
    restoreWritten: rr.applied?.written,
    gitRestore10Ms: Math.round(gitRestore.ms),
    targets: { firstVsGit: '<= 1.5', touchedMs: '< 50' },
  };
  results.checkpoint = r;
  console.log(
    `checkpoint (${r.files} files, 300 MiB): first ${r.firstMs} ms vs shadow git ${r.gitFirstMs} ms (${r.firstVsGit}x, target <= 1.5x); ` +
      `unchanged ${r.unchangedMs} ms (${r.unchangedHashed} read) vs git ${r.gitUnchangedMs} ms; ` +
      `touched set of 10: ${r.touchedMs} ms (target < 50 ms) vs git ${r.gitTouchedMs} ms; ` +
      `restore of 10 changed files ${r.restore10Ms} ms vs git restore ${r.gitRestore10Ms} ms`,
  );
}

if (want('hook')) {
  // What the agent waits for on every tool call (PreToolUse) and every prompt (UserPromptSubmit,
  // which checkpoints: here a touched-set one, as after an Edit), next to a bare node start.
  const project = join(dir, 'hook-project');
  await rm(project, { recursive: true, force: true });
  await mkdir(join(project, 'src'), { recursive: true });
  for (let i = 0; i < 200; i++) await writeFile(join(project, 'src', `f${i}.ts`), `export const v${i} = ${i};\n`);
  const cli = join(ROOT, 'out', 'cli', 'rewind-app.mjs');
  const hook = (payload: object) => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [cli, 'hook'], { input: JSON.stringify({ cwd: project, session_id: 'bench', ...payload }), stdio: ['pipe', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`hook failed: ${r.stderr}`);
    return performance.now() - t0;
  };
  hook({ hook_event_name: 'UserPromptSubmit' });
  const nodeRuns: number[] = [];
  const pre: number[] = [];
  const prompt: number[] = [];
  for (let i = 0; i < 15; i++) {
    nodeRuns.push(timeCmd(process.execPath, ['-e', ''], 1));
    pre.push(hook({ hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: join(project, 'src', `f${i}.ts`) } }));
    prompt.push(hook({ hook_event_name: 'UserPromptSubmit' }));
  }
  const r = { nodeEmptyMs: +median(nodeRuns).toFixed(1), preToolUseMs: +median(pre).toFixed(1), userPromptSubmitMs: +median(prompt).toFixed(1) };
  results.hook = r;
  console.log(`hook: PreToolUse ${r.preToolUseMs} ms, UserPromptSubmit (checkpoint) ${r.userPromptSubmitMs} ms, vs node -e '' ${r.nodeEmptyMs} ms (medians of 15, interleaved)`);
}

// Every agent's hook (`hook --agent X`), each next to node -e '' in turns: bench/hook.ts.
if (want('hook-agents')) execFileSync(TSX, [join(ROOT, 'bench', 'hook.ts')], { stdio: 'inherit' });

if (want('live')) {
  const { RewindService } = await import('../src/main/service/rewind-service.js');
  const { appendFile: append } = await import('node:fs/promises');
  const root = join(dir, 'live-claude');
  const file = join(root, 'projects', '-home-dev-project', '00000000-0000-4000-8000-00000000beef.jsonl');
  await rm(root, { recursive: true, force: true });
  await mkdir(join(file, '..'), { recursive: true });
  await generateTranscript(file, 100 * 1024 * 1024);
  const service = new RewindService({ claudeRoot: root });
  await service.start();
  const t = await service.handle('getTimeline', { session: file });
  if (!t.ok) throw new Error(t.error.message);
  let leaf = (t.value as { activeLeaf: string }).activeLeaf;
  const lat: number[] = [];
  for (let i = 0; i < 15; i++) {
    const uuid = `bench-live-${i}-0000-4000-8000-000000000000`;
    const line = { type: 'user', uuid, parentUuid: leaf, isSidechain: false, sessionId: '00000000-0000-4000-8000-00000000beef', timestamp: new Date().toISOString(), message: { role: 'user', content: `live prompt ${i}` } };
    const got = new Promise<number>((resolvePromise) => {
      const off = service.onEvent((e) => {
        if (e.type === 'timelineChanged' && e.upserts.some((p) => p.uuid === uuid)) {
          off();
          resolvePromise(performance.now());
        }
      });
    });
    const t0 = performance.now();
    await append(file, `${JSON.stringify(line)}\n`);
    lat.push((await got) - t0);
    leaf = uuid;
    await new Promise((r2) => setTimeout(r2, 50));
  }
  await service.close();
  const r = { transcriptMiB: 100, medianMs: +median(lat).toFixed(1), maxMs: +Math.max(...lat).toFixed(1), target: 'median < 150 ms' };
  results.live = r;
  console.log(`live: append of a prompt to a 100 MiB transcript -> timeline event: median ${r.medianMs} ms, max ${r.maxMs} ms (target: median < 150 ms)`);
}

if (want('scale')) {
  // A heavy user's history (bench/generate-history.ts) at the Scale issue's size (3.9 GiB, 2,500
  // sessions; generated once in ~90 s, 4.4 GB of /tmp). REWIND_BENCH_SCALE=0.25 scales its bytes down
  // for a quicker run (session counts stay 2,500); the figures say which scale ran.
  const { generateHistory, PLANT_MANY, PLANT_BIG, PLANT_PHRASE, PLANT_ACCENT } = await import('./generate-history.js');
  const scale = Number(process.env.REWIND_BENCH_SCALE ?? '1');
  const root = join(dir, `history-${scale}`);
  const t0 = performance.now();
  const h = await generateHistory(root, scale);
  console.log(`scale: history of ${h.sessions} sessions, ${(h.bytes / 1024 ** 3).toFixed(2)} GiB (scale ${scale}) ready in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const cli = join(ROOT, 'out', 'cli', 'rewind-app.mjs');
  const cache = join(dir, `history-cache-${scale}`);
  const env = { ...process.env, CLAUDE_CONFIG_DIR: root, CODEX_HOME: join(dir, 'no-codex'), REWIND_CACHE_DIR: cache, HOME: dir };
  const runCli = (args: string[]) => {
    const a = performance.now();
    const r = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 28 });
    return { ms: performance.now() - a, status: r.status, out: r.stdout, err: r.stderr };
  };
  const grep = (word: string) => {
    const a = performance.now();
    const r = spawnSync('grep', ['-rlF', word, join(root, 'projects')], { encoding: 'utf8', maxBuffer: 1 << 24 });
    return { ms: performance.now() - a, files: r.stdout.trim().split('\n').filter(Boolean) };
  };
  // First search (the index is built) vs grep, both with the files in the page cache: best of
  // three each, interleaved (the machine is shared: a run can lose a core to someone else).
  grep(PLANT_MANY);
  const greps: ReturnType<typeof grep>[] = [];
  const firsts: ReturnType<typeof runCli>[] = [];
  for (let k = 0; k < 3; k++) {
    greps.push(grep(PLANT_MANY));
    await rm(cache, { recursive: true, force: true });
    firsts.push(runCli(['search', PLANT_MANY, '--json']));
    if (firsts[k]!.status !== 0) throw new Error(`search failed: ${firsts[k]!.err}`);
  }
  const g = greps.reduce((a, b) => (b.ms < a.ms ? b : a));
  const first = firsts.reduce((a, b) => (b.ms < a.ms ? b : a));
  const firstDoc = JSON.parse(first.out) as { totalHits: number; sessions: { transcriptPath: string }[]; notSearched: unknown[] };
  const recall = (q: string, expected: number) => {
    const r = runCli(['search', q, '--json']);
    return r.status === 0 ? (JSON.parse(r.out) as { totalHits: number }).totalHits / expected : 0;
  };
  const recalls = {
    [PLANT_MANY]: firstDoc.totalHits / h.planted[PLANT_MANY]!,
    [PLANT_BIG]: recall(PLANT_BIG, 1),
    [`"${PLANT_PHRASE}"`]: recall(`"${PLANT_PHRASE.toUpperCase()}"`, 3),
    [PLANT_ACCENT]: recall(PLANT_ACCENT.toUpperCase().normalize('NFD').replace(/\p{M}/gu, ''), 2),
  };
  const sameFiles = JSON.stringify(firstDoc.sessions.map((s) => s.transcriptPath).sort()) === JSON.stringify([...g.files].sort());
  // Warm search and sessions --json, interleaved with node -e ''.
  const nodeRuns: number[] = [];
  const warm: number[] = [];
  const list: number[] = [];
  let listed = { sessions: 0, counted: 0 };
  for (let i = 0; i < 9; i++) {
    nodeRuns.push(timeCmd(process.execPath, ['-e', ''], 1));
    warm.push(runCli(['search', PLANT_MANY, '--json']).ms);
    const l = runCli(['sessions', '--json']);
    list.push(l.ms);
    const doc = JSON.parse(l.out) as { sessions: { promptCount: number | null }[] };
    listed = { sessions: doc.sessions.length, counted: doc.sessions.filter((s) => s.promptCount !== null).length };
  }
  // In the app: the service's searchPrompts (index on its engine worker when built; inline here).
  const { RewindService } = await import('../src/main/service/rewind-service.js');
  const svc = new RewindService({ claudeRoot: root, roots: { codex: join(dir, 'no-codex') }, cacheDir: cache });
  await svc.start();
  await svc.handle('searchPrompts', { query: PLANT_MANY });
  const inApp: number[] = [];
  for (let i = 0; i < 15; i++) {
    const a = performance.now();
    const r = await svc.handle('searchPrompts', { query: i % 2 ? PLANT_MANY : PLANT_PHRASE });
    if (!r.ok) throw new Error(r.error.message);
    inApp.push(performance.now() - a);
  }
  // Server memory after opening the four biggest sessions.
  for (const f of h.biggest.slice(0, 4)) await svc.handle('getTimeline', { session: f });
  const rssAfterBig = process.memoryUsage().rss;
  await svc.close();
  // Browser mode: launch to the first session list (the index exists by now: a window's start reads
  // it and nothing else), next to `node -e ''` launched in the same loop; then the same with two
  // busy loops beside it (as many as this machine's cores).
  const { spawn } = await import('node:child_process');
  const launchOnce = async (i: number) => {
    const a = performance.now();
    const child = spawn(process.execPath, [cli, 'serve', '--port', '0'], { env: { ...env, REWIND_SOCKET: join(dir, `scale-${i}.sock`) }, stdio: ['ignore', 'pipe', 'ignore'] });
    const url = await new Promise<string>((res) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /running at (\S+)/.exec(out);
        if (m) res(m[1]!);
      });
    });
    const u = new URL(url);
    const r = await fetch(`${u.origin}/api/listSessions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-rewind-token': u.searchParams.get('token')! }, body: '{}' });
    const doc = (await r.json()) as { ok: boolean; value?: { sessions: unknown[] } };
    if (!doc.ok || doc.value!.sessions.length !== h.sessions) throw new Error(`browser mode listed ${doc.value?.sessions.length} sessions`);
    const ms = performance.now() - a;
    const gone = new Promise((res) => child.once('exit', res));
    child.kill();
    await gone;
    return ms;
  };
  const launchRound = async () => {
    const launches: number[] = [];
    const nodeStarts: number[] = [];
    for (let i = 0; i < 5; i++) {
      nodeStarts.push(timeCmd(process.execPath, ['-e', ''], 1));
      launches.push(await launchOnce(i));
    }
    return { medianMs: median(launches), bestMs: Math.min(...launches), nodeMs: median(nodeStarts) };
  };
  const launchIdle = await launchRound();
  const busy = [0, 1].map(() => spawn('yes', [], { stdio: 'ignore' }));
  const launchLoaded = await launchRound().finally(() => busy.forEach((b) => b.kill()));
  // The watcher's own latency (chokidar's notice plus the 20 ms debounce): the floor of append to event.
  const watcherMs = await (async () => {
    const { Watcher } = await import('../src/main/service/watcher.js');
    const { adapterFor } = await import('../src/engine/agents/registry.js');
    const { appendFile: append } = await import('node:fs/promises');
    let seen: ((t: number) => void) | null = null;
    const w = new Watcher({ onTranscript: (p) => p === h.small && seen?.(performance.now()), onSessions: () => undefined, onStore: () => undefined });
    await w.watchSessions('claude', adapterFor('claude').watch(root));
    const lat: number[] = [];
    for (let i = 0; i < 11; i++) {
      const got = new Promise<number>((res, rej) => {
        seen = res;
        setTimeout(() => rej(new Error(`the watcher did not see ${h.small} grow`)), 10_000).unref();
      });
      const a = performance.now();
      // A line every reader skips (Claude Code writes these itself).
      await append(h.small, `${JSON.stringify({ type: 'last-prompt', lastPrompt: `watch ${i}`, sessionId: 'bench' })}\n`);
      lat.push((await got) - a);
      await new Promise((r2) => setTimeout(r2, 50));
    }
    await w.close();
    return median(lat);
  })();
  // Append to event: the 10k-message session and a small one, through the service's watcher; the
  // service's counter says what each append touched.
  const work = { extends: 0, rebuilds: 0, maxMessages: 0, maxPrompts: 0 };
  const appendMs = async (file: string) => {
    const { appendFile: append, readFile: read } = await import('node:fs/promises');
    const s = new RewindService({ claudeRoot: root, roots: { codex: join(dir, 'no-codex') }, cacheDir: cache });
    await s.start();
    const t = await s.handle('getTimeline', { session: file });
    if (!t.ok) throw new Error(t.error.message);
    let leaf = (t.value as { activeLeaf: string }).activeLeaf;
    const sid = JSON.parse((await read(file, 'utf8')).slice(0, 2000).split('\n').find((l) => l.includes('"sessionId"'))!).sessionId as string;
    const lat: number[] = [];
    for (let i = 0; i < 11; i++) {
      const uuid = `bench-scale-${i}-0000-4000-8000-${Date.now().toString().padStart(12, '0').slice(-12)}`;
      const got = new Promise<number>((res, rej) => {
        const off = s.onEvent((e) => {
          if (e.type === 'timelineChanged' && e.upserts.some((p) => p.uuid === uuid)) {
            off();
            res(performance.now());
          }
        });
        setTimeout(() => rej(new Error(`no event for the prompt appended to ${file}`)), 10_000).unref();
      });
      const a = performance.now();
      await append(file, `${JSON.stringify({ type: 'user', uuid, parentUuid: leaf, isSidechain: false, userType: 'external', sessionId: sid, timestamp: new Date().toISOString(), message: { role: 'user', content: `scale prompt ${i}` } })}\n`);
      lat.push((await got) - a);
      const did = s.live.work.get(file);
      if (did?.kind === 'extend') work.extends++;
      else work.rebuilds++;
      work.maxMessages = Math.max(work.maxMessages, did?.messages ?? 0);
      work.maxPrompts = Math.max(work.maxPrompts, did?.prompts ?? 0);
      leaf = uuid;
      await new Promise((r2) => setTimeout(r2, 50));
    }
    await s.close();
    return median(lat);
  };
  const tenKMs = await appendMs(h.tenK);
  const smallMs = await appendMs(h.small);
  const nodeMs = median(nodeRuns);
  const r = {
    scale,
    historyGiB: +(h.bytes / 1024 ** 3).toFixed(2),
    sessions: h.sessions,
    firstSearchMs: +first.ms.toFixed(0),
    grepMs: +g.ms.toFixed(0),
    firstSearchRunsMs: firsts.map((f) => +f.ms.toFixed(0)),
    grepRunsMs: greps.map((x) => +x.ms.toFixed(0)),
    firstVsGrep: +(first.ms / g.ms).toFixed(2),
    recall: recalls,
    sameSessionsAsGrep: sameFiles,
    notSearched: firstDoc.notSearched.length,
    warmSearchMs: +median(warm).toFixed(1),
    nodeEmptyMs: +nodeMs.toFixed(1),
    warmSearchVsNode: +(median(warm) / nodeMs).toFixed(2),
    inAppSearchMs: +median(inApp).toFixed(1),
    sessionsJsonMs: +median(list).toFixed(1),
    sessionsJsonVsNode: +(median(list) / nodeMs).toFixed(2),
    listed,
    browserLaunchToListMs: +launchIdle.medianMs.toFixed(0),
    browserLaunch: {
      idle: { medianMs: +launchIdle.medianMs.toFixed(0), bestMs: +launchIdle.bestMs.toFixed(0), nodeEmptyMs: +launchIdle.nodeMs.toFixed(0) },
      twoBusyLoops: { medianMs: +launchLoaded.medianMs.toFixed(0), bestMs: +launchLoaded.bestMs.toFixed(0), nodeEmptyMs: +launchLoaded.nodeMs.toFixed(0) },
    },
    serverRssAfterFourBiggestMiB: +mb(rssAfterBig).toFixed(0),
    appendToEventMs: { tenK: +tenKMs.toFixed(1), small: +smallMs.toFixed(1), ratio: +(Math.max(tenKMs, smallMs) / Math.min(tenKMs, smallMs)).toFixed(2), watcherMs: +watcherMs.toFixed(1) },
    appendWork: work,
    targets: { firstVsGrep: '<= 3', recall: '1', warmSearchVsNode: '<= 3', inAppSearchMs: '< 50', sessionsJsonVsNode: '<= 6', browserLaunchToListMs: '< 1000', appendToEventMs: 'both < 50, ratio <= 2' },
  };
  results.scale = r;
  console.log(`scale: first search (index build) ${r.firstSearchMs} ms vs grep -rlF ${r.grepMs} ms (${r.firstVsGrep}x, target <= 3x); recall ${JSON.stringify(r.recall)}; same sessions as grep: ${r.sameSessionsAsGrep}`);
  console.log(`scale: warm search ${r.warmSearchMs} ms vs node -e '' ${r.nodeEmptyMs} ms (${r.warmSearchVsNode}x, target <= 3x); in-app search ${r.inAppSearchMs} ms (target < 50)`);
  console.log(`scale: sessions --json ${r.sessionsJsonMs} ms (${r.sessionsJsonVsNode}x node, target <= 6x), ${listed.counted}/${listed.sessions} counted; browser launch to list ${r.browserLaunchToListMs} ms (target < 1000); RSS after the four biggest ${r.serverRssAfterFourBiggestMiB} MiB`);
  console.log(`scale: browser launch to first list: idle median ${r.browserLaunch.idle.medianMs} ms, best ${r.browserLaunch.idle.bestMs} ms (node -e '' ${r.browserLaunch.idle.nodeEmptyMs} ms); beside two busy loops median ${r.browserLaunch.twoBusyLoops.medianMs} ms, best ${r.browserLaunch.twoBusyLoops.bestMs} ms (node -e '' ${r.browserLaunch.twoBusyLoops.nodeEmptyMs} ms); target < 1000`);
  console.log(`scale: append to event: 10k-message session ${r.appendToEventMs.tenK} ms, small ${r.appendToEventMs.small} ms (ratio ${r.appendToEventMs.ratio}; target both < 50, within 2x); the watcher alone ${r.appendToEventMs.watcherMs} ms; per append: ${work.extends} incremental, ${work.rebuilds} rebuilt, at most ${work.maxMessages} messages and ${work.maxPrompts} prompts touched`);
}

/**
 * One session in Chromium: first render after the data (median of 3 loads), then the first scroll
 * through it top to bottom (rows never drawn before), one step a frame, every frame timed; the floor
 * is the same scroll over an empty page of the same height, in the same browser and run.
 */
async function measureUi(name: string, generate: (file: string) => Promise<unknown>) {
  const { chromium } = await import('@playwright/test');
  const { spawn } = await import('node:child_process');
  const root = join(dir, `ui-${name}`);
  const file = join(root, 'projects', '-home-dev-project', '00000000-0000-4000-8000-00000000beef.jsonl');
  await rm(root, { recursive: true, force: true });
  await mkdir(join(file, '..'), { recursive: true });
  await generate(file);
  const child = spawn(process.execPath, [join(ROOT, 'out', 'cli', 'rewind-app.mjs'), 'serve', '--port', '0'], { env: { ...process.env, CLAUDE_CONFIG_DIR: root, REWIND_SOCKET: join(dir, `ui-${name}.sock`), REWIND_CACHE_DIR: join(dir, `ui-${name}-cache`) }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolvePromise) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /running at (\S+)/.exec(out);
      if (m) resolvePromise(m[1]!);
    });
  });
  const browser = await chromium.launch({ executablePath: process.env.REWIND_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const renders: number[] = [];
  for (let i = 0; i < 3; i++) {
    await page.goto(url);
    await page.waitForFunction(() => performance.getEntriesByName('rewind:timeline-render').length > 0, null, { timeout: 120_000 });
    renders.push(await page.evaluate(() => performance.getEntriesByName('rewind:timeline-render')[0]!.duration));
  }
  const rows = await page.locator('.prompt-row').count();
  const textless = await page.evaluate(() => [...document.querySelectorAll('.rows .prompt-text')].filter((t) => !(t.textContent ?? '').trim() || t.getBoundingClientRect().width < 100).length);
  const scrollFrames = () =>
    page.evaluate(async () => {
      const el = document.querySelector('.rows') as HTMLElement;
      el.scrollTop = 0;
      await new Promise((r) => requestAnimationFrame(r));
      const deltas: number[] = [];
      let last = performance.now();
      while (el.scrollTop + el.clientHeight < el.scrollHeight - 1) {
        el.scrollTop += 120;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        deltas.push(now - last);
        last = now;
        if (deltas.length > 6000) break;
      }
      return deltas;
    });
  const frames = await scrollFrames();
  const total = await page.evaluate(() => (document.querySelector('.rows') as HTMLElement).scrollHeight);
  await page.setContent(`<div class="rows" style="height:700px;overflow:auto"><div style="height:${total}px"></div></div>`);
  const floorFrames = await scrollFrames();
  await browser.close();
  child.kill('SIGTERM');
  const over = (fs: number[], ms: number) => fs.filter((d) => d > ms).length;
  const p95 = (fs: number[]) => +[...fs].sort((a, b) => a - b)[Math.floor(fs.length * 0.95)]!.toFixed(1);
  return {
    firstRenderMs: +median(renders).toFixed(0),
    renderedRows: rows,
    rowsWithoutText: textless,
    scrollFrames: frames.length,
    droppedFrames: over(frames, 1.5 * (1000 / 60)),
    framesOver50ms: over(frames, 50),
    p95FrameMs: p95(frames),
    maxFrameMs: +Math.max(...frames).toFixed(1),
    emptyPageFrames: floorFrames.length,
    emptyPageDropped: over(floorFrames, 1.5 * (1000 / 60)),
    emptyPageOver50ms: over(floorFrames, 50),
    emptyPageMaxFrameMs: +Math.max(...floorFrames).toFixed(1),
    targets: { firstRenderMs: '< 500', framesOver50ms: '0' },
  };
}

if (want('ui')) {
  // 10,000 prompts: small turns, so the transcript stays a few hundred MB at most.
  const { generatePrompts } = await import('./generate-transcript.js');
  const { generateRewound } = await import('./generate-rewound.js');
  const flat = { prompts: 10_000, ...(await measureUi('flat', (f) => generatePrompts(f, 10_000))) };
  const rewound = { messages: 10_000, rewinds: 275, ...(await measureUi('rewound', (f) => generateRewound(f, { messages: 10_000, rewinds: 275 }))) };
  results.ui = { ...flat, rewound };
  for (const [label, r] of [['10,000-prompt timeline', flat], ['10,000 messages, 275 native rewinds', rewound]] as const) {
    console.log(
      `ui: ${label}: first render ${r.firstRenderMs} ms after the data (target < 500 ms; ${r.renderedRows} rows in the DOM, ${r.rowsWithoutText} without visible text); first scroll over ${r.scrollFrames} frames: ${r.framesOver50ms} over 50 ms, ${r.droppedFrames} over 25 ms (longest ${r.maxFrameMs} ms, p95 ${r.p95FrameMs} ms); the same scroll of an empty page: ${r.emptyPageOver50ms} over 50 ms, ${r.emptyPageDropped} of ${r.emptyPageFrames} over 25 ms (longest ${r.emptyPageMaxFrameMs} ms)`,
    );
  }
}

if (want('browser')) {
  const { measureBrowserSpeed } = await import('./browser-speed.js');
  const r = await measureBrowserSpeed(dir, ROOT, Number(process.env.BROWSER_RUNS ?? 7));
  results.browser = r;
  for (const [label, x] of [['idle', r.idle], ['beside two busy loops', r.twoBusyLoops]] as const)
    console.log(`browser (${label}): first visit to ready ${x.readyMs} ms (best ${x.readyBestMs}; target < 1000); a 10,000-message session's text on screen ${x.sessionTextMs} ms after the click (best ${x.sessionTextBestMs}; target < 500); an empty page ${x.emptyPageMs} ms; medians of ${r.runs} fresh contexts`);
  console.log(`browser: the server's very first visit (its index built from nothing) to ready ${r.firstVisitOfServerMs} ms; script fetched before ready ${r.scriptBeforeReadyKiB} KiB`);
}

if (want('restore-big')) {
  // A rewritten 20k-line file plus 300 files of 12 KB: restore must not diff what it writes.
  const { takeCheckpoint } = await import('../src/engine/store/checkpoint.js');
  const proj = join(dir, 'restore-big');
  await rm(proj, { recursive: true, force: true });
  await mkdir(join(proj, 'src'), { recursive: true });
  const big = (v: string) => Array.from({ length: 20_000 }, (_, i) => `const line${i} = '${v}-${i}-${'x'.repeat(30)}';`).join('\n') + '\n';
  const small = (i: number, v: string) => `${v} ${i} `.repeat(1200).slice(0, 12_000);
  const writeState = async (v: string, onlyBig = false) => {
    await writeFile(join(proj, 'big.ts'), big(v));
    if (!onlyBig) for (let i = 0; i < 300; i++) await writeFile(join(proj, 'src', `f${i}.txt`), small(i, v));
  };
  await writeState('A');
  const cp = await takeCheckpoint({ projectRoot: proj, trigger: 'manual' });
  // The reference: `cp` of the same files from a copy of state A.
  const refA = join(dir, 'restore-big-refA');
  await rm(refA, { recursive: true, force: true });
  execFileSync('cp', ['-a', proj, refA]);
  await rm(join(refA, '.agent'), { recursive: true, force: true });
  const cli = join(ROOT, 'out', 'cli', 'rewind-app.mjs');
  const env = { ...process.env, REWIND_NO_FORWARD: '1', HOME: join(dir, 'no-home') };
  const timeOnce = (args: string[]) => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`restore failed: ${r.stderr}`);
    return performance.now() - t0;
  };
  const oneBig: number[] = [];
  const all: number[] = [];
  const cpOne: number[] = [];
  const cpAll: number[] = [];
  const node: number[] = [];
  for (let i = 0; i < 5; i++) {
    await writeState('B', true);
    oneBig.push(timeOnce(['restore', cp.manifest.id, '--force', '--project', proj]));
    await writeState('B', true);
    cpOne.push(timeCmd('cp', [join(refA, 'big.ts'), join(proj, 'big.ts')], 1));
    await writeState('B');
    all.push(timeOnce(['restore', cp.manifest.id, '--force', '--project', proj]));
    await writeState('B');
    cpAll.push(timeCmd('cp', ['-r', `${refA}/.`, proj], 1));
    node.push(timeCmd(process.execPath, ['-e', ''], 1));
  }
  await writeState('B', true);
  const t0 = performance.now();
  spawnSync(process.execPath, [cli, 'restore', cp.manifest.id, '--dry-run', '--project', proj], { env, stdio: 'ignore' });
  const dryMs = performance.now() - t0;
  const r = {
    restoreBigFileMs: Math.round(median(oneBig)),
    cpBigFileMs: Math.round(median(cpOne)),
    restore301FilesMs: Math.round(median(all)),
    cp301FilesMs: Math.round(median(cpAll)),
    nodeStartMs: Math.round(median(node)),
    dryRunWithBoundedDiffMs: Math.round(dryMs),
    target: 'well under a second (was 54-70 s)',
  };
  results.restoreBig = r;
  console.log(`restore-big: one rewritten 20k-line file ${r.restoreBigFileMs} ms (cp ${r.cpBigFileMs} ms, node -e '' ${r.nodeStartMs} ms); 300 files of 12 KB + that file ${r.restore301FilesMs} ms (cp -r ${r.cp301FilesMs} ms); its --dry-run with bounded diffs ${r.dryRunWithBoundedDiffMs} ms; medians of 5, interleaved (pre/post-restore checkpoints included)`);
}

if (want('remote')) {
  const { benchRemote } = await import('./remote.js');
  results.remote = await benchRemote(dir);
}

// Only when asked (`npm run bench -- crash`): 100+ kill -9 trials of each operation take minutes.
if (only.includes('crash')) {
  const { runCrashBench } = await import('./crash.js');
  results.crash = await runCrashBench(Number(process.env.CRASH_TRIALS ?? 100));
}

await mkdir(join(ROOT, 'bench-results'), { recursive: true });
// A partial run (`npm run bench -- hook`) updates its sections and keeps the others' last figures.
const latest = join(ROOT, 'bench-results', 'latest.json');
const previous = JSON.parse(await readFile(latest, 'utf8').catch(() => '{}')) as Record<string, unknown>;
await writeFile(latest, `${JSON.stringify({ ...previous, ...results }, null, 2)}\n`);
