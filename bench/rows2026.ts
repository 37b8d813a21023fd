/** Section 8's (`rev2026`) rows: MCP 2026-07-28 against a bare SDK v2 client (rev2026.ts, push.ts). */
import { floorCalls, startHttpFloor } from './floor.js';
import { PUSH_POLL_INTERVAL_MS, pushRun, type PushSample } from './push2026.js';
import { bareCalls, projectCalls, startHttp2026, type CallRun, type Rev2026Kind, type Rev2026Tool } from './rev2026.js';
import { alternate, rotate, fmtMs, fmtRatio, log, median, pairedRatio, quantile, verdict, type Row } from './stats.js';

export interface RowSink {
  readonly rows: Row[];
  readonly notes: string[];
}

const WHAT: Record<Rev2026Tool, string> = {
  echo: 'tools/call (a tool that answers at once)',
  ask: 'one input_required round trip (a tool that asks one form, answered at once by the host\'s responders, the call retried by its owner / by the bare client\'s elicitation handler, the SDK\'s automatic fulfilment retrying the call)',
};

/**
 * tools/call and input_required, over stdio and Streamable HTTP: `calls` measured per side and round after `warm`,
 * the measured rounds after `warmRounds` unmeasured rounds of the same three sides. A side's host CPU per call fell
 * from ≈ 360 to ≈ 150 µs over the first ten rounds of a fresh bench process, the bare client's as the project's:
 * those rounds measured V8 compiling the code of whichever side ran first (the SDK's code is both sides'), not a call.
 */
export async function callRows(sink: RowSink, rounds: number, calls: number, warm: number, warmRounds: number): Promise<void> {
  const http = await startHttp2026();
  const floorHttp = await startHttpFloor();
  try {
    for (const tool of ['echo', 'ask'] as const) {
      for (const kind of ['stdio', 'http'] as Rev2026Kind[]) {
        const url = kind === 'http' ? http.url : undefined;
        // Three sides in the same rounds: the project, the bare client, and the bare client making
        // each call with the host's request options (what the SDK charges for those features).
        const sides = [() => projectCalls(kind, tool, calls, warm, url), () => bareCalls(kind, tool, calls, warm, url), () => bareCalls(kind, tool, calls, warm, url, true)];
        await rotate(warmRounds, sides, (r) => log(`2026-07-28 ${tool} over ${kind}: warm-up round ${r + 1}/${warmRounds}, unmeasured`));
        const [project, bare, bareWithOptions] = await rotate(rounds, sides, (r) => log(`2026-07-28 ${tool} over ${kind}: round ${r + 1}/${rounds}, ${calls} calls per side`));
        // Each round's figure, in order: the spread the medians are taken over, and whether the rounds still fell.
        const perRound = (rs: CallRun[]) => rs.map((r) => (r.cpuPerCallMs * 1000).toFixed(0)).join(', ');
        sink.notes.push(`2026-07-28 ${tool} over ${kind}, host CPU per call by round (µs): project ${perRound(project!)}; SDK v2 ${perRound(bare!)}; SDK v2 with the host's request options ${perRound(bareWithOptions!)}.`);
        const runs = { a: project!, b: bare! };
        // The floor (floor.ts): the same number of messages with no SDK, in rounds of its own right after.
        const floor: CallRun[] = [];
        for (let r = 0; r < rounds; r++) floor.push(await floorCalls(kind, FLOOR_ROUND_TRIPS[tool], calls, warm, kind === 'http' ? floorHttp.url : undefined));
        pushCallRows(sink, tool, kind, runs, rounds, calls, warm, warmRounds);
        pushFloorRow(sink, tool, kind, runs, floor);
        pushOptionsRow(sink, tool, kind, runs, bareWithOptions!);
      }
    }
  } finally {
    http.stop();
    floorHttp.stop();
  }
}

/** Request/answer pairs one call exchanges: `echo` one; `ask` two (the call answered `input_required`, then the call again). */
const FLOOR_ROUND_TRIPS: Record<Rev2026Tool, number> = { echo: 1, ask: 2 };

/** The floor's own figures, and how far each side's p50 is from it. */
function pushFloorRow(sink: RowSink, tool: Rev2026Tool, kind: Rev2026Kind, runs: { a: CallRun[]; b: CallRun[] }, floor: CallRun[]): void {
  const p = (r: CallRun, q: number) => quantile(r.latencies, q);
  const med = (rs: CallRun[], f: (r: CallRun) => number) => median(rs.map(f));
  const floorP50 = med(floor, (r) => p(r, 0.5));
  const n = FLOOR_ROUND_TRIPS[tool];
  sink.rows.push({
    section: '8',
    what: `2026-07-28 [${kind}]: floor of the ${tool === 'echo' ? 'tools/call' : 'input_required round trip'} rows — ${n} raw JSON-RPC request/answer pair${n === 1 ? '' : 's'} ${kind === 'stdio' ? 'as newline-delimited JSON over a child process\'s pipes' : 'as JSON POSTs to a loopback node:http server'}, no SDK (bench/floor.ts), p50 / p99; host CPU per call in brackets. Ratio: each side's p50 over the floor's`,
    project: `${fmtMs(floorP50)} / ${fmtMs(med(floor, (r) => p(r, 0.99)))} (${fmtMs(med(floor, (r) => r.cpuPerCallMs))})`,
    baseline: '—',
    ratio: `project ${fmtRatio(med(runs.a, (r) => p(r, 0.5)) / floorP50)}; SDK v2 ${fmtRatio(med(runs.b, (r) => p(r, 0.5)) / floorP50)}`,
    goal: '—',
    verdict: 'info',
  });
}

/**
 * What the SDK itself charges for the features every request of the host has (an AbortSignal, reused as the host's,
 * a progress callback, the timeout): the bare client with those options against the bare client, and
 * the project against it (what is left is the project's own: the task's record, its events, the
 * argument summary, the count bound, its transport).
 */
function pushOptionsRow(sink: RowSink, tool: Rev2026Tool, kind: Rev2026Kind, runs: { a: CallRun[]; b: CallRun[] }, withOptions: CallRun[]): void {
  const p50 = (r: CallRun) => quantile(r.latencies, 0.5);
  const cpu = (r: CallRun) => r.cpuPerCallMs;
  const med = (rs: CallRun[], f: (r: CallRun) => number) => median(rs.map(f));
  sink.rows.push({
    section: '8',
    what: `2026-07-28 [${kind}]: ${tool === 'echo' ? 'tools/call' : 'input_required round trip'} on the bare SDK v2 client with the host's request options (an AbortSignal used again from call to call as the host's is, a progress callback, the timeout; same rounds), p50; host CPU per call. Ratios: it over the bare client; the project over it`,
    project: `${fmtMs(med(withOptions, p50))}; ${fmtMs(med(withOptions, cpu))}`,
    baseline: `${fmtMs(med(runs.b, p50))}; ${fmtMs(med(runs.b, cpu))}`,
    ratio: `with options ÷ bare: p50 ${fmtRatio(pairedRatio(withOptions, runs.b, p50))}, CPU ${fmtRatio(pairedRatio(withOptions, runs.b, cpu))}; project ÷ with options: p50 ${fmtRatio(pairedRatio(runs.a, withOptions, p50))}, CPU ${fmtRatio(pairedRatio(runs.a, withOptions, cpu))}`,
    goal: '—',
    verdict: 'info',
  });
}

/**
 * The goal of the call rows: the project (McpConnection + TaskTracker, every feature on) no slower
 * and no costlier per call than the bare SDK v2 client in the same rounds, p50, p99 and host CPU.
 */
const GOAL_RATIO = 1.0;

function pushCallRows(sink: RowSink, tool: Rev2026Tool, kind: Rev2026Kind, runs: { a: CallRun[]; b: CallRun[] }, rounds: number, calls: number, warm: number, warmRounds: number): void {
  const p = (r: CallRun, q: number) => quantile(r.latencies, q);
  const med = (rs: CallRun[], f: (r: CallRun) => number) => median(rs.map(f));
  const p50 = pairedRatio(runs.a, runs.b, (r) => p(r, 0.5));
  const p99 = pairedRatio(runs.a, runs.b, (r) => p(r, 0.99));
  const cpu = pairedRatio(runs.a, runs.b, (r) => r.cpuPerCallMs);
  const tag = `2026-07-28 [${kind === 'stdio' ? 'stdio, a server process per side' : 'Streamable HTTP, stateless, one server process'}; baseline: a bare SDK v2 Client pinned to 2026-07-28]`;
  sink.rows.push({
    section: '8',
    what: `${tag}: ${WHAT[tool]}, call → result in hand, p50 / p99 (${calls} calls per side and round after ${warm} unmeasured, one at a time; ${rounds} alternating rounds after ${warmRounds} unmeasured ones, in a process of their own (bench/callRowsMain.ts); project: McpConnection + TaskTracker)`,
    project: `${fmtMs(med(runs.a, (r) => p(r, 0.5)))} / ${fmtMs(med(runs.a, (r) => p(r, 0.99)))}`,
    baseline: `${fmtMs(med(runs.b, (r) => p(r, 0.5)))} / ${fmtMs(med(runs.b, (r) => p(r, 0.99)))}`,
    ratio: `p50 ${fmtRatio(p50)}; p99 ${fmtRatio(p99)}`,
    goal: `p50 and p99 ≤ ${fmtRatio(GOAL_RATIO)} the bare client's (median of the ${rounds} per-round ratios)`,
    verdict: verdict(p50 <= GOAL_RATIO && p99 <= GOAL_RATIO),
  });
  sink.rows.push({
    section: '8',
    what: `2026-07-28 [${kind}]: ${tool === 'echo' ? 'tools/call' : 'input_required round trip'}, host CPU per call (the server in another process)`,
    project: fmtMs(med(runs.a, (r) => r.cpuPerCallMs)),
    baseline: fmtMs(med(runs.b, (r) => r.cpuPerCallMs)),
    ratio: fmtRatio(cpu),
    goal: `≤ ${fmtRatio(GOAL_RATIO)} the bare client's (median of the ${rounds} per-round ratios)`,
    verdict: verdict(cpu <= GOAL_RATIO),
  });
}

/** Task completed → result in the host's tracker: push against polling, `tasks` per side and round. */
export async function pushRows(sink: RowSink, rounds: number, tasks: number): Promise<void> {
  log('2026-07-28 push: warm-up');
  await pushRun('push', 2);
  await pushRun('poll', 1);
  const runs = await alternate(
    rounds,
    () => pushRun('push', tasks),
    () => pushRun('poll', tasks),
    (r) => log(`2026-07-28 push: round ${r + 1}/${rounds}, ${tasks} tasks per side`),
  );
  const a = runs.a.flat();
  const b = runs.b.flat();
  const ms = (xs: PushSample[]) => xs.map((x) => x.ms);
  const max = (xs: number[]) => Math.max(...xs);
  const calm = a.filter((x) => !x.preempted && x.gcMs === 0);
  sink.rows.push({
    section: '8',
    what: `2026-07-28 [in-memory, the server in process; Tasks extension, pollIntervalMs ${PUSH_POLL_INTERVAL_MS}]: task completed → its result in the host's tracker, with push (subscriptions/listen + notifications/tasks, from the server handing the notification to its transport), p50 / max (${a.length} tasks per side after one unmeasured per host, each ending at its own phase of the interval; in brackets: max of the ${calm.length} that neither the OS preempted nor a GC paused; the verdict is on the raw max). Baseline: the same host with the server refusing subscriptions/listen, polling tasks/get at the task's pollIntervalMs (up to one interval), from the task's end`,
    project: `${fmtMs(quantile(ms(a), 0.5))} / ${fmtMs(max(ms(a)))} (${calm.length ? fmtMs(max(ms(calm))) : 'n/a'})`,
    baseline: `${fmtMs(quantile(ms(b), 0.5))} / ${fmtMs(max(ms(b)))}`,
    ratio: fmtRatio(pairedRatio(runs.a, runs.b, (xs) => quantile(ms(xs), 0.5))),
    goal: 'max ≤ 5 ms',
    verdict: verdict(max(ms(a)) <= 5),
  });
  const gcHit = a.filter((x) => x.gcMs > 0);
  sink.notes.push(
    `2026-07-28 push: ${a.filter((x) => x.preempted).length} of ${a.length} push samples preempted, ${gcHit.length} overlapped a GC${gcHit.length ? ` (longest pause ${fmtMs(max(gcHit.map((x) => x.gcMs)))})` : ''}; polling baseline min ${fmtMs(Math.min(...ms(b)))}.`,
  );
}
