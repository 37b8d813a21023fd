// Smoke check of the demo server with a bare SDK Client, over stdio and Streamable HTTP.
//
//   npx tsx examples/demo-server/smoke.ts [--no-build] [--only stdio|http|2026] [--verbose]
//
// Builds dist/demo-server.js first (npm run build:demo) unless --no-build. Exits non-zero when a
// check fails. The main client declares task support for sampling and elicitation and has a task
// store but NO task message queue (an SDK Client with both misroutes related-task requests); a
// second client declares no task support, to exercise the server's fallbacks. The 2026-07-28 mode
// (`--revision 2026-07-28`) is checked by smoke2026.ts, over stdio and HTTP too.
import { execSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { InMemoryTaskStore, type ResponseMessage } from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
  type CallToolResult,
  type CreateMessageResult,
  type ElicitResult,
  type Progress,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { smoke2026 } from './smoke2026.js';

const ROOT = resolve(__dirname, '../..');
const SERVER_JS = resolve(ROOT, 'dist/demo-server.js');
const POLL_MS = '200';
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
/** --verbose: show the server's stderr log. */
const verbose = args.includes('--verbose');

// ─── reporting ───────────────────────────────────────────────────────────────
const results: { name: string; ok: boolean; detail: string }[] = [];
let suite = '';
function say(line: string): void {
  process.stdout.write(`${line}\n`);
}
async function check(name: string, fn: () => Promise<string>): Promise<void> {
  const full = `${suite} ${name}`;
  const started = Date.now();
  try {
    const detail = await fn();
    results.push({ name: full, ok: true, detail });
    say(`  ✔ ${name} (${Date.now() - started} ms) — ${detail}`);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    results.push({ name: full, ok: false, detail });
    say(`  ✘ ${name} (${Date.now() - started} ms) — ${detail}`);
  }
}
function assert(cond: unknown, message: string): asserts cond {
  if (!cond) throw new Error(`assertion failed: ${message}`);
}
function textOf(result: { content?: unknown }): string {
  const blocks = (result.content ?? []) as { type: string; text?: string }[];
  return blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}
function relatedTaskOf(meta: unknown): string | undefined {
  const rel = (meta as Record<string, { taskId?: string } | undefined> | undefined)?.[RELATED_TASK_META_KEY];
  return rel?.taskId;
}
async function expectMcpError(p: Promise<unknown>, code: number): Promise<McpError> {
  try {
    await p;
  } catch (err) {
    assert(err instanceof McpError, `expected McpError, got ${String(err)}`);
    assert(err.code === code, `expected code ${code}, got ${err.code} (${err.message})`);
    return err;
  }
  throw new Error(`expected error ${code}, got a result`);
}

// ─── the client under test ───────────────────────────────────────────────────
interface SeenRequest {
  method: string;
  taskAugmented: boolean;
  relatedTaskId?: string;
  params: Record<string, unknown>;
  clientTaskId?: string;
  /** The server sent notifications/cancelled for it while we were still answering. */
  cancelledByServer?: boolean;
}

const MODEL_TEXT = 'Tasks let a server answer now and deliver later.';
const PROFILE_ANSWER = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  homepage: 'https://ada.example.org',
  birthday: '1815-12-10',
  nextMeeting: '2026-12-01T10:00:00Z',
  age: 36,
  rating: 4.5,
  newsletter: true,
  role: 'dev',
  editor: 'vscode',
  languages: ['typescript', 'rust'],
  interests: ['tasks', 'elicitation'],
};

function makeClient(withTasks: boolean): { client: Client; seen: SeenRequest[] } {
  const seen: SeenRequest[] = [];
  const client = new Client(
    { name: withTasks ? 'smoke-client' : 'smoke-client-no-tasks', version: '0.0.1' },
    {
      capabilities: withTasks
        ? {
            sampling: {},
            elicitation: { form: {}, url: {} },
            tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
          }
        : { sampling: {}, elicitation: { form: {} } },
      ...(withTasks ? { taskStore: new InMemoryTaskStore() } : {}),
      defaultTaskPollInterval: 200,
    },
  );

  // Receiver side (R-CREATE-1): a task-augmented request gets a CreateTaskResult at once and the
  // answer is stored in the client's task store a little later; a plain one gets the answer.
  const answer = async <T extends CreateMessageResult | ElicitResult>(
    method: string,
    params: Record<string, unknown> & { task?: { ttl?: number }; _meta?: unknown },
    extra: {
      signal: AbortSignal;
      taskStore?: {
        createTask: (o: { ttl?: number | null; pollInterval?: number }) => Promise<Task>;
        storeTaskResult: (id: string, s: 'completed' | 'failed', r: T) => Promise<void>;
      };
    },
    make: () => T,
  ) => {
    const record: SeenRequest = { method, taskAugmented: !!params.task, relatedTaskId: relatedTaskOf(params._meta), params };
    seen.push(record);
    if (params.task && extra.taskStore) {
      const store = extra.taskStore;
      const task = await store.createTask({ ttl: params.task.ttl ?? 60_000, pollInterval: 200 });
      record.clientTaskId = task.taskId;
      setTimeout(() => {
        store.storeTaskResult(task.taskId, 'completed', make()).catch((e: unknown) => say(`    (client) storeTaskResult failed: ${String(e)}`));
      }, 450);
      return { task };
    }
    // A message mentioning "slow" is answered only after 3 s, unless the server cancels it first.
    const slow = typeof params.message === 'string' && params.message.includes('slow');
    await delay(slow ? 3000 : 100, undefined, { signal: extra.signal }).catch(() => undefined);
    if (extra.signal.aborted) record.cancelledByServer = true;
    return make();
  };

  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) =>
    answer<CreateMessageResult>('sampling/createMessage', request.params, extra, () => ({
      role: 'assistant',
      content: { type: 'text', text: MODEL_TEXT },
      model: 'smoke-model-1',
      stopReason: 'endTurn',
    })),
  );
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) =>
    answer<ElicitResult>('elicitation/create', request.params, extra, () => {
      const props = (request.params as { requestedSchema?: { properties?: Record<string, unknown> } }).requestedSchema?.properties ?? {};
      return 'environment' in props
        ? { action: 'accept', content: { environment: 'production', confirm: true } }
        : { action: 'accept', content: PROFILE_ANSWER };
    }),
  );
  client.onerror = (err) => {
    // Closing an HTTP client aborts its SSE GET stream; that is not worth reporting.
    if (!/AbortError|aborted/.test(err.message)) say(`    (client error) ${err.message}`);
  };
  return { client, seen };
}

interface StreamOutcome {
  created?: Task;
  statuses: Task[];
  result?: CallToolResult;
  error?: Error;
  progress: { at: number; p: Progress }[];
  createdAt?: number;
}

async function runToolStream(
  client: Client,
  name: string,
  toolArgs: Record<string, unknown>,
  opts: { task?: { ttl?: number }; onMessage?: (m: ResponseMessage<CallToolResult>, o: StreamOutcome) => Promise<void> } = {},
): Promise<StreamOutcome> {
  const outcome: StreamOutcome = { statuses: [], progress: [] };
  const stream = client.experimental.tasks.callToolStream({ name, arguments: toolArgs }, CallToolResultSchema, {
    task: opts.task ?? {},
    onprogress: (p) => outcome.progress.push({ at: Date.now(), p }),
    timeout: 30_000,
  });
  for await (const m of stream) {
    if (m.type === 'taskCreated') {
      outcome.created = m.task;
      outcome.createdAt = Date.now();
    } else if (m.type === 'taskStatus') outcome.statuses.push(m.task);
    else if (m.type === 'result') outcome.result = m.result as CallToolResult;
    else if (m.type === 'error') outcome.error = m.error;
    await opts.onMessage?.(m as ResponseMessage<CallToolResult>, outcome);
  }
  return outcome;
}

// ─── the checks ──────────────────────────────────────────────────────────────
/** Closes a client; over HTTP first ends the session with DELETE. */
async function closeClient(client: Client, transport: Transport): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession();
  await client.close();
}

async function runSuite(label: string, connect: () => Promise<Transport>): Promise<void> {
  suite = `[${label}]`;
  say(`\n=== ${label} ===`);
  const { client, seen } = makeClient(true);
  const transport = await connect();
  await client.connect(transport);
  const taskIds: string[] = [];

  await check('initialize: server declares tasks for tools/call + list + cancel', async () => {
    const caps = client.getServerCapabilities();
    assert(caps?.tasks?.requests?.tools?.call, 'tasks.requests.tools.call');
    assert(caps?.tasks?.list && caps.tasks.cancel, 'tasks.list/cancel');
    return `server ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}`;
  });

  await check('tools/list: execution.taskSupport per tool', async () => {
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution === undefined ? 'absent' : (t.execution.taskSupport ?? 'absent*')]));
    const expected: Record<string, string> = {
      long_build: 'required',
      quick_echo: 'optional',
      forbidden_echo: 'forbidden',
      plain_time: 'absent',
      confirm_deploy: 'required',
      flaky_job: 'required',
      ask_model: 'optional',
      collect_profile: 'optional',
    };
    for (const [tool, s] of Object.entries(expected)) assert(support[tool] === s, `${tool}: expected ${s}, got ${support[tool]}`);
    assert(tools.every((t) => t.title && t.description), 'every tool has a title and description');
    return Object.entries(support).map(([k, v]) => `${k}=${v}`).join(', ');
  });

  await check('long_build as task: progress for the whole task life + statusMessage each step', async () => {
    const o = await runToolStream(client, 'long_build', { steps: 5, stepMs: 150 }, { task: { ttl: 60_000 } });
    assert(o.created, 'taskCreated');
    taskIds.push(o.created.taskId);
    assert(o.created.status === 'working', 'new task is working (R-CREATE-2)');
    assert(o.created.ttl === 60_000, `ttl granted as asked, got ${o.created.ttl}`);
    assert(o.created.pollInterval === 200, `pollInterval from DEMO_POLL_INTERVAL_MS, got ${o.created.pollInterval}`);
    assert(!o.error, `no error: ${o.error?.message}`);
    assert(o.result && /Build succeeded: 5 steps/.test(textOf(o.result)), `result text: ${o.result && textOf(o.result)}`);
    const after = o.progress.filter((x) => x.at >= (o.createdAt ?? 0));
    assert(after.length >= 5, `progress after CreateTaskResult (R-PROGRESS-1): got ${after.length} of ${o.progress.length}`);
    const last = o.progress[o.progress.length - 1].p;
    assert(last.progress === 5 && last.total === 5 && /step 5\/5: packaging/.test(last.message ?? ''), `last progress ${JSON.stringify(last)}`);
    const progMeta = relatedTaskOf((o.progress[1].p as { _meta?: unknown })._meta);
    assert(progMeta === o.created.taskId, 'progress carries related-task metadata (R-META-1)');
    const msgs = [...new Set(o.statuses.map((s) => s.statusMessage).filter(Boolean))];
    assert(msgs.some((m) => /^step \d\/5: /.test(m ?? '')), `statusMessages seen while polling: ${msgs.join(' | ')}`);
    const final = await client.experimental.tasks.getTask(o.created.taskId);
    assert(final.status === 'completed', 'completed');
    return `${o.progress.length} progress notifications (${after.length} after CreateTaskResult), last "${last.message}" ${last.progress}/${last.total}; statusMessages seen: ${msgs.join(' | ')}`;
  });

  await check('long_build cancelled mid-way: stops promptly, stays cancelled (R-CANCEL-2/3), ttl capped (R-TASK-3)', async () => {
    let cancelledAt = 0;
    let cancelResult: Task | undefined;
    const o = await runToolStream(client, 'long_build', { steps: 40, stepMs: 100 }, {
      task: { ttl: 10 * 24 * 3600_000 },
      onMessage: async (m, out) => {
        if (m.type === 'taskStatus' && !cancelledAt && out.progress.length >= 3) {
          cancelledAt = Date.now();
          cancelResult = await client.experimental.tasks.cancelTask(m.task.taskId);
        }
      },
    });
    assert(o.created, 'taskCreated');
    taskIds.push(o.created.taskId);
    assert(o.created.ttl === 3_600_000, `requested ttl of 10 days capped to 1 h, got ${o.created.ttl}`);
    assert(cancelResult?.status === 'cancelled', `tasks/cancel answers the cancelled task, got ${cancelResult?.status}`);
    assert(o.error && /cancelled/.test(o.error.message), `stream ends with a cancelled error: ${o.error?.message}`);
    const progressAtCancel = o.progress.filter((x) => x.at <= cancelledAt).length;
    await delay(700);
    const later = o.progress.length - progressAtCancel;
    assert(later <= 1, `no progress after cancel (got ${later})`);
    const t = await client.experimental.tasks.getTask(o.created.taskId);
    assert(t.status === 'cancelled', `still cancelled after the work would have run on, got ${t.status}`);
    const again = await expectMcpError(client.experimental.tasks.cancelTask(o.created.taskId), -32602);
    const res = await expectMcpError(client.experimental.tasks.getTaskResult(o.created.taskId, CallToolResultSchema), -32603).catch((e: Error) => e);
    return `cancelled after ${progressAtCancel} progress notifications, ${later} later; statusMessage "${t.statusMessage}"; cancel again → -32602 "${again.message}"; tasks/result → ${res.message}`;
  });

  await check('R-CAP-4: required tool without task → -32601; forbidden/absent tool with task → -32601', async () => {
    const a = await expectMcpError(client.request({ method: 'tools/call', params: { name: 'long_build', arguments: {} } }, CallToolResultSchema), -32601);
    const b = await expectMcpError(
      client.request({ method: 'tools/call', params: { name: 'forbidden_echo', arguments: { text: 'x' }, task: {} } }, CallToolResultSchema),
      -32601,
    );
    const c = await expectMcpError(client.request({ method: 'tools/call', params: { name: 'plain_time', arguments: {}, task: {} } }, CallToolResultSchema), -32601);
    return [a, b, c].map((e) => e.message.replace('MCP error -32601: ', '')).join(' | ');
  });

  await check('quick_echo plain and as task', async () => {
    const plain = (await client.callTool({ name: 'quick_echo', arguments: { text: 'hello plain', delayMs: 50 } })) as CallToolResult;
    assert(textOf(plain) === 'hello plain', `plain: ${textOf(plain)}`);
    const o = await runToolStream(client, 'quick_echo', { text: 'hello task', delayMs: 50 });
    assert(o.created && o.result && textOf(o.result) === 'hello task', `task: ${o.result && textOf(o.result)} ${o.error?.message ?? ''}`);
    taskIds.push(o.created.taskId);
    return `plain → "${textOf(plain)}", task ${o.created.taskId.slice(0, 8)}… → "${textOf(o.result)}"`;
  });

  await check('forbidden_echo and plain_time plain', async () => {
    const e = (await client.callTool({ name: 'forbidden_echo', arguments: { text: 'no tasks here' } })) as CallToolResult;
    assert(textOf(e) === 'no tasks here', 'echo');
    const t = (await client.callTool({ name: 'plain_time', arguments: {} })) as CallToolResult;
    assert(!Number.isNaN(Date.parse(textOf(t))) && textOf(t).endsWith('Z'), `ISO time: ${textOf(t)}`);
    return `"${textOf(e)}", ${textOf(t)}`;
  });

  await check('confirm_deploy: input_required → elicitation via tasks/result → working → completed', async () => {
    const before = seen.length;
    const o = await runToolStream(client, 'confirm_deploy', { prepareMs: 100, deployMs: 100 });
    assert(o.created, 'taskCreated');
    taskIds.push(o.created.taskId);
    const statuses = o.statuses.map((s) => s.status);
    assert(statuses.includes('input_required'), `saw input_required: ${statuses.join(',')}`);
    const req = seen.slice(before).find((s) => s.method === 'elicitation/create');
    assert(req, 'the client got an elicitation/create');
    assert(!req.taskAugmented, 'side-channel elicitation is a plain request');
    assert(req.relatedTaskId === o.created.taskId, `elicitation carries related-task ${o.created.taskId} (R-RESULT-4), got ${req.relatedTaskId}`);
    assert(o.result && /Deployed web-frontend@1\.4\.2 to production/.test(textOf(o.result)), `result: ${o.result && textOf(o.result)} ${o.error?.message ?? ''}`);
    assert(relatedTaskOf(o.result._meta) === o.created.taskId, 'tasks/result carries related-task (R-RESULT-3)');
    const t = await client.experimental.tasks.getTask(o.created.taskId);
    assert(t.status === 'completed', `completed, got ${t.status}`);
    return `statuses ${[...new Set(statuses)].join('→')}; "${textOf(o.result)}"`;
  });

  await check('confirm_deploy cancelled while input_required: pending elicitation cancelled, task stays cancelled', async () => {
    const before = seen.length;
    const run = runToolStream(client, 'confirm_deploy', { service: 'slow-service', prepareMs: 50, deployMs: 50 });
    let taskId: string | undefined;
    let status = '';
    for (let i = 0; i < 50 && status !== 'input_required'; i++) {
      await delay(100);
      const mine = (await client.experimental.tasks.listTasks()).tasks.filter((t) => !taskIds.includes(t.taskId));
      const t = mine.find((x) => x.status === 'input_required' || x.status === 'working');
      taskId = t?.taskId;
      status = t?.status ?? '';
    }
    assert(taskId && status === 'input_required', `task reached input_required (got ${status})`);
    taskIds.push(taskId);
    await delay(300); // let tasks/result deliver the elicitation
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    const o = await run;
    await delay(300);
    const req = seen.slice(before).find((s) => s.method === 'elicitation/create');
    assert(cancelled.status === 'cancelled', 'tasks/cancel → cancelled');
    assert(req?.relatedTaskId === taskId, 'the elicitation had been delivered');
    assert(req.cancelledByServer, 'the server sent notifications/cancelled for the pending elicitation');
    const t = await client.experimental.tasks.getTask(taskId);
    assert(t.status === 'cancelled', `still cancelled, got ${t.status}`);
    return `stream ended with "${o.error?.message ?? 'result'}"; elicitation cancelled by server; task ${t.status}`;
  });

  await check('flaky_job: task ends failed with a diagnostic statusMessage; tasks/result returns the isError result', async () => {
    const o = await runToolStream(client, 'flaky_job', { delayMs: 150 });
    assert(o.created, 'taskCreated');
    taskIds.push(o.created.taskId);
    assert(o.error && /failed/.test(o.error.message), `stream error: ${o.error?.message}`);
    const t = await client.experimental.tasks.getTask(o.created.taskId);
    assert(t.status === 'failed', `failed, got ${t.status}`);
    assert(t.statusMessage && /503/.test(t.statusMessage), `diagnostic statusMessage (R-LIFE-3): ${t.statusMessage}`);
    const r = await client.experimental.tasks.getTaskResult(o.created.taskId, CallToolResultSchema);
    assert(r.isError === true && /flaky_job failed/.test(textOf(r)), `isError result (R-ERR-2): ${JSON.stringify(r)}`);
    assert(relatedTaskOf(r._meta) === o.created.taskId, 'related-task on tasks/result (R-RESULT-3)');
    return `statusMessage "${t.statusMessage}"; tasks/result isError=${r.isError} "${textOf(r)}"`;
  });

  await check('ask_model as task: task-augmented sampling to the client, polled to completion', async () => {
    const before = seen.length;
    const o = await runToolStream(client, 'ask_model', { prompt: 'What are MCP tasks?' });
    assert(o.created, 'taskCreated');
    taskIds.push(o.created.taskId);
    assert(o.result && textOf(o.result) === MODEL_TEXT, `result: ${o.result && textOf(o.result)} ${o.error?.message ?? ''}`);
    const req = seen.slice(before).find((s) => s.method === 'sampling/createMessage');
    assert(req?.taskAugmented && req.clientTaskId, 'sampling was task-augmented and the client created a task');
    assert(req.relatedTaskId === o.created.taskId, `sampling carries related-task of the tool task, got ${req.relatedTaskId}`);
    const p = req.params as { systemPrompt?: string; maxTokens?: number; modelPreferences?: { hints?: { name?: string }[] } };
    assert(p.systemPrompt && p.maxTokens && p.modelPreferences?.hints?.length, 'systemPrompt, maxTokens, modelPreferences.hints');
    const sc = o.result.structuredContent as { route?: string; clientTaskId?: string };
    assert(sc.clientTaskId === req.clientTaskId, 'the server polled the client task we created');
    const msgs = [...new Set(o.statuses.map((s) => s.statusMessage).filter(Boolean))];
    return `client task ${req.clientTaskId?.slice(0, 8)}…; answer "${textOf(o.result)}"; tool statusMessages: ${msgs.join(' | ')}`;
  });

  await check('ask_model plain call: task-augmented sampling nested in the tools/call', async () => {
    const before = seen.length;
    const r = (await client.callTool({ name: 'ask_model', arguments: { prompt: 'Say hi' } }, CallToolResultSchema, { timeout: 30_000 })) as CallToolResult;
    assert(textOf(r) === MODEL_TEXT, `result: ${textOf(r)}`);
    const req = seen.slice(before).find((s) => s.method === 'sampling/createMessage');
    assert(req?.taskAugmented, 'task-augmented');
    assert(req.relatedTaskId === undefined, 'no related-task for a plain tools/call');
    return `answer "${textOf(r)}" via ${(r.structuredContent as { route?: string }).route}`;
  });

  await check('collect_profile as task: task-augmented form elicitation with the rich schema', async () => {
    const before = seen.length;
    const o = await runToolStream(client, 'collect_profile', {});
    assert(o.created, 'taskCreated');
    taskIds.push(o.created.taskId);
    const req = seen.slice(before).find((s) => s.method === 'elicitation/create');
    assert(req?.taskAugmented && req.clientTaskId, 'elicitation was task-augmented');
    assert(req.relatedTaskId === o.created.taskId, 'elicitation carries related-task of the tool task');
    const schema = req.params.requestedSchema as { properties: Record<string, Record<string, unknown>>; required?: string[] };
    const props = schema.properties;
    assert(Object.keys(props).length === 12, `12 fields, got ${Object.keys(props).length}`);
    assert(props.email.format === 'email' && props.homepage.format === 'uri' && props.birthday.format === 'date' && props.nextMeeting.format === 'date-time', 'formats');
    assert(props.name.minLength === 2 && props.name.maxLength === 60, 'minLength/maxLength');
    assert(props.age.type === 'integer' && props.age.minimum === 13 && props.age.maximum === 120, 'integer range');
    assert(Array.isArray(props.role.oneOf) && Array.isArray(props.editor.enumNames), 'oneOf + legacy enumNames');
    assert((props.languages.items as { enum?: unknown }).enum && (props.interests.items as { anyOf?: unknown }).anyOf, 'multi-select enum + anyOf');
    assert(props.languages.minItems === 1 && props.languages.maxItems === 3, 'minItems/maxItems');
    assert(schema.required?.includes('email'), 'required');
    const sc = o.result?.structuredContent as { action?: string; content?: Record<string, unknown> } | undefined;
    assert(sc?.action === 'accept' && sc.content?.email === PROFILE_ANSWER.email, `answer returned: ${o.result && textOf(o.result)} ${o.error?.message ?? ''}`);
    return `12 fields (${Object.keys(props).join(', ')}); answer returned via client task ${req.clientTaskId?.slice(0, 8)}…`;
  });

  await check('collect_profile plain call', async () => {
    const r = (await client.callTool({ name: 'collect_profile', arguments: {} }, CallToolResultSchema, { timeout: 30_000 })) as CallToolResult;
    const sc = r.structuredContent as { action?: string; route?: string };
    assert(sc.action === 'accept', `accepted: ${textOf(r)}`);
    return `route: ${sc.route}`;
  });

  await check('tasks/list, tasks/get errors (R-LIST, R-GET-2)', async () => {
    const listed: Task[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.experimental.tasks.listTasks(cursor);
      listed.push(...page.tasks);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    const ids = new Set(listed.map((t) => t.taskId));
    assert(taskIds.every((id) => ids.has(id)), 'every task we created is listed');
    const unknown = await expectMcpError(client.experimental.tasks.getTask('no-such-task'), -32602);
    const badCursor = await expectMcpError(client.experimental.tasks.listTasks('bogus-cursor'), -32602);
    const counts = listed.reduce<Record<string, number>>((acc, t) => ((acc[t.status] = (acc[t.status] ?? 0) + 1), acc), {});
    return `${listed.length} tasks in ${pages} page(s) ${JSON.stringify(counts)}; unknown id → "${unknown.message}"; bad cursor → "${badCursor.message}"`;
  });

  await closeClient(client, transport);

  // A client that declares no task support: the server must fall back to plain requests.
  const { client: plainClient, seen: seen2 } = makeClient(false);
  const plainTransport = await connect();
  await plainClient.connect(plainTransport);

  await check('fallback (client without tasks caps): ask_model as task → plain sampling via tasks/result', async () => {
    const o = await runToolStream(plainClient, 'ask_model', { prompt: 'fallback?' });
    assert(o.created && o.result && textOf(o.result) === MODEL_TEXT, `result: ${o.result && textOf(o.result)} ${o.error?.message ?? ''}`);
    const req = seen2.find((s) => s.method === 'sampling/createMessage');
    assert(req && !req.taskAugmented && req.relatedTaskId === o.created.taskId, 'plain sampling with related-task');
    assert(o.statuses.some((s) => s.status === 'input_required'), 'tool task went input_required');
    return `route: ${(o.result.structuredContent as { route?: string }).route}`;
  });

  await check('fallback: collect_profile as task and plain → plain elicitation (server validates the answer)', async () => {
    const o = await runToolStream(plainClient, 'collect_profile', {});
    assert(o.result && (o.result.structuredContent as { action?: string }).action === 'accept', `task: ${o.result && textOf(o.result)} ${o.error?.message ?? ''}`);
    const r = (await plainClient.callTool({ name: 'collect_profile', arguments: {} }, CallToolResultSchema, { timeout: 30_000 })) as CallToolResult;
    assert((r.structuredContent as { action?: string }).action === 'accept', `plain: ${textOf(r)}`);
    const reqs = seen2.filter((s) => s.method === 'elicitation/create');
    assert(reqs.every((s) => !s.taskAugmented), 'all plain');
    return `task route: ${(o.result.structuredContent as { route?: string }).route}; plain route: ${(r.structuredContent as { route?: string }).route}`;
  });

  await closeClient(plainClient, plainTransport);
}

// ─── process lifecycle ───────────────────────────────────────────────────────
function serverEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.DEMO_POLL_INTERVAL_MS = POLL_MS;
  return env;
}

async function lifecycleChecks(): Promise<void> {
  suite = '[lifecycle]';
  say('\n=== process lifecycle ===');
  const init = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'lifecycle', version: '1' } },
  });
  const startStdio = async () => {
    const child = spawn(process.execPath, [SERVER_JS], { env: serverEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.write(`${init}\n`);
    await once(child.stdout, 'data');
    // a running task must not keep the process alive
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'long_build', arguments: { steps: 100, stepMs: 1000 }, task: {} } })}\n`,
    );
    await once(child.stdout, 'data');
    return child;
  };
  const waitExit = async (child: ReturnType<typeof spawn>, ms: number) => {
    const started = Date.now();
    const res = await Promise.race([
      once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as string | null })),
      delay(ms).then(() => undefined),
    ]);
    if (!res) child.kill('SIGKILL');
    return { res, ms: Date.now() - started };
  };

  await check('stdio: exits when stdin closes (with a task running)', async () => {
    const child = await startStdio();
    child.stdin.end();
    const { res, ms } = await waitExit(child, 3000);
    assert(res, 'exited within 3 s');
    assert(res.code === 0, `exit code 0, got ${res.code}/${res.signal}`);
    return `exit code ${res.code} after ${ms} ms`;
  });

  await check('stdio: exits on SIGTERM', async () => {
    const child = await startStdio();
    child.kill('SIGTERM');
    const { res, ms } = await waitExit(child, 3000);
    assert(res && res.code === 0, `exit code 0, got ${JSON.stringify(res)}`);
    return `exit code ${res.code} after ${ms} ms`;
  });
}

async function withHttpServer(fn: (url: URL) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [SERVER_JS, '--http', '--port', '0'], { env: serverEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const url = await new Promise<URL>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line; stderr: ${stderr}`)), 5000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      if (verbose) process.stderr.write(chunk);
      const m = /listening on (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolveUrl(new URL(m[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  say(`(http server says: listening on ${url.href})`);
  try {
    await fn(url);
  } finally {
    suite = '[http]';
    await check('http: DELETE closes sessions on the server', async () => {
      const opened = stderr.match(/session \S+ opened/g)?.length ?? 0;
      const closed = stderr.match(/session \S+ closed/g)?.length ?? 0;
      assert(opened >= 2 && closed === opened, `opened ${opened}, closed ${closed}`);
      return `${opened} sessions opened, ${closed} closed`;
    });
    await check('http: exits on SIGTERM (with a session open and a task running)', async () => {
      const { client } = makeClient(true);
      await client.connect(new StreamableHTTPClientTransport(url));
      const created = await client.request(
        { method: 'tools/call', params: { name: 'long_build', arguments: { steps: 100, stepMs: 1000 }, task: {} } },
        CreateTaskResultSchema,
      );
      assert(created.task.status === 'working', 'task running');
      const exited = once(child, 'exit');
      const started = Date.now();
      child.kill('SIGTERM');
      const res = await Promise.race([exited, delay(3000).then(() => undefined)]);
      if (!res) child.kill('SIGKILL');
      await client.close().catch(() => undefined);
      assert(res && res[0] === 0, `exit code 0, got ${JSON.stringify(res)}`);
      return `exit code ${res[0]} after ${Date.now() - started} ms`;
    });
  }
}

async function main(): Promise<void> {
  if (!args.includes('--no-build')) {
    say('building dist/demo-server.js (npm run build:demo)…');
    execSync('npm run -s build:demo', { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  }
  const started = Date.now();

  if (!only || only === 'stdio') {
    await runSuite('stdio', async () => new StdioClientTransport({ command: process.execPath, args: [SERVER_JS], env: serverEnv(), stderr: verbose ? 'inherit' : 'ignore' }));
    await lifecycleChecks();
  }
  if (!only || only === 'http') {
    await withHttpServer(async (url) => {
      await runSuite('http', async () => new StreamableHTTPClientTransport(url));
      suite = '[http]';
      await check('http: unknown session → 404, non-initialize without session → 400', async () => {
        const a = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'nope' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
        const b = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
        assert(a.status === 404 && b.status === 400, `got ${a.status} / ${b.status}`);
        return `${a.status} / ${b.status}`;
      });
    });
  }

  if (!only || only === '2026') {
    say('\n=== MCP 2026-07-28 (--revision 2026-07-28) ===');
    suite = '[2026]';
    await smoke2026(check, SERVER_JS, serverEnv(), verbose);
  }

  const failed = results.filter((r) => !r.ok);
  say(`\n${results.length - failed.length}/${results.length} checks passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const f of failed) say(`  FAILED ${f.name}: ${f.detail}`);
  process.exit(failed.length ? 1 : 0);
}

main().catch((err: unknown) => {
  say(`smoke crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
