// The demo MCP server's tools. One `createDemoServer()` per connection (stdio process, or HTTP
// session): each gets its own McpServer, task store and task message queue, so one connection's
// tasks are invisible to every other (R-SEC-1).
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTaskMessageQueue, type CreateTaskRequestHandlerExtra } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  type CallToolResult,
  type ElicitRequestFormParams,
  type JSONRPCRequest,
  type RequestId,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
  type ToolExecution,
} from '@modelcontextprotocol/sdk/types.js';
import { DemoTaskStore, TaskJob, log, sleep, startTask, type RuntimeLimits } from './taskRuntime.js';
import { boundTaskUpdateWaits } from './taskWaitFix.js';

export const SERVER_NAME = 'mcp-tasks-demo';
export const SERVER_VERSION = '0.1.0';

type TaskSupport = ToolExecution['taskSupport'];
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type RawHandler = (request: JSONRPCRequest, extra: Extra) => Promise<ServerResult>;

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

/** Rich form for `collect_profile`: every field kind of the 2025-11-25 elicitation schema subset. */
export const PROFILE_FORM: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Full name', description: 'How should we address you?', minLength: 2, maxLength: 60 },
    email: { type: 'string', title: 'Email', format: 'email' },
    homepage: { type: 'string', title: 'Homepage', format: 'uri', default: 'https://example.com' },
    birthday: { type: 'string', title: 'Birthday', format: 'date' },
    nextMeeting: { type: 'string', title: 'Next meeting', description: 'Date and time', format: 'date-time' },
    age: { type: 'integer', title: 'Age', minimum: 13, maximum: 120 },
    rating: { type: 'number', title: 'How do you rate MCP tasks?', description: '0 to 5, decimals allowed', minimum: 0, maximum: 5, default: 4.5 },
    newsletter: { type: 'boolean', title: 'Subscribe to the newsletter', default: false },
    role: {
      type: 'string',
      title: 'Role',
      oneOf: [
        { const: 'dev', title: 'Developer' },
        { const: 'ops', title: 'Operations' },
        { const: 'pm', title: 'Product manager' },
      ],
      default: 'dev',
    },
    editor: {
      type: 'string',
      title: 'Editor (legacy enum + enumNames)',
      enum: ['vscode', 'vim', 'emacs'],
      enumNames: ['Visual Studio Code', 'Vim', 'Emacs'],
    },
    languages: {
      type: 'array',
      title: 'Languages (pick 1 to 3)',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['typescript', 'python', 'rust', 'go', 'java'] },
      default: ['typescript'],
    },
    interests: {
      type: 'array',
      title: 'Interests (titled multi-select)',
      items: {
        anyOf: [
          { const: 'tasks', title: 'Long-running tasks' },
          { const: 'sampling', title: 'Sampling' },
          { const: 'elicitation', title: 'Elicitation' },
        ],
      },
    },
  },
  required: ['name', 'email', 'role', 'languages'],
};

const DEPLOY_FORM: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    environment: {
      type: 'string',
      title: 'Target environment',
      oneOf: [
        { const: 'staging', title: 'Staging' },
        { const: 'production', title: 'Production' },
      ],
      default: 'staging',
    },
    confirm: { type: 'boolean', title: 'I confirm this deployment', default: false },
  },
  required: ['environment', 'confirm'],
};

const BUILD_PHASES = ['resolving dependencies', 'compiling', 'linking', 'bundling', 'running tests', 'packaging'];

export interface DemoServer {
  mcp: McpServer;
  store: DemoTaskStore;
}

/** One task store and message queue shared by every session (`--shared-tasks`). */
export interface SharedTasks {
  store: DemoTaskStore;
  queue: InMemoryTaskMessageQueue;
}

/**
 * A server for one connection. By default each connection has its own tasks; with `shared`,
 * every HTTP session sees the same tasks (a single-user server whose tasks outlive a session,
 * e.g. across a window reload of the client).
 */
export function createDemoServer(limits: RuntimeLimits, shared?: SharedTasks): DemoServer {
  const store = shared?.store ?? new DemoTaskStore();
  const mcp = new McpServer(
    { name: SERVER_NAME, title: 'MCP Tasks demo server', version: SERVER_VERSION },
    {
      capabilities: {
        tools: {},
        // R-CAP-3: tools/call may be task-augmented; tasks/list and tasks/cancel are served.
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      },
      taskStore: store,
      taskMessageQueue: shared?.queue ?? new InMemoryTaskMessageQueue(),
      defaultTaskPollInterval: limits.pollIntervalMs,
      maxTaskQueueSize: 100,
      instructions:
        'Demo server for MCP tasks (protocol 2025-11-25). Tools show required/optional/forbidden/absent task ' +
        'support, progress, input_required via tasks/result, failed tasks, and task-augmented sampling and elicitation.',
    },
  );
  // The SDK's tasks/result wait leaves one abort listener per poll interval on the request (taskWaitFix.ts).
  boundTaskUpdateWaits(mcp.server);

  // requestId of each tools/call in flight → did the requestor ask for a task (`params.task`)?
  const augmentedCalls = new Map<RequestId, boolean>();
  const taskSupportOf = new Map<string, TaskSupport | undefined>();
  const isAugmented = (extra: CreateTaskRequestHandlerExtra) => augmentedCalls.get(extra.requestId) ?? true;

  const start = (
    extra: CreateTaskRequestHandlerExtra,
    work: (job: TaskJob) => Promise<CallToolResult>,
    immediateResponse?: string,
  ) => startTask({ mcp, store, extra, augmented: isAugmented(extra), limits, work, immediateResponse });

  // The SDK calls neither of these for tools/call tasks (tasks/get and tasks/result are answered
  // straight from the task store), but ToolTaskHandler requires them.
  const getTask = async (_args: unknown, extra: { taskId: string; taskStore: CreateTaskRequestHandlerExtra['taskStore'] }) =>
    extra.taskStore.getTask(extra.taskId);
  const getTaskResult = async (_args: unknown, extra: { taskId: string; taskStore: CreateTaskRequestHandlerExtra['taskStore'] }) =>
    (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult;

  // 1. long_build — required; progress + statusMessage for the task's whole life.
  taskSupportOf.set('long_build', 'required');
  mcp.experimental.tasks.registerToolTask(
    'long_build',
    {
      title: 'Long build',
      description:
        'Simulates a multi-step build. Must be called as a task. Reports progress (step i/N with a message) through ' +
        "the request's progressToken for the task's whole life and updates the task's statusMessage every step. " +
        'Cancel it with tasks/cancel and it stops at once.',
      inputSchema: {
        steps: z.number().int().min(1).max(1000).default(10).describe('Number of build steps (default 10)'),
        stepMs: z.number().int().min(0).max(600_000).default(800).describe('Duration of one step in ms (default 800)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      execution: { taskSupport: 'required' },
    },
    {
      createTask: async ({ steps, stepMs }, extra) =>
        start(
          extra,
          async (job) => {
            const started = Date.now();
            await job.progress(0, steps, `step 0/${steps}: starting`);
            for (let i = 1; i <= steps; i++) {
              await sleep(stepMs, job.signal);
              const phase = BUILD_PHASES[Math.max(0, Math.ceil((i * BUILD_PHASES.length) / steps) - 1)];
              const message = `step ${i}/${steps}: ${phase}`;
              if (!(await job.setStatus('working', message))) break;
              await job.progress(i, steps, message);
            }
            job.signal.throwIfAborted();
            return text(`Build succeeded: ${steps} steps in ${Date.now() - started} ms.`);
          },
          `Build started (${steps} steps of ${stepMs} ms); progress will follow.`,
        ),
      getTask,
      getTaskResult,
    },
  );

  // 2. quick_echo — optional; works as a plain call and as a task.
  taskSupportOf.set('quick_echo', 'optional');
  mcp.experimental.tasks.registerToolTask(
    'quick_echo',
    {
      title: 'Quick echo',
      description: 'Echoes the text back after a short delay. Task support is optional: call it plainly or as a task.',
      inputSchema: {
        text: z.string().describe('Text to echo'),
        delayMs: z.number().int().min(0).max(600_000).default(300).describe('Delay before answering in ms (default 300)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      execution: { taskSupport: 'optional' },
    },
    {
      createTask: async ({ text: t, delayMs }, extra) =>
        start(extra, async (job) => {
          await sleep(delayMs, job.signal);
          return text(t);
        }),
      getTask,
      getTaskResult,
    },
  );

  // 3. forbidden_echo — registerTool declares execution.taskSupport "forbidden".
  taskSupportOf.set('forbidden_echo', 'forbidden');
  mcp.registerTool(
    'forbidden_echo',
    {
      title: 'Echo (no tasks)',
      description: 'Echoes the text back immediately. Task support is "forbidden": a task-augmented call gets -32601.',
      inputSchema: { text: z.string().describe('Text to echo') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ text: t }) => text(t),
  );

  // 4. plain_time — no `execution` at all (registerTool always writes {taskSupport:'forbidden'},
  // so it is removed to show the "absent" case of R-CAP-4).
  taskSupportOf.set('plain_time', undefined);
  const plainTime = mcp.registerTool(
    'plain_time',
    {
      title: 'Current time',
      description: 'Returns the current time in ISO 8601. Declares no execution settings at all (plain tool).',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => text(new Date().toISOString()),
  );
  delete plainTime.execution;

  // 5. confirm_deploy — required; input_required + elicitation through tasks/result (R-RESULT-4).
  taskSupportOf.set('confirm_deploy', 'required');
  mcp.experimental.tasks.registerToolTask(
    'confirm_deploy',
    {
      title: 'Confirm deployment',
      description:
        'Prepares a (pretend) deployment, then moves the task to input_required and asks the user, through ' +
        'tasks/result, for the target environment and a confirmation. Completes with the answer.',
      inputSchema: {
        service: z.string().default('web-frontend').describe('Service to deploy'),
        version: z.string().default('1.4.2').describe('Version to deploy'),
        prepareMs: z.number().int().min(0).max(600_000).default(300).describe('Preparation time before asking, ms'),
        deployMs: z.number().int().min(0).max(600_000).default(500).describe('Deployment time after confirmation, ms'),
      },
      annotations: { destructiveHint: false, openWorldHint: false },
      execution: { taskSupport: 'required' },
    },
    {
      createTask: async ({ service, version, prepareMs, deployMs }, extra) =>
        start(
          extra,
          async (job) => {
            await job.setStatus('working', `Preparing ${service}@${version}`);
            await sleep(prepareMs, job.signal);
            const { result: answer, route } = await job.elicit(
              {
                mode: 'form',
                message: `Deploy ${service}@${version}? Choose the environment and confirm.`,
                requestedSchema: DEPLOY_FORM,
              },
              { sideChannel: true },
            );
            if (answer.action !== 'accept') {
              return text(`Deployment of ${service}@${version} ${answer.action === 'decline' ? 'declined' : 'cancelled'} by the user (via ${route}).`);
            }
            const env = String(answer.content?.environment ?? 'staging');
            if (answer.content?.confirm !== true) {
              return text(`Deployment of ${service}@${version} to ${env} not confirmed; nothing was deployed (via ${route}).`);
            }
            await job.setStatus('working', `Deploying ${service}@${version} to ${env}`);
            await sleep(deployMs, job.signal);
            return {
              content: [{ type: 'text', text: `Deployed ${service}@${version} to ${env} (confirmed via ${route}).` }],
              structuredContent: { service, version, environment: env, confirmed: true },
            };
          },
          `Deployment of ${service}@${version} is waiting for your confirmation.`,
        ),
      getTask,
      getTaskResult,
    },
  );

  // 6. flaky_job — required; ends `failed` with an isError result (R-LIFE-3, R-ERR-2).
  taskSupportOf.set('flaky_job', 'required');
  mcp.experimental.tasks.registerToolTask(
    'flaky_job',
    {
      title: 'Flaky job',
      description:
        'Runs briefly and then fails: the tool result has isError: true, so the task ends "failed" with a ' +
        'diagnostic statusMessage, and tasks/result returns that tool result unchanged.',
      inputSchema: {
        delayMs: z.number().int().min(0).max(600_000).default(400).describe('Run time before failing, ms'),
        reason: z.string().default('upstream returned HTTP 503 Service Unavailable').describe('Failure reason'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      execution: { taskSupport: 'required' },
    },
    {
      createTask: async ({ delayMs, reason }, extra) =>
        start(extra, async (job) => {
          await job.setStatus('working', 'Contacting the upstream service');
          await sleep(delayMs, job.signal);
          return {
            content: [{ type: 'text', text: `flaky_job failed: ${reason}` }],
            isError: true,
          };
        }),
      getTask,
      getTaskResult,
    },
  );

  // 7. ask_model — optional; task-augmented sampling/createMessage to the client when it supports it.
  taskSupportOf.set('ask_model', 'optional');
  mcp.experimental.tasks.registerToolTask(
    'ask_model',
    {
      title: 'Ask the model',
      description:
        "Asks the client's language model (sampling/createMessage). If the client declared task support for " +
        'sampling, the request is task-augmented and the server polls the client task; otherwise it is a plain request.',
      inputSchema: { prompt: z.string().min(1).describe('What to ask the model') },
      annotations: { readOnlyHint: true, openWorldHint: true },
      execution: { taskSupport: 'optional' },
    },
    {
      createTask: async ({ prompt }, extra) =>
        start(extra, async (job) => {
          const { result, route, clientTaskId } = await job.sample({
            messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
            systemPrompt: 'You are a concise assistant answering for the MCP Tasks demo server. Answer in at most three sentences.',
            maxTokens: 400,
            temperature: 0.7,
            includeContext: 'none',
            modelPreferences: {
              hints: [{ name: 'claude-sonnet' }, { name: 'gpt-4o' }],
              intelligencePriority: 0.8,
              speedPriority: 0.5,
              costPriority: 0.3,
            },
          });
          const blocks = Array.isArray(result.content) ? result.content : [result.content];
          const answer = blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
          return {
            content: [{ type: 'text', text: answer }],
            structuredContent: { model: result.model, stopReason: result.stopReason ?? null, route, clientTaskId: clientTaskId ?? null },
          };
        }),
      getTask,
      getTaskResult,
    },
  );

  // 8. collect_profile — optional; task-augmented form elicitation with a rich schema.
  taskSupportOf.set('collect_profile', 'optional');
  mcp.experimental.tasks.registerToolTask(
    'collect_profile',
    {
      title: 'Collect profile',
      description:
        'Asks the user to fill in a profile form (elicitation/create, form mode) using every field kind: formats ' +
        'email/uri/date/date-time, length and range limits, numbers, booleans, titled and legacy enums, multi-selects, ' +
        'defaults, required and optional fields. Task-augmented when the client supports elicitation tasks.',
      inputSchema: {
        message: z.string().default('Please fill in your developer profile.').describe('Message shown above the form'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
      execution: { taskSupport: 'optional' },
    },
    {
      createTask: async ({ message }, extra) =>
        start(extra, async (job) => {
          const { result, route, clientTaskId } = await job.elicit({ mode: 'form', message, requestedSchema: PROFILE_FORM });
          const summary =
            result.action === 'accept'
              ? `Profile received (via ${route}): ${JSON.stringify(result.content ?? {})}`
              : `The user chose "${result.action}" (via ${route}); no profile collected.`;
          return {
            content: [{ type: 'text', text: summary }],
            structuredContent: { action: result.action, content: result.content ?? null, route, clientTaskId: clientTaskId ?? null },
          };
        }),
      getTask,
      getTaskResult,
    },
  );

  enforceToolTaskSupport(mcp, taskSupportOf, augmentedCalls);
  return { mcp, store };
}

/**
 * A JSON-RPC error for the SDK to send. (An McpError would do, but its message already starts
 * with "MCP error <code>: ", which the SDK then puts on the wire, and the requestor's SDK
 * prefixes again.) Protocol only reads `code`, `message` and `data` from what a handler throws.
 */
function protocolError(code: number, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code });
}

/**
 * Wraps the SDK's tools/call handler to
 * - answer -32601 when a "required" tool is called without `task`, or a tool whose taskSupport is
 *   "forbidden"/absent is called with `task` (R-CAP-4). The SDK turns the first into a successful
 *   JSON-RPC response carrying an isError tool result, and the second into -32602 "Invalid task
 *   creation result";
 * - remember whether each call asked for a task, so `createTask` knows whether it runs a real
 *   task or McpServer's internal one for a plain call of an "optional" tool.
 * McpServer exposes no hook for this, so the handler it registered is taken from the Protocol's
 * handler map (a private field) and re-registered behind the check.
 */
function enforceToolTaskSupport(
  mcp: McpServer,
  taskSupportOf: Map<string, TaskSupport | undefined>,
  augmentedCalls: Map<RequestId, boolean>,
): void {
  const handlers = (mcp.server as unknown as { _requestHandlers: Map<string, RawHandler> })._requestHandlers;
  const sdkHandler = handlers.get('tools/call');
  if (!sdkHandler) throw new Error('McpServer did not register tools/call');
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, task } = request.params;
    if (taskSupportOf.has(name)) {
      const support = taskSupportOf.get(name);
      if (support === 'required' && !task) {
        throw protocolError(ErrorCode.MethodNotFound, `Tool "${name}" requires task augmentation (execution.taskSupport is "required")`);
      }
      if ((support === undefined || support === 'forbidden') && task) {
        throw protocolError(
          ErrorCode.MethodNotFound,
          `Tool "${name}" does not support task augmentation (execution.taskSupport is ${support === undefined ? 'absent' : '"forbidden"'})`,
        );
      }
    }
    augmentedCalls.set(extra.requestId, !!task);
    try {
      log(`tools/call ${name}${task ? ' (task)' : ''}`);
      return await sdkHandler(request as unknown as JSONRPCRequest, extra);
    } finally {
      augmentedCalls.delete(extra.requestId);
    }
  });
}
