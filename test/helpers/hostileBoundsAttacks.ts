/**
 * Hostile-server attacks on the bounds of what a server sends and asks (see SECURITY.md): a result
 * nested thousands of levels deep, a tasks/list of 1,500 forged tasks waiting for input, a tool
 * schema whose pattern backtracks catastrophically, and hundreds of plain prompts at once.
 */
import { performance } from 'node:perf_hooks';
import { MAX_JSON_DEPTH } from '../../src/core/base/jsonDepth.js';
import { MAX_LISTED_TASKS_PER_SERVER } from '../../src/core/config/limits.js';
import { parseForm } from '../../src/core/forms/schema.js';
import { checkValue } from '../../src/core/forms/validation.js';
import { TaskView } from '../../src/core/view/taskView.js';
import { check, stateText, type AttackSpec } from './hostileRun.js';
import { waitFor } from './host.js';

export const BOUNDS_ATTACK_SPECS: readonly AttackSpec[] = [
  {
    name: 'deep-result',
    what: 'a tool result whose structuredContent nests 4,000 levels deep (about 20 KB)',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      const { env } = ctx;
      ctx.data.key = await env.tracker.callTool(env.hostile, { name: 'deep' }, { depth: 4000 }, { mode: 'plain' });
    },
    async verify({ env, data }) {
      const s = env.tracker.get(data.key as string);
      let all = -1;
      let items = -1;
      let thrown = '';
      const view = new TaskView(env.ledger, env.tracker);
      try {
        all = env.tracker.snapshot().length;
        items = view.items().length;
      } catch (e) {
        thrown = String(e);
      } finally {
        view.dispose();
      }
      const message = s?.outcome?.kind === 'error' ? s.outcome.message : '';
      const logged = env.hostileLog.lines.some((l) => /refused the answer/.test(l));
      return {
        outcome: `refused where it arrived: "${message.slice(0, 80)}…"; snapshot of ${all} tasks, ${items} view items`,
        checks: [
          check(`the call ends with the reason (nested more than ${MAX_JSON_DEPTH} levels)`, s?.phase === 'done' && new RegExp(`refused the answer: it nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`).test(message), s),
          check('tracker.snapshot() and TaskView.items() still answer, for every server', thrown === '' && all >= 2 && items >= 2, thrown || { all, items }),
          check("the hostile server's log names the refusal", logged, env.hostileLog.lines.slice(-5)),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
  {
    name: 'task-list-flood',
    what: 'tasks/list names 1,500 forged tasks, all input_required, polled every 20 ms if anyone polls',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      const { env } = ctx;
      await env.attack('list-flood', { count: 1500 });
      ctx.data.before = await env.hostileStats();
      ctx.data.added = await env.tracker.mergeServerList(env.hostile);
      ctx.data.again = await env.tracker.mergeServerList(env.hostile); // Refresh
      // One round trip after the merges: any tasks/get or tasks/result they sent has reached the server.
      ctx.data.after = await env.hostileStats();
    },
    async verify({ env, data }) {
      const before = data.before as { gets: number; results: number };
      const after = data.after as { gets: number; results: number };
      const listed = env.tracker.snapshot().filter((s) => s.serverId === 'hostile' && s.origin === 'listed');
      const polled = listed.filter((s) => s.polls > 0).length;
      return {
        outcome: `${listed.length} of 1,500 kept as listed; tasks/get +${after.gets - before.gets}, tasks/result +${after.results - before.results}`,
        checks: [
          check(`at most ${MAX_LISTED_TASKS_PER_SERVER} listed tasks are kept per server, also after a Refresh`, listed.length <= MAX_LISTED_TASKS_PER_SERVER && data.again === 0, { listed: listed.length, again: data.again }),
          check('no listed task is polled or fetched until opened', after.gets === before.gets && after.results === before.results && polled === 0, { before, after, polled }),
          check('the cut is logged', env.hostileLog.lines.some((l) => /more tasks were not added/.test(l)), env.hostileLog.lines.slice(-5)),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
  {
    name: 'regex-pattern',
    what: "a tool input schema with pattern ^(a|a)+$ and a 61-character default (Run Tool… checks the default at once)",
    transports: ['stdio'],
    async attack(ctx) {
      const { env } = ctx;
      const { tools } = await env.hostile.client.listTools();
      const tool = tools.find((t) => t.name === 'pattern_tool')!;
      const field = parseForm(tool.inputSchema, { source: 'tool' }).fields[0];
      const value = field?.kind === 'string' ? (field.default ?? '') : '';
      const started = performance.now();
      ctx.data.error = field ? checkValue(field, value) : 'no field';
      ctx.data.ms = performance.now() - started;
      ctx.data.pattern = field?.kind === 'string' ? field.pattern : undefined;
      ctx.data.length = value.length;
    },
    async verify({ data }) {
      return {
        outcome: `default of ${String(data.length)} characters checked against ${String(data.pattern)} in ${(data.ms as number).toFixed(1)} ms: "${String(data.error)}"`,
        checks: [
          check('the schema reached the form with its pattern and default', data.pattern === '^(a|a)+$' && data.length === 61, data),
          check('the default is checked, and found not to match', data.error === 'Must match the pattern ^(a|a)+$', data.error),
        ],
      };
    },
  },
  {
    name: 'prompt-flood',
    what: '300 plain (no task) elicitation requests at once, each a prompt waiting for the user',
    transports: ['stdio', 'http'],
    async attack(ctx) {
      const { env } = ctx;
      const limit = env.ledger.limits.maxLiveTasksPerServer;
      const rejected = () => env.audit.filter((a) => a.serverId === 'hostile' && /Too many open requests/.test(a.detail ?? '')).length;
      const answer = env.attack('prompt-flood', { count: 300 }, 120_000);
      await waitFor(env.ledger.onAudit, () => rejected() >= 300 - limit, 'the requests beyond the limit to be refused');
      ctx.data.held = env.hostileResponders.calls.length;
      env.hostileResponders.releaseAll();
      ctx.data.result = JSON.parse(await answer);
    },
    async verify({ env, data }) {
      const limit = env.ledger.limits.maxLiveTasksPerServer;
      const r = data.result as { byCode: Record<string, number>; example: string };
      return {
        outcome: `${String(data.held)} prompts open at once; -32600 ×${r.byCode['-32600'] ?? 0} ("${r.example.slice(0, 60)}…")`,
        checks: [
          check(`at most maxLiveTasksPerServer (${limit}) prompts wait at once`, data.held === limit && r.byCode.answered === limit, { held: data.held, byCode: r.byCode }),
          check('every other request is refused with -32600 naming the server and the setting', r.byCode['-32600'] === 300 - limit && /"hostile"/.test(r.example) && /mcpTasks\.receiver\.maxLiveTasksPerServer/.test(r.example), r),
          check('the hostile server stays connected', env.hostile.state.kind === 'running', stateText(env)),
        ],
      };
    },
  },
];
