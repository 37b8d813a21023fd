/**
 * Every attack of the hostile-server fixture, as data: how to run it against a {@link HostileEnv}
 * and what must hold afterwards. `test/integration/hostile.test.ts` asserts each check;
 * `npm run hostile` prints them as a table (attack, transport, outcome, time to recover).
 *
 * The checks every attack shares (the good server stays responsive and its tasks complete, …)
 * are in hostileRun.ts; attacks on the bounds of what a server sends and asks (depth, listed
 * tasks, patterns, prompts) in hostileBoundsAttacks.ts; attacks that show defects other branches
 * fix, in hostileKnownDefects.ts.
 */
import { MAX_LISTED_TASKS_PER_SERVER } from '../../src/core/config/limits.js';
import { WAIT_MS } from './hostileEnv.js';
import { KNOWN_DEFECT_SPECS } from './hostileKnownDefects.js';
import { BOUNDS_ATTACK_SPECS } from './hostileBoundsAttacks.js';
import { PATTERN_ATTACK_SPECS } from './hostilePatternAttacks.js';
import { ATTACKS_2026 } from './hostile2026Attacks.js';
import { CONFIG_ATTACK_SPECS } from './hostileConfigAttacks.js';
import { check, stateText, type Answer, type AttackSpec } from './hostileRun.js';
import { waitFor } from './host.js';

export { runAttack, reportTable, type AttackReport, type AttackSpec, type Check } from './hostileRun.js';

/** Every attack: those the core withstands, then those that showed defects fixed since (hostileKnownDefects.ts). */
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
      await ctx.env.attack('flood', { seconds: 2, foreignTaskId: ctx.env.goodTaskId });
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
      const suspicious = env.audit.some((a) => a.serverId === 'hostile' && /suspicious/.test(a.detail ?? ''));
      return {
        outcome: `${answers.length} forged lookups → -32602 ×${answers.length - wrong.length}; other server's task untouched`,
        checks: [
          check('every forged lookup gets -32602', wrong.length === 0, wrong),
          check("another server's received task is still working", env.goodTasks.get(env.goodReceivedTaskId)?.task.status === 'working', env.goodTasks.get(env.goodReceivedTaskId)?.task),
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
      for (let i = 0; i < 2; i++) await ctx.env.goodTasks.createTask({ ttl: 60_000 }, `good-list-${i}`, { method: 'elicitation/create', params: {} });
      const foreignCursor = (await ctx.env.goodTasks.listTasks()).nextCursor;
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
        await env.goodTasks.createTask({ ttl: 60_000 }, 'good-after-flood', { method: 'sampling/createMessage', params: {} });
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
      const received = waitFor(env.ledger.onDidChange, () => env.hostileTasks.liveCount > 0, 'the hostile sampling task');
      const down = env.attackDoneOrDisconnected();
      await env.attack('crash');
      await received;
      ctx.data.receivedId = env.hostileTasks.snapshot()[0]?.task.taskId;
      await down;
      ctx.end();
      ctx.data.stateAfter = stateText(env);
    },
    async verify({ env, data }) {
      const key = data.key as string;
      const received = env.hostileTasks.get(data.receivedId as string);
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
        outcome: `stopped after ${stats.lists} pages; ${String(data.added)} forged tasks now listed in the view (at most ${MAX_LISTED_TASKS_PER_SERVER})`,
        checks: [
          check('the host stops paging (at most 1,000 pages)', stats.lists <= 1000, stats),
          check(`at most ${MAX_LISTED_TASKS_PER_SERVER} listed tasks are kept`, listed <= MAX_LISTED_TASKS_PER_SERVER, { listed }),
          check('the forged tasks are kept under the hostile server only', listed === data.added, { listed, added: data.added }),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
  ...BOUNDS_ATTACK_SPECS,
  ...PATTERN_ATTACK_SPECS,
  ...ATTACKS_2026,
  ...CONFIG_ATTACK_SPECS,
  ...KNOWN_DEFECT_SPECS,
];
