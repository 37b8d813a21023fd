/**
 * Hostile-server attacks of the 2026-07-28 era, by a server on the official SDK v2
 * (test/fixtures/hostile2026Server.ts, the Tasks extension declared): the standard headers a
 * request carries (CR/LF, NUL and 100 kB in tool names, argument values and task ids), a
 * `notifications/tasks` push flood on the `subscriptions/listen` stream, pushes for task ids the
 * host never sent there, an `input_required` requestState that doubles each round, and rounds
 * that never end. Each row checks that the behaviour is right, not only that the host stayed up.
 */
import { performance } from 'node:perf_hooks';
import { MAX_REQUEST_STATE_CHARS } from '../../src/core/config/limits.js';
import { PUSH_COALESCE_MS } from '../../src/core/requestor/taskUpdates.js';
import type { SentTaskSnapshot } from '../../src/core/requestor/tracker.js';
import { HEADER_NAMES } from '../fixtures/hostile2026Server.js';
import type { HostileEnv } from './hostileEnv.js';
import { check, stateText, type AttackSpec } from './hostileRun.js';
import { textOf, waitFor } from './host.js';

const SERVER = { server: 'hostile2026Server' } as const;

interface HeaderSeen {
  method: string;
  nameLength: number;
  nameMatches: boolean;
  paramMatches?: boolean;
  injected: string[];
  rawControl: boolean;
}
interface Stats2026 {
  headers: HeaderSeen[];
  echoed: number[];
  growLegs: number;
  endlessLegs: number;
  pushes: number;
  listens: number;
}

async function stats(env: HostileEnv): Promise<Stats2026> {
  return JSON.parse(textOf(await env.hostile.client.callTool({ name: 'stats', arguments: {} }))) as Stats2026;
}

/** Calls `name` through the tracker (as the product does) and waits for its end. */
async function call(env: HostileEnv, name: string, args: Record<string, unknown> = {}): Promise<SentTaskSnapshot> {
  const key = await env.tracker.callTool(env.hostile, { name }, args);
  return env.untilSent(key, (s) => s.phase !== 'tracking' && s.phase !== 'sending' && s.phase !== 'queued', `${name.slice(0, 20)} to end`);
}

const resultText = (s: SentTaskSnapshot | undefined) => (s?.outcome?.kind === 'result' ? textOf(s.outcome.result) : `(${s?.phase}: ${s?.outcome?.kind === 'error' ? s.outcome.message : s?.reason})`);
const errorText = (s: SentTaskSnapshot | undefined) => (s?.outcome?.kind === 'error' ? s.outcome.message : `(${s?.phase}: ${s?.outcome?.kind ?? 'no outcome'} ${s?.reason ?? ''})`);
/** Whether the good server's two tasks are as they were (working, nothing forged into them). */
function goodUntouched(env: HostileEnv): { ok: boolean; detail: unknown } {
  const sent = env.tracker.get(env.goodTaskKey);
  const received = env.goodTasks.get(env.goodReceivedTaskId)?.task;
  return { ok: sent?.phase === 'tracking' && sent.task?.status === 'working' && !sent.outcome && received?.status === 'working', detail: { sent: sent?.task?.status, outcome: sent?.outcome, received: received?.status } };
}
/**
 * Collects the warnings about pushes for unknown task ids as they are logged (the log keeps only its
 * last lines, and at trace level every message is one).
 */
function collectIgnored(env: HostileEnv, data: Record<string, unknown>): { dispose(): void } {
  const lines: string[] = [];
  data.ignored = lines;
  const started = performance.now();
  const sub = env.hostileLog.onLine((l) => void (/ignored notifications\/tasks for task/.test(l) && lines.length < 1000 && lines.push(l)));
  return {
    dispose: () => {
      sub.dispose();
      data.ignoredMs = performance.now() - started;
    },
  };
}

/** What the host promises of a kind of warning a server can cause: at most this many lines… */
const WARNINGS_PER_WINDOW = 20;
/** …in any window of this many ms that starts with one (src/core/base/logThrottle.ts). */
const WARNING_WINDOW_MS = 10_000;

/**
 * The most warnings of one kind the host may log while `data` collected them (collectIgnored): the
 * burst of each window that can start in that time. A flood stretched past one window by a loaded
 * machine may be logged in two.
 */
function ignoredBound(data: Record<string, unknown>): number {
  return WARNINGS_PER_WINDOW * (Math.floor((data.ignoredMs as number) / WARNING_WINDOW_MS) + 1);
}

export const ATTACKS_2026: readonly AttackSpec[] = [
  {
    name: 'header-injection-2026',
    what: 'tool names, an x-mcp-header argument and task ids with CR/LF, NUL and 100 kB, sent back in Mcp-Name / Mcp-Param-Value (2026-07-28 over Streamable HTTP)',
    transports: ['http'],
    options: SERVER,
    async attack(ctx) {
      const { env } = ctx;
      // As every way the product calls a tool does: list first (the SDK mirrors x-mcp-header from that list).
      ctx.data.listed = (await env.hostile.client.listTools()).tools.length;
      const results: Record<string, string> = {};
      for (const [kind, name] of Object.entries(HEADER_NAMES)) results[`tool ${kind}`] = resultText(await call(env, name));
      const values = { crlf: 'a\r\nX-Injected: yes', nul: 'n\u0000ul', long: 'v'.repeat(100_000) };
      for (const [kind, v] of Object.entries(values)) results[`param ${kind}`] = resultText(await call(env, 'param_echo', { v }));
      for (const kind of Object.keys(HEADER_NAMES)) results[`task ${kind}`] = resultText(await call(env, 'id_task', { kind }));
      ctx.data.results = results;
    },
    async verify({ env, data }) {
      const results = data.results as Record<string, string>;
      const lengths = { crlf: HEADER_NAMES.crlf.length, nul: HEADER_NAMES.nul.length, long: HEADER_NAMES.long.length };
      const expected: Record<string, string> = {
        ...Object.fromEntries(Object.entries(lengths).map(([k, n]) => [`tool ${k}`, `called ${n}`])),
        'param crlf': 'v 18',
        'param nul': 'v 4',
        'param long': 'v 100000',
        ...Object.fromEntries(Object.entries(lengths).map(([k, n]) => [`task ${k}`, `task ${n} done`])),
      };
      const wrong = Object.entries(expected).filter(([k, v]) => results[k] !== v).map(([k]) => ({ k, got: results[k]?.slice(0, 200) }));
      const seen = (await stats(env)).headers;
      const gets = seen.filter((h) => h.method === 'tasks/get');
      const bad = seen.filter((h) => !h.nameMatches || h.injected.length || h.rawControl || h.paramMatches === false);
      return {
        outcome: `${Object.keys(expected).length - wrong.length}/${Object.keys(expected).length} calls answered right; ${seen.length} requests, Mcp-Name (and Mcp-Param-Value) equal to the body once decoded, control characters Base64-encoded, no header injected`,
        checks: [
          check('every call with a hostile name, value or task id ends with its own result', wrong.length === 0, wrong),
          check('the server saw every tools/call and the tasks/get of each hostile task id', seen.filter((h) => h.method === 'tools/call').length >= 9 && [21, 8, 100_000].every((n) => gets.some((g) => g.nameLength === n)), seen.map((h) => `${h.method}:${h.nameLength}`)),
          check('every Mcp-Name and Mcp-Param-Value decodes to the body value, with no raw control character and no injected header', bad.length === 0, bad),
          check('the Mcp-Param-Value header came with each hostile value', seen.filter((h) => h.paramMatches === true).length === 3, seen.filter((h) => h.paramMatches !== undefined)),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
  {
    name: 'task-push-flood-2026',
    what: 'on the subscriptions/listen stream, 10,000 notifications/tasks a second for 2 s: our task with a new statusMessage each time, another server\'s task ids, ids never issued; then our task completed',
    transports: ['stdio', 'http'],
    options: SERVER,
    async attack(ctx) {
      const { env } = ctx;
      const key = await env.tracker.callTool(env.hostile, { name: 'task' }, {});
      const taskId = env.tracker.get(key)!.task!.taskId;
      ctx.data.key = key;
      let changes = 0;
      const sub = env.tracker.onDidChange((c) => void (c.key === key && changes++));
      const ignored = collectIgnored(env, ctx.data);
      try {
        const started = performance.now();
        const answer = await env.hostile.client.callTool({ name: 'flood', arguments: { seconds: 2, taskId, foreignIds: [env.goodTaskId, env.goodReceivedTaskId] } }, { timeout: 60_000 });
        ctx.data.floodMs = performance.now() - started;
        ctx.data.changes = changes;
        const told = JSON.parse(textOf(answer)) as { sent?: number; gets?: number };
        ctx.data.sent = told.sent;
        ctx.data.gets = told.gets;
        ctx.data.good = goodUntouched(env);
        ctx.end();
        await env.untilSent(key, (s) => s.phase === 'done', 'the last push to end our task');
      } finally {
        sub.dispose();
        ignored.dispose();
      }
    },
    async verify({ env, data }) {
      const s = env.tracker.get(data.key as string);
      const floodMs = data.floodMs as number;
      // A change comes from a push window or from a poll (R-NOTIFY-2: pushes never replace polling, and
      // during the flood every tasks/get answer carries a new message too): at most one per window,
      // one per tasks/get the server answered, and a few at the edges.
      const gets = data.gets as number;
      const bound = Math.ceil(floodMs / PUSH_COALESCE_MS) + gets + 3;
      const lines = data.ignored as string[];
      const good = data.good as { ok: boolean; detail: unknown };
      return {
        outcome: `${String(data.sent)} pushes in ${(floodMs / 1000).toFixed(1)} s → ${String(data.changes)} changes of our task (at most ${bound}: one per ${PUSH_COALESCE_MS} ms and one per each of its ${String(gets)} tasks/get); the last push ended it (${s?.task?.status}); ${lines.length} warnings for unknown ids`,
        checks: [
          check('the flood reached the host (more than 1,000 pushes)', (data.sent as number) > 1000, data.sent),
          check(`our task takes in at most one push per ${PUSH_COALESCE_MS} ms, besides its polls (${bound} changes for the flood)`, typeof gets === 'number' && (data.changes as number) <= bound && (data.changes as number) >= 1, { changes: data.changes, gets, bound }),
          check('the last push (completed, its result inline) is taken in', s?.phase === 'done' && s.task?.status === 'completed' && resultText(s) === 'the last push', { phase: s?.phase, status: s?.task?.status, result: resultText(s) }),
          check("pushes naming another server's task ids change nothing there", good.ok, good.detail),
          check(`pushes for unknown ids are logged, a bounded number of times (at most ${WARNINGS_PER_WINDOW} in ${WARNING_WINDOW_MS / 1000} s: ${ignoredBound(data)} in the ${((data.ignoredMs as number) / 1000).toFixed(1)} s they were collected)`, lines.length >= 1 && lines.length <= ignoredBound(data), lines.length),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
  {
    name: 'forged-push-ids-2026',
    what: "notifications/tasks marking completed, with a forged result: another server's sent and received task ids, ids never issued, a 100 kB id, an id with CR/LF",
    transports: ['stdio', 'http'],
    options: SERVER,
    async attack(ctx) {
      const { env } = ctx;
      const key = await env.tracker.callTool(env.hostile, { name: 'task' }, {});
      ctx.data.key = key;
      const before = env.tracker.snapshot().length;
      const ignored = collectIgnored(env, ctx.data);
      try {
        await env.hostile.client.callTool({ name: 'forge', arguments: { taskId: env.tracker.get(key)!.task!.taskId, foreignIds: [env.goodTaskId, env.goodReceivedTaskId] } });
        // Its own task's end (cancelled, pushed after the forged ones) is taken in.
        await env.untilSent(key, (s) => s.phase === 'done', 'our task to end cancelled');
        // Over HTTP a poll may bring that end before the stream's forged pushes are read: wait for their warnings (bounded).
        const lines = ctx.data.ignored as string[];
        await waitFor(env.hostileLog.onLine, () => lines.length >= 6, 'a warning for each forged push', 5_000).catch(() => undefined);
        ctx.data.added = env.tracker.snapshot().length - before;
      } finally {
        ignored.dispose();
      }
      ctx.data.good = goodUntouched(env);
    },
    async verify({ env, data }) {
      const s = env.tracker.get(data.key as string);
      const lines = data.ignored as string[];
      const good = data.good as { ok: boolean; detail: unknown };
      return {
        outcome: `6 forged pushes ignored, ${lines.length} logged (longest ${Math.max(0, ...lines.map((l) => l.length))} characters); other server's tasks untouched; our own task ${s?.task?.status}`,
        checks: [
          check("another server's sent and received tasks are unchanged", good.ok, good.detail),
          check('no task is added for a forged id', data.added === 0, data.added),
          check('each forged push is logged, naming the server, the id cut short and escaped', lines.length === 6 && lines.every((l) => l.length < 300 && /no task sent to "hostile"/.test(l) && !/[\r\n\0]/.test(l)), lines),
          check("the server's push about its own task is taken in", s?.phase === 'done' && s.task?.status === 'cancelled', s),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
  {
    name: 'growing-request-state-2026',
    what: 'tools/call answered input_required (no question) with a requestState of 64 KB that doubles each round',
    transports: ['stdio', 'http'],
    options: SERVER,
    async attack(ctx) {
      ctx.data.sent = await call(ctx.env, 'grow', { startBytes: 65_536 });
    },
    async verify({ env, data }) {
      const s = data.sent as SentTaskSnapshot;
      const message = errorText(s);
      const st = await stats(env);
      return {
        outcome: `"${message.slice(0, 110)}…"; requestState sent back: ${st.echoed.map((n) => `${n / 1024} KB`).join(', ')} (limit ${MAX_REQUEST_STATE_CHARS / 1024} K characters)`,
        checks: [
          check('the call fails with the reason: the requestState and the limit', s.outcome?.kind === 'error' && /refused the answer: its requestState is [\d,]+ characters, over the [\d,]+-character limit/.test(message), message),
          check(`no requestState over ${MAX_REQUEST_STATE_CHARS} characters is ever sent back`, st.echoed.length >= 1 && st.echoed.every((n) => n <= MAX_REQUEST_STATE_CHARS), st.echoed),
          check("the hostile server's log names the refusal", env.hostileLog.lines.some((l) => /refused the answer: its requestState/.test(l)), env.hostileLog.lines.slice(-5)),
          check('the hostile server stays connected (no message over the size limit closed it)', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
  {
    name: 'endless-input-rounds-2026',
    what: 'tools/call answered input_required (no question, a small requestState) forever',
    transports: ['stdio', 'http'],
    options: SERVER,
    async attack(ctx) {
      ctx.data.sent = await call(ctx.env, 'endless');
    },
    async verify({ env, data }) {
      const s = data.sent as SentTaskSnapshot;
      const message = errorText(s);
      const legs = (await stats(env)).endlessLegs;
      return {
        outcome: `stopped after ${legs} requests: "${message.slice(0, 110)}"`,
        checks: [
          check('the call fails, naming the round limit', s.outcome?.kind === 'error' && /still required input after 10 rounds/.test(message), message),
          check('at most 11 tools/call requests (the first and 10 rounds)', legs >= 2 && legs <= 11, legs),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
];
