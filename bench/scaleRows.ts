/** Section 10's (`scale`) rows (bench/README.md): many servers, many tasks, a large result, the 2025 connect in auto negotiation. */
import type { RowSink } from './rows2026.js';
import { negotiationRuns, serversRuns, type ServersRun, type StartFigure } from './scale.js';
import { concurrentRun, largeResultRun, type ConcurrentRun, type LargeResultRun } from './scaleTasks.js';
import { fmtBytes, fmtMs, fmtRatio, log, median, quantile, verdict } from './stats.js';

export interface ScaleOptions {
  /** Fresh activations per configuration (1 server, `servers`, and as many bare clients). */
  readonly runs: number;
  readonly servers: number;
  /** Concurrent tool tasks over `servers`, each `taskMs` long; `rounds` such runs. */
  readonly tasks: number;
  readonly taskMs: number;
  readonly rounds: number;
  /** The large result's size (characters) and how many calls of it. */
  readonly resultChars: number;
  readonly resultCalls: number;
  /** Connects per side to the 2025 server. */
  readonly connects: number;
}

const n0 = (x: number) => x.toLocaleString('en-US');

export async function scaleRows(sink: RowSink, o: ScaleOptions): Promise<void> {
  const parts = (process.env.BENCH_SCALE_PARTS ?? 'servers,tasks,result,negotiation').split(',').map((p) => p.trim());
  if (parts.includes('servers')) await serversRows(sink, o);
  if (parts.includes('tasks')) await concurrentRows(sink, o);
  if (parts.includes('result')) await largeResultRows(sink, o);
  if (parts.includes('negotiation')) await negotiationRows(sink, o);
}

async function serversRows(sink: RowSink, o: ScaleOptions): Promise<void> {
  log(`scale: activation with 1 and ${o.servers} stdio servers, and ${o.servers} bare SDK v2 clients, ${o.runs} runs each`);
  const runs = await serversRuns(o.runs, o.servers);
  const med = (f: (r: ServersRun) => StartFigure, k: keyof StartFigure) => median(runs.map((r) => f(r)[k]));
  const pair = (f: (r: ServersRun) => StartFigure) => `${fmtMs(med(f, 'wallMs'))} / ${fmtMs(med(f, 'cpuMs'))}`;
  // The bound, per run: the servers start in parallel, so 20 may take what one takes (the
  // extension's fixed costs: its connection code loaded and compiled once) plus what spawning 20
  // servers and their handshakes take with nothing of the extension (20 bare SDK v2 clients at once).
  const perRun = runs.map((r) => r.many.wallMs / (r.one.wallMs + r.bare.wallMs));
  const ratio = median(perRun);
  sink.rows.push({
    section: '10',
    what: `Scale [${o.servers} stdio servers (the demo server) in the user settings; production bundle activated in a fresh process, \`vscode\` a stub]: activate() → every server running, wall / CPU of the extension's process (median of ${o.runs} runs; baseline: the same with 1 server | ${o.servers} bare SDK v2 clients connecting at once to ${o.servers} demo servers with a plain initialize, same run)`,
    project: pair((r) => r.many),
    baseline: `${pair((r) => r.one)} | ${pair((r) => r.bare)}`,
    ratio: `${fmtRatio(ratio)} of the bound (runs ${fmtRatio(Math.min(...perRun))}–${fmtRatio(Math.max(...perRun))})`,
    goal: `wall ≤ 1 server's + ${o.servers} bare clients'`,
    verdict: verdict(ratio <= 1),
  });
}

async function concurrentRows(sink: RowSink, o: ScaleOptions): Promise<void> {
  const runs: ConcurrentRun[] = [];
  for (let r = 0; r < o.rounds; r++) {
    log(`scale: ${o.tasks} concurrent tool tasks over ${o.servers} stdio servers, ${o.taskMs} ms each (round ${r + 1}/${o.rounds})`);
    runs.push(await concurrentRun(o.servers, o.tasks, o.taskMs));
  }
  const missing = Math.max(...runs.map((r) => r.missing));
  if (missing) throw new Error(`scale: ${missing} of ${o.tasks} concurrent tasks ended without a result`);
  const tag = `Scale [${n0(o.tasks)} concurrent tool tasks over ${o.servers} stdio servers (SDK v1 server, ${o.taskMs / 1000} s each, pollInterval 250 ms); real TaskTracker, TaskView and Tasks tree, the tree fetched after every change it tells]`;
  const perSecond = (r: ConcurrentRun) => r.cpuMs / (r.wallMs / 1000);
  sink.rows.push({
    section: '10',
    what: `${tag}: host CPU per second, first call → last result (median of ${o.rounds}; ${fmtMs(median(runs.map((r) => r.wallMs)))} wall)`,
    project: `${fmtMs(median(runs.map(perSecond)))}/s`,
    baseline: '—',
    ratio: '—',
    goal: '—',
    verdict: 'info',
  });
  sink.rows.push({
    section: '10',
    what: `Scale [${n0(o.tasks)} concurrent tasks]: heap per live sent task (after full GCs, every task tracking, less the heap before the calls)`,
    project: fmtBytes(median(runs.map((r) => r.heapPerTask))),
    baseline: '—',
    ratio: '—',
    goal: '—',
    verdict: 'info',
  });
  const maxRedraws = Math.max(...runs.map((r) => r.redrawsMaxPerSecond));
  sink.rows.push({
    section: '10',
    what: `Scale [${n0(o.tasks)} concurrent tasks]: tree redraws told to VS Code in any 1 s window`,
    project: `${maxRedraws}/s (${median(runs.map((r) => r.redraws))} in all)`,
    baseline: '—',
    ratio: '—',
    goal: '≤ 10/s',
    verdict: verdict(maxRedraws <= 10),
  });
}

async function largeResultRows(sink: RowSink, o: ScaleOptions): Promise<void> {
  log(`scale: a ${fmtBytes(o.resultChars)} result, ${o.resultCalls} calls`);
  await largeResultRun(Math.min(o.resultChars, 100_000)); // unmeasured: compiles the document's code
  const runs: LargeResultRun[] = [];
  for (let r = 0; r < o.resultCalls; r++) runs.push(await largeResultRun(o.resultChars));
  const max = Math.max(...runs.map((r) => r.shownMs));
  const med = (f: (r: LargeResultRun) => number) => fmtMs(median(runs.map(f)));
  sink.rows.push({
    section: '10',
    what: `Scale [a ${fmtBytes(o.resultChars)} text result of a tool task, stdio]: the tracker holding the result → the texts of the documents the UI shows (its first part, ${n0(runs[0]!.headChars)} characters, mcp-task-text:, and the task's rendered document), as TaskDocumentProvider makes them, median / max of ${o.resultCalls} (first part ${med((r) => r.headMs)}, rendered ${med((r) => r.renderedMs)}; "Open the full result" after: ${med((r) => r.fullMs)}; the call → the tracker holding it: ${med((r) => r.fetchMs)})`,
    project: `${med((r) => r.shownMs)} / ${fmtMs(max)}`,
    baseline: '—',
    ratio: '—',
    goal: 'max ≤ 1 s',
    verdict: verdict(max <= 1000),
  });
}

async function negotiationRows(sink: RowSink, o: ScaleOptions): Promise<void> {
  log(`scale: a 2025 stdio server's connect in auto negotiation, ${o.connects} connects per side`);
  const runs = await negotiationRuns(o.connects);
  const versions = new Set(runs.flatMap((r) => [r.projectVersion, r.sdkVersion]));
  if ([...versions].some((v) => !v.startsWith('2025-'))) throw new Error(`scale: the 2025 server was connected at ${[...versions].join(', ')}`);
  const a = runs.map((r) => r.projectMs);
  const b = runs.map((r) => r.sdkMs);
  const ratio = quantile(a, 0.5) / quantile(b, 0.5);
  sink.rows.push({
    section: '10',
    what: `Scale [a 2025 stdio server (SDK v1), auto negotiation: the server/discover probe, then initialize; ended on ${[...versions].join(', ')}]: start → connected, p50 / max of ${o.connects} fresh servers per side, alternating (baseline: a bare SDK v2 Client in its own auto mode, same server)`,
    project: `${fmtMs(quantile(a, 0.5))} / ${fmtMs(Math.max(...a))}`,
    baseline: `${fmtMs(quantile(b, 0.5))} / ${fmtMs(Math.max(...b))}`,
    ratio: `p50 ${fmtRatio(ratio)}`,
    goal: 'p50 ≤ 1.0×',
    verdict: verdict(ratio <= 1),
  });
  sink.notes.push(
    `Scale, auto negotiation: connect times (ms) project ${a.map((x) => x.toFixed(0)).join(', ')}; SDK v2 ${b.map((x) => x.toFixed(0)).join(', ')}. In auto mode the SDK's own StdioClientTransport sends the server/discover probe to a second, short-lived process spawned from the same command, then starts the real one once the era is known; the extension's own stdio transport (src/core/connection/stdioTransport.ts, not the SDK's class) is probed in place, on the one process it keeps: one spawn instead of two.`,
  );
}
