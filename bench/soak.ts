/**
 * `npm run soak -- <minutes>` (default 2): the fault soak. The extension's core (bench/soakHost.ts)
 * runs against real servers — the requestor fixture over stdio and over Streamable HTTP behind an
 * outage proxy — while a seeded schedule does kill -9 of the stdio server, restarts of the HTTP
 * server on the same port (its sessions and tasks gone), outages (10–120 s on a run of 15 minutes
 * or more, scaled down for shorter ones), reloads (the core disposed and built again from its
 * storage), half-typed and valid mcp.json edits (through the real parser) and request floods, and
 * keeps starting tool calls as tasks, some of which ask a question.
 *
 * It fails (exit 1) on: a task lost while the process that held it still ran; a question still
 * waiting, not withdrawn, 5 s after its owner ended; a task not terminal once the run settled; an
 * unhandled rejection or uncaught exception; a server not serving again within 120 s of a fault;
 * heap growth (after GC, start of the run vs its end) over {@link HEAP_BOUND_MB}. It reports the time
 * from a server back to serving through the host again (p50/max). Written to bench-results/soak.md.
 * Env: SOAK_SEED (the schedule's seed; printed), SOAK_BREAK=leak (a scratch leak: shows the heap check fails).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LastGoodConfig } from '../src/core/config/lastGood.js';
import type { Tool } from '@modelcontextprotocol/client';
import { gc } from '../test/helpers/hostileEnv.js';
import { ROOT } from '../test/helpers/host.js';
import { SoakCore, SoakResponders, SoakServers, SoakStorage, configText, isTerminal, readConfig, seeded } from './soakHost.js';

/** Heap growth allowed over the run (after GC). The tracker keeps up to 200 finished tasks with their results: well under this. */
const HEAP_BOUND_MB = 24;
/** A server not serving again this long after its fault is counted as never back. */
const RECONNECT_DEADLINE_MS = 120_000;
/** How long the run may take to settle (every task terminal) once the faults stop. */
const SETTLE_MS = 90_000;
/** A question still waiting this long after its owner ended is counted. */
const QUESTION_GRACE_MS = 5_000;

const WORK: Pick<Tool, 'name' | 'execution'> = { name: 'work', execution: { taskSupport: 'required' } };
const CONFIRM: Pick<Tool, 'name' | 'execution'> = { name: 'confirm', execution: { taskSupport: 'required' } };
const SERVERS = ['local', 'remote'] as const;

interface Sent {
  readonly serverId: string;
  /** The process that held the task when the host first tracked it. */
  epoch?: string;
  verdict?: 'ok' | 'lost-with-server' | 'never-created';
}

const minutes = Number(process.argv[2] ?? 2);
if (!Number.isFinite(minutes) || minutes <= 0) {
  console.error(`usage: npm run soak -- <minutes> (got "${process.argv[2]}")`);
  process.exit(2);
}
const seed = Number(process.env.SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
// One stream for the schedule of faults, one for the calls, one for the user's answers: the faults repeat with the seed whatever the timing.
const faultRandom = seeded(seed);
const random = seeded(seed ^ 0x5bd1e995);
const between = (lo: number, hi: number, r = random) => lo + r() * (hi - lo);
const scale = Math.min(1, minutes / 15);

const failures = { lostKnown: [] as string[], questionsLeft: [] as string[], stuck: [] as string[], unhandled: [] as string[], neverBack: [] as string[], configNotKept: [] as string[] };
const counts = { calls: 0, sendFailed: 0, done: 0, lostWithServer: 0, kills: 0, httpRestarts: 0, outages: 0, outageSeconds: 0, reloads: 0, halfTyped: 0, validEdits: 0, floods: 0, floodCalls: 0, userRestarts: 0 };
const backTimes: Array<{ kind: string; ms: number }> = [];
/** Tasks not terminal at the end that their server still runs (not a failure: listed). */
const stillRunning: string[] = [];
const sent = new Map<string, Sent>();
const leak: number[][] = [];
process.on('unhandledRejection', (e) => failures.unhandled.push(`unhandled rejection: ${String((e as Error)?.stack ?? e).slice(0, 400)}`));
process.on('uncaughtException', (e) => failures.unhandled.push(`uncaught exception: ${String(e?.stack ?? e).slice(0, 400)}`));

const dir = mkdtempSync(join(tmpdir(), 'mcp-soak-'));
const configFile = join(dir, 'mcp.json');
const storage = new SoakStorage();
const responders = new SoakResponders(seeded(seed ^ 0x27d4eb2f));
const lastGood = new LastGoodConfig();
let servers: SoakServers;
let core: SoakCore;
let reloading: Promise<void> | undefined;
let spare = false;
let style = 0;

/** Watches the tracker of `c` for tasks it tracks and ends (a new core: subscribe again). */
function watch(c: SoakCore): void {
  // A task's key never changes while it is kept (requestor/sentTask.ts): nothing to follow.
  c.tracker.onDidChange((change) => judge(c, change.key));
}

/** What the task `key` came to: first tracked (the process holding it noted), or ended (judged). */
function judge(c: SoakCore, key: string): void {
  const entry = sent.get(key);
  const s = c.tracker.get(key);
  if (!entry || !s || entry.verdict) return;
  if (entry.epoch === undefined && s.task?.taskId) entry.epoch = servers.epoch(entry.serverId);
  if (!isTerminal(s.phase)) return;
  if (s.phase === 'done') {
    entry.verdict = 'ok';
    counts.done++;
  } else if (entry.epoch === undefined) {
    entry.verdict = 'never-created';
    counts.sendFailed++;
  } else if (servers.epoch(entry.serverId) !== entry.epoch) {
    // The process that held it is gone: losing it is the truth, not a fault of the host.
    entry.verdict = 'lost-with-server';
    counts.lostWithServer++;
  } else {
    failures.lostKnown.push(`${key} (held by ${entry.epoch}, still running) ended ${s.phase}: ${s.reason ?? ''}`);
    entry.verdict = 'ok';
  }
  // A scratch leak, to show the heap check fails: 256 KB of heap kept per task judged.
  if (entry.verdict && process.env.SOAK_BREAK === 'leak') leak.push(new Array<number>(32 * 1024).fill(leak.length));
}

async function applyConfig(): Promise<boolean> {
  const read = readConfig(configFile, lastGood);
  await core.apply(read.servers);
  return read.keptLastGood;
}

function writeConfig(): void {
  writeFileSync(configFile, configText(servers.proxy.url, spare, style));
}

/** Starts one tool call as a task on `serverId`, if its connection runs. */
async function call(serverId: string, question: boolean): Promise<void> {
  const c = core;
  const connection = c.registry.get(serverId);
  if (reloading || connection?.state.kind !== 'running') return;
  counts.calls++;
  try {
    const key = question
      ? await c.tracker.callTool(connection, CONFIRM, { finishAfterMs: 200, clientPollInterval: 300 })
      : await c.tracker.callTool(connection, WORK, { ms: Math.floor(between(200, 4000)), pollInterval: 300 });
    if (!sent.has(key)) sent.set(key, { serverId });
    judge(c, key);
  } catch {
    counts.sendFailed++;
  }
}

/** Resolves once `serverId` serves a ping through the host again; records the time since `backAt`. */
async function backToServing(serverId: string, kind: string, backAt: number): Promise<void> {
  while (performance.now() - backAt < RECONNECT_DEADLINE_MS) {
    const connection = reloading ? undefined : core.registry.get(serverId);
    if (serverId === 'local' && connection?.state.kind === 'error' && connection.state.retryAt === undefined) {
      // A stdio server given up on (killed 5 times within 5 minutes with no call in flight) waits for the user's Restart; an HTTP one is never given up on.
      counts.userRestarts++;
      await connection.start().catch(() => undefined);
    }
    if (connection?.state.kind === 'running') {
      try {
        await connection.client.ping({ timeout: 3_000 });
        backTimes.push({ kind, ms: performance.now() - backAt });
        return;
      } catch {
        // Not serving yet (the ping itself may be what shows the host its session is gone).
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  failures.neverBack.push(`${serverId} after ${kind}: not serving ${RECONNECT_DEADLINE_MS / 1000} s after it was back`);
}

async function reload(): Promise<void> {
  const old = core;
  let done!: () => void;
  reloading = new Promise<void>((r) => (done = r));
  await old.close();
  responders.generation++;
  core = new SoakCore(storage, responders, servers.recorder);
  watch(core);
  await applyConfig();
  reloading = undefined;
  done();
}

async function flood(): Promise<void> {
  counts.floods++;
  const serverId = SERVERS[Math.floor(faultRandom() * 2)]!;
  const connection = core.registry.get(serverId);
  if (connection?.state.kind !== 'running') return;
  const n = 40;
  counts.floodCalls += n;
  const pings = Array.from({ length: 100 }, () => connection.client.ping({ timeout: 10_000 }).catch(() => undefined));
  await Promise.all([...Array.from({ length: n }, () => call(serverId, false)), ...pings]);
}

const FAULTS = ['kill', 'http-restart', 'outage', 'reload', 'half-typed', 'valid-edit', 'flood'] as const;
type Fault = (typeof FAULTS)[number];
/** Every kind once per round, in a seeded order: a short run still meets each. */
let bag: Fault[] = [];
function nextFault(): Fault {
  if (!bag.length) {
    bag = [...FAULTS];
    for (let i = bag.length - 1; i > 0; i--) {
      const j = Math.floor(faultRandom() * (i + 1));
      [bag[i], bag[j]] = [bag[j]!, bag[i]!];
    }
  }
  return bag.pop()!;
}

/** One fault of the schedule, waited for until the server it hit serves again. */
async function fault(kind: Fault): Promise<void> {
  switch (kind) {
    case 'kill': {
      counts.kills++;
      const at = performance.now();
      if (servers.killStdio()) await backToServing('local', 'stdio kill -9', at);
      return;
    }
    case 'http-restart':
      counts.httpRestarts++;
      return backToServing('remote', 'HTTP restart', await servers.restartHttp());
    case 'outage': {
      const ms = Math.round(between(10_000, 120_000, faultRandom) * scale);
      counts.outages++;
      counts.outageSeconds += ms / 1000;
      return backToServing('remote', 'outage', await servers.outage(ms));
    }
    case 'reload': {
      counts.reloads++;
      const at = performance.now();
      await reload();
      await Promise.all([backToServing('local', 'reload', at), backToServing('remote', 'reload', at)]);
      return;
    }
    case 'half-typed': {
      // Auto-save of a half-typed edit: the file does not parse; its last good servers stay in force.
      counts.halfTyped++;
      const text = configText(servers.proxy.url, spare, ++style);
      writeFileSync(configFile, text.slice(0, Math.floor(between(5, text.length - 5, faultRandom))));
      if (!(await applyConfig())) failures.configNotKept.push('a half-typed mcp.json did not keep its last good servers');
      await new Promise((r) => setTimeout(r, between(200, 1500, faultRandom)));
      writeConfig();
      await applyConfig();
      return;
    }
    case 'valid-edit':
      counts.validEdits++;
      spare = !spare;
      style++;
      writeConfig();
      await applyConfig();
      return;
    case 'flood':
      void flood();
      return;
  }
}

/** Questions still waiting after their owner ended (the call's task terminal or forgotten, or its window gone). */
function checkQuestions(final: boolean): void {
  const now = performance.now();
  for (const q of [...responders.waiting]) {
    if (q.ctx.signal.aborted) continue;
    const owned = q.ctx.owner;
    const taskId = q.ctx.relatedTaskId ?? (owned.kind === 'plain' || owned.kind === 'received-task' ? owned.relatedTaskId : undefined);
    // A call is found by its server's task id (its key is not made of it); a task no longer kept has none: its question waits for nothing.
    const named = taskId !== undefined && !reloading ? core.tracker.keyOfTask(q.ctx.serverId, taskId) : undefined;
    const key = q.ctx.sentTask?.key ?? named ?? (taskId ? `${q.ctx.serverId}/${taskId}` : undefined);
    const owner = key && !reloading ? core.tracker.get(key) : undefined;
    const ended = final || q.generation !== responders.generation || (key !== undefined && !reloading && (!owner || isTerminal(owner.phase)));
    if (!ended) continue;
    q.ownerEndedAt ??= now;
    if (final || now - q.ownerEndedAt > QUESTION_GRACE_MS) {
      responders.waiting.delete(q);
      failures.questionsLeft.push(`${q.ctx.serverName}: a question for ${key ?? 'no known call'} (${owner?.phase ?? 'gone'}) still waiting ${((now - q.ownerEndedAt) / 1000).toFixed(1)} s after its owner ended`);
    }
  }
}

function heapMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  const started = performance.now();
  servers = await SoakServers.start();
  writeConfig();
  core = new SoakCore(storage, responders, servers.recorder);
  watch(core);
  await applyConfig();
  await Promise.all(SERVERS.map((id) => backToServing(id, 'first start', started)));
  backTimes.length = 0;
  console.error(`soak: ${minutes} min, seed ${seed}, outages ${Math.round(10 * scale)}–${Math.round(120 * scale)} s`);
  // Warm-up: a flood on each server and a few seconds of calls, then the heap at the start.
  const endAt = performance.now() + minutes * 60_000;
  let working = true;
  const workload = (async () => {
    while (working) {
      void call(SERVERS[Math.floor(random() * 2)]!, random() < 0.3);
      checkQuestions(false);
      await new Promise((r) => setTimeout(r, between(150, 600)));
    }
  })();
  await Promise.all([flood(), flood()]);
  await new Promise((r) => setTimeout(r, 5_000));
  const heapStart = heapMb();
  while (performance.now() < endAt) {
    await fault(nextFault());
    await new Promise((r) => setTimeout(r, between(1_000, 5_000, faultRandom)));
  }
  working = false;
  await workload;
  // Settle: no new faults or calls; questions left waiting are now answered, and the calls that wait on one the user never answered are cancelled.
  const settleFrom = performance.now();
  responders.answerAll = true;
  if (reloading) await reloading;
  // The user gives up on the calls that wait for an answer: those whose question is left waiting, and those whose
  // server waits on a question the host never got (asked on a stream an outage cut: the SDK's server does not ask again).
  const waitingOn = new Set([...responders.waiting].map((q) => (q.ctx.relatedTaskId ? `${q.ctx.serverId}/${q.ctx.relatedTaskId}` : q.ctx.sentTask?.key)));
  for (const s of core.tracker.snapshot()) {
    if (!isTerminal(s.phase) && (waitingOn.has(s.key) || s.task?.status === 'input_required')) void core.tracker.cancel(s.key).catch(() => undefined);
  }
  const open = () => [...sent.entries()].filter(([key, e]) => !e.verdict && core.tracker.get(key) && !isTerminal(core.tracker.get(key)!.phase));
  while (open().length && performance.now() - settleFrom < SETTLE_MS) {
    checkQuestions(false);
    await new Promise((r) => setTimeout(r, 250));
  }
  const settleMs = performance.now() - settleFrom;
  for (const key of [...sent.keys()]) judge(core, key);
  for (const [key, entry] of open()) {
    const s = core.tracker.get(key)!;
    // Still running on the very process that holds it, and tracked live: the server has not finished it.
    if (s.phase === 'tracking' && entry.epoch === servers.epoch(entry.serverId) && s.task && !['completed', 'failed', 'cancelled'].includes(s.task.status)) {
      stillRunning.push(`${key}: ${s.task.status}`);
      continue;
    }
    const state = core.registry.get(s.serverId)?.state;
    failures.stuck.push(`${key}: ${s.phase}${s.task ? ` (server said ${s.task.status})` : ''}${s.reason ? `: ${s.reason}` : ''} — its server now ${state ? JSON.stringify({ kind: state.kind, ...(state.kind === 'error' ? { message: state.message, retryAt: state.retryAt } : {}) }) : 'not configured'}`);
  }
  await new Promise((r) => setTimeout(r, QUESTION_GRACE_MS + 500));
  checkQuestions(false);
  const heapEnd = heapMb();
  await core.close();
  await new Promise((r) => setTimeout(r, 500));
  checkQuestions(true);
  servers.dispose();
  rmSync(dir, { recursive: true, force: true });
  report({ heapStart, heapEnd, settleMs, totalMs: performance.now() - started });
}

function report(m: { heapStart: number; heapEnd: number; settleMs: number; totalMs: number }): void {
  const growth = m.heapEnd - m.heapStart;
  const heapOk = growth <= HEAP_BOUND_MB;
  const byKind = new Map<string, number[]>();
  for (const b of backTimes) byKind.set(b.kind, [...(byKind.get(b.kind) ?? []), b.ms]);
  const all = backTimes.map((b) => b.ms);
  const row = (name: string, list: string[]) => `| ${name} | ${list.length} | 0 | ${list.length ? 'FAIL' : 'ok'} |`;
  const lines = [
    `# Fault soak`,
    ``,
    `${new Date().toISOString()} · node ${process.version} · ${minutes} min of faults, seed ${seed} (\`SOAK_SEED=${seed} npm run soak -- ${minutes}\` repeats the schedule) · ${(m.totalMs / 1000).toFixed(0)} s in all, ${(m.settleMs / 1000).toFixed(1)} s to settle.`,
    ``,
    `Faults: ${counts.kills} kill -9 of the stdio server, ${counts.httpRestarts} HTTP server restarts on the same port, ${counts.outages} outages (${counts.outageSeconds.toFixed(0)} s in all), ${counts.reloads} reloads, ${counts.halfTyped} half-typed and ${counts.validEdits} valid mcp.json edits, ${counts.floods} floods (40 task calls and 100 pings each).`,
    `Restarts the user had to ask for (a server given up on after 5 crashes within 5 minutes with no call in flight): ${counts.userRestarts}.`,
    `Work: ${counts.calls} tool calls as tasks; ${counts.done} done, ${counts.lostWithServer} lost with the process that held them (kill -9, restart, reload of a stdio server), ${counts.sendFailed} never created (the server went away while the call was sent); ${responders.asked} questions, ${responders.answered} answered, ${responders.withdrawn} withdrawn with their owner.`,
    ``,
    `| check | count | goal | |`,
    `|---|---|---|---|`,
    row('tasks lost while the process that held them still ran', failures.lostKnown),
    row('questions left waiting after their owner ended', failures.questionsLeft),
    row('tasks not terminal once the run settled, though their server finished or forgot them (or the host stopped following them)', failures.stuck),
    row('unhandled rejections / uncaught exceptions', failures.unhandled),
    row(`servers not serving again within ${RECONNECT_DEADLINE_MS / 1000} s`, failures.neverBack),
    row('half-typed mcp.json edits that did not keep the last good servers', failures.configNotKept),
    `| heap growth after GC, start → end (MB) | ${growth.toFixed(1)} (${m.heapStart.toFixed(1)} → ${m.heapEnd.toFixed(1)}) | ≤ ${HEAP_BOUND_MB} | ${heapOk ? 'ok' : 'FAIL'} |`,
    ``,
    `Server back → serving through the host again (a ping answered): p50 ${percentile(all, 50).toFixed(0)} ms, max ${Math.max(0, ...all).toFixed(0)} ms over ${all.length}.`,
    ``,
    `| after | n | p50 ms | max ms |`,
    `|---|---|---|---|`,
    ...[...byKind].map(([kind, v]) => `| ${kind} | ${v.length} | ${percentile(v, 50).toFixed(0)} | ${Math.max(...v).toFixed(0)} |`),
  ];
  if (stillRunning.length) lines.push('', `Not terminal at the end but still running on their server (not counted): ${stillRunning.slice(0, 10).join('; ')}`);
  const details = Object.entries(failures).flatMap(([name, list]) => list.slice(0, 10).map((l) => `- ${name}: ${l}`));
  const text = `${lines.join('\n')}\n${details.length ? `\nFailures (first 10 of each):\n\n${details.join('\n')}\n` : ''}`;
  console.log(text);
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench-results', 'soak.md'), text);
  const failed = Object.values(failures).some((l) => l.length > 0) || !heapOk;
  console.log(`soak: ${failed ? 'FAIL' : 'pass'}`);
  process.exit(failed ? 1 : 0);
}

main().catch((e: unknown) => {
  console.error(`soak: ${String((e as Error)?.stack ?? e)}`);
  servers?.dispose();
  process.exit(1);
});
