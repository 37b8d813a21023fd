/**
 * Every attack of the hostile-server fixture, as data: how to run it against a {@link HostileEnv}
 * and what must hold afterwards. `test/integration/hostile.test.ts` asserts each check;
 * `npm run hostile` prints them as a table (attack, transport, outcome, time to recover).
 *
 * Common checks (every attack): the good server answered every ping during the attack and
 * answers after it; its tool task and its received task complete; no uncaught exception; no log
 * line longer than 10,000 characters; the heap does not keep more than 64 MB after the attack.
 */
import { performance } from 'node:perf_hooks';
import type { TaskOutcome } from '../../src/core/ledger.js';
import { renderTaskDocument } from '../../src/core/render.js';
import { TaskView } from '../../src/core/taskView.js';
import { describeState } from '../../src/core/connection.js';
import { Emitter } from '../../src/core/events.js';
import { HostileEnv, WAIT_MS, gc, type EnvOptions, type TransportKind } from './hostileEnv.js';
import { textOf, waitFor } from './host.js';

export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail?: string;
}

/** Branch that fixes what a failing check shows (the test is `todo` until it is merged). */
export type FixedOn = 'sec-receiver' | 'sec-requestor' | 'sec-display';

export interface AttackContext {
  readonly env: HostileEnv;
  /** Marks the moment the attack ended (time to recover counts from here). */
  end(): void;
  /** Anything the attack wants to hand to its verify step. */
  data: Record<string, unknown>;
}

export interface AttackSpec {
  readonly name: string;
  readonly what: string;
  readonly transports: readonly TransportKind[];
  readonly options?: EnvOptions;
  /** Set when the attack shows a defect another branch of issue 19 fixes. */
  readonly fixedOn?: FixedOn;
  /** Runs the attack; calls `ctx.end()` when it is over (or returns, which ends it too). */
  attack(ctx: AttackContext): Promise<void>;
  /** After recovery: the attack's outcome (one line) and its own checks. */
  verify(ctx: AttackContext): Promise<{ outcome: string; checks: Check[] }>;
}

export interface AttackReport {
  readonly attack: string;
  readonly transport: TransportKind;
  readonly outcome: string;
  /** From the end of the attack to the good server answering a ping. */
  readonly recoverMs?: number;
  /** Largest ping round trip to the good server during the attack. */
  readonly maxPingMs: number;
  readonly maxLoopDelayMs: number;
  readonly checks: readonly Check[];
  readonly fixedOn?: FixedOn;
}

const check = (name: string, ok: boolean, detail?: unknown): Check => ({ name, ok, ...(ok || detail === undefined ? {} : { detail: typeof detail === 'string' ? detail : JSON.stringify(detail) }) });
type Answer = { result?: Record<string, unknown>; error?: { code?: number; message?: string } };
const HOSTILE_TEXT = '[click me](command:workbench.action.openSettings) <img src=x onerror=alert(1)> <script>alert(1)</script>';

function stateText(env: HostileEnv): string {
  return describeState(env.hostile.state);
}

export const ATTACK_SPECS: readonly AttackSpec[] = [
  {
    name: 'malformed-jsonrpc',
    what: 'invalid JSON, wrong jsonrpc version, responses to unknown ids, batches, huge ids, unknown method, malformed params',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      ctx.data.replies = JSON.parse(await ctx.env.attack('malformed'));
    },
    async verify({ env, data }) {
      const r = data.replies as Record<string, { result?: unknown; error?: { code: number } }>;
      const code = (id: string) => r[id]?.error?.code;
      const warnings = env.hostileLog.lines.filter((l) => l.startsWith('warn protocol error')).length;
      return {
        outcome: `stays running; -32601 unknown method, -32602 bad params ×2, huge ids answered, ${warnings} bad lines dropped with a warning`,
        checks: [
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
          check('unknown method → -32601', code('hostile-nomethod') === -32601, r['hostile-nomethod']),
          check('tasks/get with a numeric taskId → -32602', code('hostile-badparams') === -32602, r['hostile-badparams']),
          check('sampling with malformed params → -32602', code('hostile-badsampling') === -32602, r['hostile-badsampling']),
          check('a request with a 100 KB string id is answered', Object.entries(r).some(([k, v]) => k.startsWith('hostile-long(') && !!v.result), Object.keys(r)),
          // The SDK's schema takes only safe integers as ids: such a request is invalid, dropped with a warning.
          check('a request with an id beyond 2^53 is dropped, not answered under a rounded id', !Object.keys(r).some((k) => k.startsWith('number:')), Object.keys(r)),
          check('a well-formed ping after the garbage is answered', !!r['hostile-ok']?.result, Object.keys(r)),
          check('a wrong jsonrpc version and a batch get no answer', !r['hostile-v1'] && !r['hostile-batch'], Object.keys(r)),
          check('the garbage is logged as protocol errors', warnings >= 3, env.hostileLog.lines.slice(-20)),
        ],
      };
    },
  },
  {
    name: 'oversized-50mb',
    what: 'one 50 MB JSON-RPC message (a reply to an id the host never used)',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      const done = ctx.env.attackDoneOrDisconnected(/protocol error: .*larger than the \d+ MB limit/);
      // Over stdio the host may drop the connection before the tool's own answer arrives.
      await ctx.env.attack('oversized', { mb: 50 }).catch((e: Error) => (ctx.data.toolError = e.message));
      ctx.data.how = await done;
      ctx.end();
      ctx.data.stateAfter = stateText(ctx.env);
    },
    async verify({ env, data }) {
      const closed = data.how === 'disconnected';
      const logged = env.hostileLog.lines.find((l) => /larger than the \d+ MB limit/.test(l));
      const checks = [check('the message is refused at a size limit, not delivered', data.how !== 'done', data.how)];
      if (closed) {
        checks.push(check('the closed connection says why, naming the server and the size limit', /"hostile" sent a message larger than the 10 MB limit/.test(String(data.stateAfter)), data.stateAfter));
        await env.untilHostileState((s) => s.kind === 'running', 'the hostile server to be restarted');
        checks.push(check('the server is started again after dropping the connection', env.hostile.state.kind === 'running', stateText(env)));
      } else {
        checks.push(check("the server's log says a message was dropped at the limit", !!logged, env.hostileLog.lines.slice(-5)));
        await env.hostile.client.ping({ timeout: WAIT_MS });
        checks.push(check('the hostile server stays connected and answers', env.hostile.state.kind === 'running', stateText(env)));
      }
      return {
        outcome: closed ? `connection closed: ${String(data.stateAfter).slice(0, 120)}; restarted` : `stream dropped at the 10 MB limit ("${String(logged).slice(0, 90)}…"); stays running`,
        checks,
      };
    },
  },
  {
    name: 'notification-flood',
    what: '10,000 notifications per second for 2 s (log, unknown progress tokens, forged tasks/status for the good task, list_changed, unknown methods)',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      const done = ctx.env.attackDoneOrDisconnected();
      await ctx.env.attack('flood', { seconds: 2, foreignTaskId: ctx.env.goodTaskKey.slice('good/'.length) });
      ctx.data.how = await done;
      ctx.end();
    },
    async verify({ env, data }) {
      const good = env.tracker.get(env.goodTaskKey);
      const protocolErrorLines = env.hostileLog.protocolErrors;
      return {
        outcome: `${protocolErrorLines} protocol-error log lines; good task still ${good?.task?.status}; stays running`,
        checks: [
          check('the flood ends and the hostile server stays connected', data.how === 'done' && env.hostile.state.kind === 'running', stateText(env)),
          check('protocol errors are logged a bounded number of times', protocolErrorLines <= 25, { protocolErrorLines }),
          check('forged tasks/status for another server\'s task id change nothing', good?.phase === 'tracking' && good.task?.status === 'working', good),
        ],
      };
    },
  },
  {
    name: 'forged-task-ids',
    what: 'tasks/get, tasks/result, tasks/cancel on random, empty, non-string, 100 KB and another server\'s task ids',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      ctx.data.answers = JSON.parse(await ctx.env.attack('forge-ids', { foreignTaskId: ctx.env.goodReceivedTaskId }));
    },
    async verify({ env, data }) {
      const answers = data.answers as Array<Answer & { method: string; taskId: unknown }>;
      const wrong = answers.filter((a) => a.error?.code !== -32602);
      const suspicious = env.audit.some((a) => a.scopeId === 'hostile' && /suspicious/.test(a.detail ?? ''));
      return {
        outcome: `${answers.length} forged lookups → -32602 ×${answers.length - wrong.length}; other server's task untouched`,
        checks: [
          check('every forged lookup gets -32602', wrong.length === 0, wrong),
          check("another server's received task is still working", env.good.scope.get(env.goodReceivedTaskId)?.task.status === 'working', env.good.scope.get(env.goodReceivedTaskId)?.task),
          check('a burst of failed lookups is audited as suspicious, naming the server', suspicious, env.audit.slice(-5)),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
  {
    name: 'tampered-cursors',
    what: 'tasks/list with random, empty, non-string, 1 MB, bit-flipped, re-numbered and another server\'s cursors',
    transports: ['stdio', 'http'],
    options: { limits: { listPageSize: 2 } },
    async attack(ctx) {
      // A genuine cursor of the good server's scope, which the hostile server replays in its own.
      for (let i = 0; i < 2; i++) await ctx.env.good.scope.createTask({ ttl: 60_000 }, `good-list-${i}`, { method: 'elicitation/create', params: {} });
      const foreignCursor = (await ctx.env.good.scope.listTasks()).nextCursor;
      ctx.data.foreignCursor = foreignCursor;
      ctx.data.answers = JSON.parse(await ctx.env.attack('cursors', { foreignCursor }));
    },
    async verify({ env, data }) {
      const answers = data.answers as Record<string, Answer>;
      const tampered = Object.entries(answers).filter(([k]) => k !== 'genuine');
      const wrong = tampered.filter(([, a]) => a.error?.code !== -32602);
      return {
        outcome: `genuine cursor pages; ${tampered.length} tampered cursors → -32602 ×${tampered.length - wrong.length}`,
        checks: [
          check('a foreign cursor was issued to replay', typeof data.foreignCursor === 'string'),
          check('the genuine cursor pages', Array.isArray(answers.genuine?.result?.tasks), answers.genuine),
          check('every tampered cursor gets -32602', wrong.length === 0, wrong),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
  {
    name: 'create-flood',
    what: '300 task-augmented sampling/elicitation requests at once with ttl 10^12 ms',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      ctx.data.result = JSON.parse(await ctx.env.attack('create-flood', { count: 300 }));
    },
    async verify({ env, data }) {
      const r = data.result as { byCode: Record<string, number>; maxTtl: number; example: string };
      const limits = env.ledger.limits;
      // The good server's own quota is untouched: it can still create a task.
      let goodCreate = 'ok';
      try {
        await env.good.scope.createTask({ ttl: 60_000 }, 'good-after-flood', { method: 'sampling/createMessage', params: {} });
      } catch (e) {
        goodCreate = String((e as Error).message);
      }
      return {
        outcome: `${r.byCode.task ?? 0} tasks, -32600 ×${r.byCode['-32600'] ?? 0} ("${r.example.slice(0, 60)}…"); ttl capped at ${r.maxTtl} ms`,
        checks: [
          check(`at most maxLiveTasksPerServer (${limits.maxLiveTasksPerServer}) tasks are created`, (r.byCode.task ?? 0) <= limits.maxLiveTasksPerServer && (r.byCode.task ?? 0) > 0, r.byCode),
          check('every refused create gets -32600', Object.keys(r.byCode).every((k) => k === 'task' || k === '-32600'), r.byCode),
          check('the refusal names the server and the setting', /"hostile"/.test(r.example) && /mcpTasks\.receiver\./.test(r.example), r.example),
          check('ttl is capped at maxTtlMs', r.maxTtl <= limits.maxTtlMs, r.maxTtl),
          check("another server's quota is untouched", goodCreate === 'ok', goodCreate),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
  {
    name: 'crash-mid-task',
    what: 'the server exits while a tool task of ours and a sampling task of its own are in flight',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      const { env } = ctx;
      const { tools } = await env.hostile.client.listTools();
      const key = await env.tracker.callTool(env.hostile, tools.find((t) => t.name === 'job')!, { never: true, pollInterval: 50 });
      ctx.data.key = key;
      const received = waitFor(env.ledger.onDidChange, () => env.hostile.scope.liveCount > 0, 'the hostile sampling task');
      const down = env.attackDoneOrDisconnected();
      await env.attack('crash');
      await received;
      ctx.data.receivedId = env.hostile.scope.snapshot()[0]?.task.taskId;
      await down;
      ctx.end();
      ctx.data.stateAfter = stateText(env);
    },
    async verify({ env, data }) {
      const key = data.key as string;
      const received = env.hostile.scope.get(data.receivedId as string);
      // Our tool task on it ends paused (HTTP: the server is gone) or, once a restarted server
      // no longer knows it, expired — with a reason either way; never left "tracking".
      const sent = await env.untilSent(key, (s) => s.phase === 'expired' || (s.phase === 'paused' && env.hostile.state.kind !== 'running'), 'the hostile tool task to pause or expire');
      const stdioCrash = env.transport === 'stdio';
      return {
        outcome: `${String(data.stateAfter).slice(0, 170)}; our task ${sent.phase}; its task ${received?.task.status}`,
        checks: [
          check(
            'the state names the server and what happened',
            /"hostile"/.test(String(data.stateAfter)) && (stdioCrash ? /exited unexpectedly.*crashing on purpose/.test(String(data.stateAfter)) : /unreachable|closed|failed|disconnected|fetch/i.test(String(data.stateAfter))),
            data.stateAfter,
          ),
          check('the task we sent it ends paused or expired, with a reason', !!sent.reason, sent),
          check('the task it asked of us is cancelled', received?.task.status === 'cancelled', received?.task),
        ],
      };
    },
  },
  {
    name: 'endless-task-list',
    what: 'tasks/list answers 5 forged tasks per page and a fresh nextCursor forever',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      const { env } = ctx;
      await env.attack('endless-list', { perPage: 5 });
      ctx.data.listsBefore = (await env.hostileStats()).lists;
      // The extension merges a server's tasks/list whenever it connects; run one merge to the end.
      ctx.data.added = await env.tracker.mergeServerList(env.hostile);
    },
    async verify({ env, data }) {
      const all = await env.hostileStats();
      const stats = { ...all, lists: all.lists - (data.listsBefore as number) };
      const listed = env.tracker.snapshot().filter((s) => s.serverId === 'hostile' && s.origin === 'listed').length;
      return {
        outcome: `stopped after ${stats.lists} pages; ${String(data.added)} forged tasks now listed in the view (no bound)`,
        checks: [
          check('the host stops paging (at most 1,000 pages)', stats.lists <= 1000, stats),
          check('the forged tasks are kept under the hostile server only', listed === data.added, { listed, added: data.added }),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
  {
    name: 'cancel-before-task-id',
    what: 'the CreateTaskResult is held back 1.5 s while the user presses Cancel',
    transports: ['stdio', 'http'],
    fixedOn: 'sec-requestor',
    async attack(ctx) {
      const { env } = ctx;
      const { tools } = await env.hostile.client.listTools();
      const sending = new Promise<string>((resolve) => {
        const sub = env.tracker.onDidChange((c) => {
          if (c.key.startsWith('hostile/call-') && env.tracker.get(c.key)?.phase === 'sending') {
            sub.dispose();
            resolve(c.key);
          }
        });
      });
      const call = env.tracker.callTool(env.hostile, tools.find((t) => t.name === 'job')!, { never: true, createDelayMs: 1500, pollInterval: 50 });
      const tempKey = await sending;
      ctx.data.cancelled = await env.tracker.cancel(tempKey);
      ctx.data.key = await call;
      ctx.end();
    },
    async verify({ env, data }) {
      const key = data.key as string;
      const early = data.cancelled as { reason?: string };
      let s = env.tracker.get(key);
      try {
        s = await env.untilSent(key, (x) => x.task?.status === 'cancelled' || (x.phase !== 'tracking' && x.phase !== 'sending'), 'the task to be cancelled', 8_000);
      } catch {
        /* still running on the server: reported by the checks */
      }
      const stats = await env.hostileStats();
      return {
        outcome: `Cancel said "${String(early.reason).slice(0, 50)}"; server saw ${stats.cancels} tasks/cancel; task ${s?.phase}/${s?.task?.status}`,
        checks: [
          check('Cancel does not claim the task already finished', !/already/i.test(early.reason ?? ''), early.reason),
          check('the task is cancelled on the server once its id is known', stats.cancels >= 1 && s?.task?.status === 'cancelled', { cancels: stats.cancels, phase: s?.phase, status: s?.task?.status }),
        ],
      };
    },
  },
  {
    name: 'result-only-waiter',
    what: 'one task-augmented sampling, then only a blocking tasks/result (pollIntervalMs 20, 10 operations/s, burst 10)',
    transports: ['stdio', 'http'],
    fixedOn: 'sec-receiver',
    options: { limits: { pollIntervalMs: 20, operationsPerSecond: 10, operationsBurst: 10 } },
    async attack(ctx) {
      const { env } = ctx;
      // Count the SDK's reads of the task while tasks/result waits; release after 40 of them.
      const scope = env.hostile.scope;
      const original = scope.getTask.bind(scope);
      let reads = 0;
      const onRead = new Emitter<void>();
      scope.getTask = async (...a: Parameters<typeof scope.getTask>) => {
        reads++;
        onRead.fire();
        return original(...a);
      };
      let answered = false;
      const answer = env.attack('result-only', {}, 120_000).finally(() => {
        answered = true;
        onRead.fire();
      });
      await waitFor(onRead.event, () => reads >= 40 || answered, '40 internal reads of the waiting task', WAIT_MS);
      env.hostileResponders.releaseAll();
      ctx.data.answer = JSON.parse(await answer);
      ctx.data.reads = reads;
    },
    async verify({ env, data }) {
      const a = data.answer as { answer?: Answer };
      const leaks = env.warnings.filter((w) => /MaxListeners/.test(w));
      return {
        outcome: a.answer?.result ? `result after ${String(data.reads)} internal reads` : `tasks/result failed: ${a.answer?.error?.code} ${a.answer?.error?.message?.slice(0, 60)}`,
        checks: [
          check('waiting on tasks/result never costs the server budget: the result arrives', !!a.answer?.result, a),
          check('no listener is added per internal poll (no MaxListenersExceededWarning)', leaks.length === 0, leaks),
        ],
      };
    },
  },
  {
    name: 'cancel-answers-32602',
    what: 'tasks/cancel answered with -32602 (and command-link text) while the task still runs',
    transports: ['stdio', 'http'],
    fixedOn: 'sec-requestor',
    options: { flags: ['--cancel-invalid'] },
    async attack(ctx) {
      const { env } = ctx;
      const { tools } = await env.hostile.client.listTools();
      const key = await env.tracker.callTool(env.hostile, tools.find((t) => t.name === 'job')!, { never: true, pollInterval: 600_000 });
      await env.untilSent(key, (s) => s.phase === 'tracking', 'tracking');
      ctx.data.before = (await env.hostileStats()).gets;
      ctx.data.snapshot = await env.tracker.cancel(key);
      ctx.end();
      ctx.data.after = (await env.hostileStats()).gets;
    },
    async verify({ data }) {
      const s = data.snapshot as { reason?: string };
      return {
        outcome: `reason "${String(s.reason).slice(0, 70)}…"; tasks/get ${String(data.before)} → ${String(data.after)}`,
        checks: [
          check('the user is told the server could not cancel it', /could not cancel/i.test(s.reason ?? ''), s.reason),
          check('no extra tasks/get after a -32602 to tasks/cancel', data.after === data.before, { before: data.before, after: data.after }),
        ],
      };
    },
  },
  {
    name: 'result-network-drop',
    what: 'the connection of the first tasks/result is dropped (network error) after the task completed',
    transports: ['http'],
    fixedOn: 'sec-requestor',
    options: { flags: ['--drop-result'] },
    async attack(ctx) {
      const { env } = ctx;
      const { tools } = await env.hostile.client.listTools();
      const key = await env.tracker.callTool(env.hostile, tools.find((t) => t.name === 'job')!, { ms: 30, pollInterval: 30 });
      ctx.data.key = key;
      await env.untilSent(key, (s) => s.task?.status === 'completed' || s.phase !== 'tracking', 'the task to complete');
      ctx.end();
    },
    async verify({ env, data }) {
      const key = data.key as string;
      let s = env.tracker.get(key)!;
      try {
        s = await env.untilSent(key, (x) => x.phase === 'done', 'the result to be fetched again', 8_000);
      } catch {
        /* stranded: reported by the check */
      }
      const stats = await env.hostileStats();
      return {
        outcome: `dropped ${stats.droppedResults}, tasks/result sent ${stats.results + stats.droppedResults}; task ${s.phase}`,
        checks: [
          check('the first tasks/result was really dropped', stats.droppedResults === 1, stats),
          check('tasks/result is retried and the result arrives', s.phase === 'done' && s.outcome?.kind === 'result', s),
        ],
      };
    },
  },
  {
    name: 'command-link-text',
    what: 'a task that fails with `[x](command:…)`, <img onerror> and <script> as its text and statusMessage',
    transports: ['stdio'],
    fixedOn: 'sec-display',
    async attack(ctx) {
      const { env } = ctx;
      const { tools } = await env.hostile.client.listTools();
      const key = await env.tracker.callTool(env.hostile, tools.find((t) => t.name === 'job')!, { failWith: HOSTILE_TEXT, pollInterval: 20 });
      ctx.data.key = key;
      await env.untilSent(key, (s) => s.phase === 'done', 'the failed task');
    },
    async verify({ env, data }) {
      const view = new TaskView(env.ledger, env.tracker);
      try {
        const item = view.items().find((i) => i.direction === 'sent' && `${i.serverId}/${i.taskId}` === data.key);
        const doc = item ? renderTaskDocument(item) : '';
        const outcome = item?.outcome as TaskOutcome | undefined;
        const delivered = outcome?.kind === 'result' && textOf(outcome.result).includes('](command:');
        return {
          outcome: `server text reached the task (${delivered ? 'verbatim' : 'changed'}); document ${/\]\(command:/.test(doc) ? 'keeps' : 'escapes'} the command link`,
          checks: [
            check('the hostile text reaches the task as data', delivered, outcome),
            check('the rendered task has no live command: link and no raw HTML', doc !== '' && !/\]\(command:/i.test(doc) && !/<(img|script)\b/i.test(doc), doc.split('\n').filter((l) => /command:|<img|<script/.test(l))),
          ],
        };
      } finally {
        view.dispose();
      }
    },
  },
];

/** Runs one attack on a fresh host; never throws (a failure becomes a failed check). */
export async function runAttack(spec: AttackSpec, transport: TransportKind): Promise<AttackReport> {
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let env: HostileEnv | undefined;
  const checks: Check[] = [];
  let outcome = '';
  let recoverMs: number | undefined;
  let ping = { pings: 0, maxMs: 0, failures: [] as string[], maxLoopDelayMs: 0 };
  try {
    env = await HostileEnv.start(transport, spec.options);
    let endAt: number | undefined;
    const ctx: AttackContext = { env, data: {}, end: () => void (endAt ??= performance.now()) };
    const pinger = env.pingLoop();
    try {
      await spec.attack(ctx);
      ctx.end();
    } finally {
      ping = await pinger.stop();
    }
    await env.good.client.ping({ timeout: WAIT_MS });
    recoverMs = performance.now() - endAt!;
    const verified = await spec.verify(ctx);
    outcome = verified.outcome;
    checks.push(...verified.checks);
    const good = await env.finishGoodTasks();
    checks.push(
      check('the good server answered every ping during the attack', ping.failures.length === 0 && ping.pings > 0, ping),
      check("the good server's tool task completes", good.sent.phase === 'done' && good.sent.outcome?.kind === 'result' && /released/.test(textOf(good.sent.outcome.result)), good.sent),
      check("the good server's received task completes", good.receivedStatus === 'completed', good.receivedStatus),
      check('no log line longer than 10,000 characters', env.hostileLog.longest <= 10_000 && env.goodLog.longest <= 10_000, { longest: env.hostileLog.longest }),
    );
  } catch (e) {
    checks.push(check('the attack runs to the end', false, String((e as Error)?.stack ?? e).slice(0, 1500)));
    outcome ||= `error: ${String((e as Error)?.message ?? e).slice(0, 120)}`;
  } finally {
    const failures = env?.failures ?? [];
    env?.dispose();
    checks.push(check('no uncaught exception or unhandled rejection', failures.length === 0, failures));
  }
  gc();
  const grown = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  checks.push(check('the heap keeps less than 64 MB after the attack', grown < 64, `${grown.toFixed(1)} MB`));
  return { attack: spec.name, transport, outcome, recoverMs, maxPingMs: ping.maxMs, maxLoopDelayMs: ping.maxLoopDelayMs, checks, fixedOn: spec.fixedOn };
}

/** The markdown table of `npm run hostile`. */
export function reportTable(reports: readonly AttackReport[]): string {
  const rows = ['| attack | transport | outcome | time to recover | good ping max during attack | pass/fail |', '|---|---|---|---|---|---|'];
  for (const r of reports) {
    const failed = r.checks.filter((c) => !c.ok);
    const verdict = failed.length === 0 ? 'pass' : `${r.fixedOn ? `fail (fixed on ${r.fixedOn}): ` : 'FAIL: '}${failed.map((c) => c.name).join('; ')}`;
    const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
    rows.push(`| ${r.attack} | ${r.transport} | ${cell(r.outcome)} | ${r.recoverMs === undefined ? '—' : `${r.recoverMs.toFixed(1)} ms`} | ${r.maxPingMs.toFixed(1)} ms | ${cell(verdict)} |`);
  }
  return rows.join('\n');
}
