// The server side of the 2026-07-28 MCP Tasks extension (`io.modelcontextprotocol/tasks`,
// modelcontextprotocol/experimental-ext-tasks specification/draft/tasks.md), used by the demo
// server (`--tasks-extension`) and by the integration tests (the same bundle). Messages are built
// and checked with the generated "core/v2" schemas of @modelcontextprotocol/ext-tasks.
//
// Tools (each answers as a task only when the request declares the extension, §Capability
// Negotiation; otherwise -32021):
//   ext_count     {steps?, stepMs?, pollIntervalMs?, pollIntervalsMs?, ttlNull?, notify?, refuseGets?, refuseGetsCount?}
//                                      counts, then completes (`pollIntervalsMs`: the pollIntervalMs
//                                      after step 1, 2, …, so it changes over the task's life;
//                                      `refuseGets`: its next `refuseGetsCount` (default: every)
//                                      tasks/get are refused, 'header-mismatch' as HTTP 400 -32020
//                                      over Streamable HTTP even with the right Mcp-Name (tests),
//                                      'internal-error' as -32603)
//   ext_ask_name  {count?, notify?}    needs input mid-task: an elicitation (or `count`) in `inputRequests`
//   ext_fail      {stepMs?}            fails with a JSON-RPC error (status `failed`)
//   ext_echo      {text}               answers at once (the plain CallToolResult shape)
//   ext_stats     {}                   what the server saw (tests)
// `notify: true` also pushes `notifications/tasks` on every status change (§Task Status Notifications).
import { randomUUID } from 'node:crypto';
import {
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  TASKS_EXTENSION_ID_V2,
  TaskStatusNotificationV2Schema,
  UpdateTaskRequestV2Schema,
  hasTaskClientCapabilityV2,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';

export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

interface ExtTask {
  taskId: string;
  status: Status;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  inputRequests?: Record<string, unknown>;
  timers: Set<NodeJS.Timeout>;
  notify?: (params: Record<string, unknown>) => void;
  /** For tests: server-side times (ms) of each tasks/get, tasks/update keys received, cancels. */
  gets: number[];
  /** The status and pollIntervalMs each tasks/get answered. */
  getAnswers: Array<{ status: Status; pollIntervalMs: number }>;
  updates: string[];
  /** ext_ask_name: one greeting per answered key. */
  greetings: string[];
  cancels: number;
  tool: string;
  /** For tests (`ext_count` `refuseGets`): how the next `left` tasks/get of this task are refused. */
  refuseGets?: { kind: 'header-mismatch' | 'internal-error'; left: number };
}

/** The tasks of one process (shared by every HTTP session, so a reconnected client finds them). */
export class ExtTaskBook {
  readonly tasks = new Map<string, ExtTask>();
  readonly toolCalls: Array<{ name: string; declared: boolean }> = [];
  constructor(
    readonly pollIntervalMs = 500,
    readonly ttlMs = 15 * 60_000,
  ) {}
  shutdown(): void {
    for (const t of this.tasks.values()) for (const timer of t.timers) clearTimeout(timer);
    this.tasks.clear();
  }
}

const TOOLS: Tool[] = [
  {
    name: 'ext_count',
    title: 'Count (Tasks extension)',
    description: 'Counts to `steps` (default 5), one step every `stepMs` (default 1000), as a 2026-07-28 task.',
    inputSchema: {
      type: 'object',
      properties: {
        steps: { type: 'integer' },
        stepMs: { type: 'integer' },
        pollIntervalMs: { type: 'integer' },
        ttlNull: { type: 'boolean' },
        notify: { type: 'boolean' },
        refuseGets: { type: 'string', enum: ['header-mismatch', 'internal-error'] },
        refuseGetsCount: { type: 'integer' },
      },
    },
  },
  {
    name: 'ext_ask_name',
    title: 'Ask a name (Tasks extension)',
    description: 'Asks for your name mid-task (an elicitation in the task\'s inputRequests, answered with tasks/update), then greets you.',
    inputSchema: { type: 'object', properties: { count: { type: 'integer' }, notify: { type: 'boolean' } } },
  },
  {
    name: 'ext_fail',
    title: 'Fail (Tasks extension)',
    description: 'Works briefly, then fails with a JSON-RPC error (task status failed).',
    inputSchema: { type: 'object', properties: { stepMs: { type: 'integer' } } },
  },
  {
    name: 'ext_echo',
    title: 'Echo (plain result)',
    description: 'Answers at once with a plain CallToolResult: the server decides not to make a task.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
  { name: 'ext_stats', description: 'What the server saw (for tests).', inputSchema: { type: 'object', properties: {} } },
];

function missingCapability(): McpError {
  return new McpError(MISSING_REQUIRED_CLIENT_CAPABILITY, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID_V2]: {} } },
  });
}

/** The DetailedTask of a task, as tasks/get answers it (§Task Polling). */
function detailed(t: ExtTask): Record<string, unknown> {
  return {
    taskId: t.taskId,
    status: t.status,
    ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: t.ttlMs,
    pollIntervalMs: t.pollIntervalMs,
    ...(t.status === 'completed' ? { result: { resultType: 'complete', ...t.result } } : {}),
    ...(t.status === 'failed' ? { error: t.error } : {}),
    ...(t.status === 'input_required' ? { inputRequests: t.inputRequests ?? {} } : {}),
  };
}

function update(t: ExtTask, change: Partial<Pick<ExtTask, 'status' | 'statusMessage' | 'result' | 'error' | 'inputRequests' | 'pollIntervalMs'>>): void {
  if (t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled') return;
  Object.assign(t, change);
  t.lastUpdatedAt = new Date().toISOString();
  if (t.notify) t.notify(TaskStatusNotificationV2Schema.parse({ jsonrpc: '2.0', method: 'notifications/tasks', params: detailed(t) }).params as Record<string, unknown>);
}

function later(t: ExtTask, ms: number, fn: () => void): void {
  const timer = setTimeout(() => {
    t.timers.delete(timer);
    fn();
  }, ms);
  t.timers.add(timer);
}

const text = (s: string) => ({ content: [{ type: 'text', text: s }] });

function num(v: unknown, fallback: number, min = 0, max = 600_000): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.min(Math.max(Math.trunc(v), min), max) : fallback;
}

/** A low-level MCP server (SDK v1) that declares the Tasks extension and answers its tools as 2026-07-28 tasks. */
// `declare: false` leaves the extension out of the server's capabilities (a misconfigured server:
// its clients speak 2025-11-25 and its task tools answer -32021).
export function createTasksExtensionServer(book: ExtTaskBook, options: { declare?: boolean } = {}, info = { name: 'mcp-tasks-demo-2026', version: '0.1.0' }): Server {
  const server = new Server(
    { ...info, title: 'MCP Tasks demo server (Tasks extension 2026-07-28)' },
    { capabilities: { tools: {}, ...(options.declare === false ? {} : { extensions: { [TASKS_EXTENSION_ID_V2]: {} } }) } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
  const notify = (params: Record<string, unknown>) => void server.notification({ method: 'notifications/tasks', params }).catch(() => undefined);

  const start = (tool: string, args: Record<string, unknown>): ExtTask => {
    const now = new Date().toISOString();
    const t: ExtTask = {
      taskId: randomUUID(),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: args.ttlNull === true ? null : book.ttlMs,
      pollIntervalMs: num(args.pollIntervalMs, book.pollIntervalMs, 10),
      timers: new Set(),
      notify: args.notify === true ? notify : undefined,
      gets: [],
      getAnswers: [],
      updates: [],
      greetings: [],
      cancels: 0,
      tool,
      ...(args.refuseGets === 'header-mismatch' || args.refuseGets === 'internal-error' ? { refuseGets: { kind: args.refuseGets, left: num(args.refuseGetsCount, Infinity, 0, Infinity) } } : {}),
    };
    book.tasks.set(t.taskId, t);
    return t;
  };

  const run: Record<string, (t: ExtTask, args: Record<string, unknown>) => void> = {
    ext_count(t, args) {
      const steps = num(args.steps, 5, 1, 1000);
      const stepMs = num(args.stepMs, 1000, 1);
      const intervals = Array.isArray(args.pollIntervalsMs) ? args.pollIntervalsMs.map((v) => num(v, book.pollIntervalMs, 10)) : [];
      let i = 0;
      const step = () => {
        i++;
        if (i >= steps) return update(t, { status: 'completed', statusMessage: `counted to ${steps}`, result: text(`Counted to ${steps}.`) });
        update(t, { statusMessage: `${i} of ${steps}`, ...(intervals.length ? { pollIntervalMs: intervals[(i - 1) % intervals.length] } : {}) });
        later(t, stepMs, step);
      };
      later(t, stepMs, step);
    },
    ext_ask_name(t, args) {
      // `count` > 1: that many names at once (keys name-0…), all outstanding together.
      const count = num(args.count, 1, 1, 50);
      const keys = count === 1 ? ['name'] : Array.from({ length: count }, (_, i) => `name-${i}`);
      const ask = (key: string) => ({
        method: 'elicitation/create',
        params: { mode: 'form', message: `Please enter your name${count > 1 ? ` (${key})` : ''}.`, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      });
      later(t, 50, () =>
        update(t, { status: 'input_required', statusMessage: 'Waiting for your name', inputRequests: Object.fromEntries(keys.map((k) => [k, ask(k)])) }),
      );
    },
    ext_fail(t, args) {
      later(t, num(args.stepMs, 500, 1), () =>
        update(t, { status: 'failed', statusMessage: 'Tool execution failed: API rate limit exceeded', error: { code: -32603, message: 'API rate limit exceeded' } }),
      );
    },
  };

  server.fallbackRequestHandler = async (request) => {
    const params = (request.params ?? {}) as Record<string, unknown>;
    const declared = hasTaskClientCapabilityV2(params);
    switch (request.method) {
      case 'tools/call': {
        const name = String(params.name);
        const args = (params.arguments ?? {}) as Record<string, unknown>;
        book.toolCalls.push({ name, declared });
        if (name === 'ext_echo') return { resultType: 'complete', ...text(`echo: ${String(args.text ?? '')}`) };
        if (name === 'ext_stats') return text(JSON.stringify(stats(book)));
        const work = run[name];
        if (!work) throw new McpError(-32602, `Unknown tool: ${name}`);
        // §Capability Negotiation: a task needs the client's declaration on this very request.
        if (!declared) throw missingCapability();
        const t = start(name, args);
        work(t, args);
        const { result: _r, error: _e, inputRequests: _i, ...seed } = detailed(t);
        return CreateTaskResultV2Schema.parse({ ...seed, resultType: 'task' });
      }
      case 'tasks/get':
      case 'tasks/update':
      case 'tasks/cancel': {
        if (!declared) throw missingCapability(); // §Error Handling
        const t = book.tasks.get(String(params.taskId));
        if (!t) throw new McpError(-32602, 'Failed to retrieve task: Task not found');
        if (request.method === 'tasks/get') {
          if (refused(t, 'internal-error')) throw new McpError(-32603, 'Internal error: the task store is unavailable');
          t.gets.push(Date.now());
          t.getAnswers.push({ status: t.status, pollIntervalMs: t.pollIntervalMs });
          return GetTaskResultV2Schema.parse({ ...detailed(t), resultType: 'complete' });
        }
        if (request.method === 'tasks/cancel') {
          t.cancels++;
          for (const timer of t.timers) clearTimeout(timer);
          t.timers.clear();
          update(t, { status: 'cancelled', statusMessage: 'Cancelled by the client' });
          return { resultType: 'complete' };
        }
        const { inputResponses } = UpdateTaskRequestV2Schema.parse({ jsonrpc: '2.0', id: 0, method: 'tasks/update', params: { taskId: t.taskId, inputResponses: params.inputResponses } }).params;
        for (const [key, response] of Object.entries(inputResponses)) {
          t.updates.push(key);
          // Ignore keys not outstanding (§Task Update Requests).
          if (t.status !== 'input_required' || !t.inputRequests?.[key]) continue;
          const r = response as { action?: string; content?: { name?: unknown } };
          const greeting = r.action === 'accept' ? `Hello, ${String(r.content?.name ?? 'stranger')}!` : `You chose to ${r.action ?? 'not'} answer.`;
          const { [key]: _answered, ...rest } = t.inputRequests;
          t.greetings.push(greeting);
          // A partial answer leaves the task in input_required with the rest (§Task Update Requests).
          if (Object.keys(rest).length) {
            update(t, { inputRequests: rest });
            continue;
          }
          update(t, { status: 'working', statusMessage: 'Thanks', inputRequests: undefined });
          later(t, 50, () => update(t, { status: 'completed', result: text(t.greetings.join(' ')) }));
        }
        return { resultType: 'complete' };
      }
      default:
        throw new McpError(-32601, `Method not found: ${request.method}`);
    }
  };
  return server;
}

/** What the server saw, per task (for the tests' `ext_stats`). */
function stats(book: ExtTaskBook) {
  return {
    toolCalls: book.toolCalls,
    tasks: Object.fromEntries([...book.tasks.values()].map((t) => [t.taskId, { tool: t.tool, status: t.status, createdAtMs: Date.parse(t.createdAt), gets: t.gets, getAnswers: t.getAnswers, updates: t.updates, cancels: t.cancels, pollIntervalMs: t.pollIntervalMs }])),
  };
}

/** Whether this tasks/get of `t` is one `refuseGets` asks to refuse with `kind` (counted). */
function refused(t: ExtTask | undefined, kind: 'header-mismatch' | 'internal-error'): boolean {
  if (t?.refuseGets?.kind !== kind || t.refuseGets.left <= 0) return false;
  t.refuseGets.left--;
  return true;
}

/** HeaderMismatch (2026-07-28 standard headers): a required header missing or not matching the body; HTTP 400. */
export const HEADER_MISMATCH = -32020;
const ROUTED_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

/**
 * §Streamable HTTP: Routing Headers — a 2026-07-28 `tasks/get|update|cancel` POST must carry
 * `Mcp-Name` equal to its `params.taskId` (a `=?base64?…?=` value decoded first). Returns the
 * HeaderMismatch error to answer with HTTP 400, or undefined when the body is fine or not such a
 * request (2025-11-25 `tasks/*` requests, which do not declare the extension, are not checked).
 */
export function checkTaskRoutingHeader(body: unknown, mcpName: string | string[] | undefined, book?: ExtTaskBook): { id: unknown; code: number; message: string } | undefined {
  const m = body as { id?: unknown; method?: unknown; params?: Record<string, unknown> } | undefined;
  if (!m || typeof m !== 'object' || Array.isArray(m) || typeof m.method !== 'string' || !ROUTED_METHODS.has(m.method)) return undefined;
  if (typeof m.params?.taskId !== 'string' || !hasTaskClientCapabilityV2(m.params)) return undefined;
  const raw = Array.isArray(mcpName) ? mcpName[0] : mcpName;
  const sentinel = raw === undefined ? undefined : /^=\?base64\?(.*)\?=$/.exec(raw);
  const name = sentinel ? Buffer.from(sentinel[1], 'base64').toString('utf8') : raw;
  if (name === undefined) return { id: m.id ?? null, code: HEADER_MISMATCH, message: `Header mismatch: ${m.method} over Streamable HTTP needs the Mcp-Name header (its params.taskId)` };
  if (name !== m.params?.taskId) return { id: m.id ?? null, code: HEADER_MISMATCH, message: `Header mismatch: Mcp-Name does not match params.taskId of ${m.method}` };
  // A task made with `refuseGets: 'header-mismatch'`: refused as if the header were wrong (a proxy that rewrites it).
  if (m.method === 'tasks/get' && refused(book?.tasks.get(name), 'header-mismatch')) {
    return { id: m.id ?? null, code: HEADER_MISMATCH, message: `Header mismatch: Mcp-Name does not match params.taskId of ${m.method}` };
  }
  return undefined;
}
