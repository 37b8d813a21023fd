// The demo server's tools on MCP 2026-07-28, built on the official SDK v2 (`@modelcontextprotocol/server`):
// one McpServer per connection (stdio) or per request (stateless Streamable HTTP), all sharing the
// process's task book and record of what was seen (serve2026.ts builds them).
//
// Tools that ask for input the 2026 way, through `input_required` results (multi round-trip requests):
//   write_haiku   {}   a form (topic, mood), then — another round — a sampling request for the
//                      haiku; every round's requestState is sealed (HMAC) and checked on re-entry,
//                      so a client that does not echo it untouched gets -32602
//   new_project   {}   one round carrying three requests at once: two forms and a sampling request
// The Tasks extension (`io.modelcontextprotocol/tasks`, declared in the capabilities):
//   ext_count, ext_ask_name, ext_fail (extTaskBook.ts): each `tools/call` answers a task
//                      (`resultType: "task"`); tasks/get, tasks/update and tasks/cancel serve them
//   ext_echo      {text}   answers at once: the server decides not to make a task
//   ext_stats     {}       what the server saw (tests): tasks, requests, rounds, requestState checks
import { randomBytes } from 'node:crypto';
import { TASKS_EXTENSION_ID_V2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import {
  McpServer,
  ProtocolError,
  acceptedContent,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ExtTaskBook, MISSING_REQUIRED_CLIENT_CAPABILITY, TASK_TOOLS, TaskRequestError, text } from './extTaskBook.js';
import type { Seen2026 } from './seen2026.js';

export const SERVER_INFO_2026 = { name: 'mcp-tasks-demo-rev2026', version: '0.1.0', title: 'MCP Tasks demo server (MCP 2026-07-28)' };

/** The process-wide state every per-connection or per-request server shares. */
export interface Demo2026State {
  readonly book: ExtTaskBook;
  readonly seen: Seen2026;
  readonly codec: ReturnType<typeof createRequestStateCodec<FlowState>>;
  /** Whether the server declares the Tasks extension (tests: `--tasks-extension-undeclared` makes every call plain). */
  readonly declareTasks: boolean;
}

/** What a flow's sealed requestState says: which tool, which round, what earlier rounds proved. */
type FlowState =
  | { tool: 'write_haiku'; step: 'topic' }
  | { tool: 'write_haiku'; step: 'poem'; topic: string; mood: string }
  | { tool: 'new_project'; step: 'asked' };

export function demo2026State(book: ExtTaskBook, seen: Seen2026, options: { declareTasks?: boolean } = {}): Demo2026State {
  // One process serves every round of a flow (stdio, or this single HTTP process): a key of its own is enough.
  return { book, seen, codec: createRequestStateCodec<FlowState>({ key: randomBytes(32), ttlSeconds: 600 }), declareTasks: options.declareTasks ?? true };
}

const TOPIC = z.object({
  topic: z.string().min(1).meta({ title: 'Topic', description: 'What the haiku is about' }),
  mood: z.enum(['calm', 'playful', 'wistful']).default('calm').meta({ title: 'Mood' }),
});
const NAME = z.object({ name: z.string().min(1).meta({ title: 'Project name' }) });
const LICENSE = z.object({ license: z.enum(['MIT', 'Apache-2.0', 'GPL-3.0']).meta({ title: 'License' }) });

/** Whether the request's envelope declares the Tasks extension (§Capability Negotiation). */
export function declaresTasks(ctx: ServerContext): boolean {
  // Envelope keys are the reserved `_meta` names themselves.
  const envelope = ctx.mcpReq.envelope as Record<string, { extensions?: Record<string, unknown> } | undefined> | undefined;
  const extensions = envelope?.['io.modelcontextprotocol/clientCapabilities']?.extensions;
  return !!extensions && TASKS_EXTENSION_ID_V2 in extensions;
}

export function missingTasksCapability(): ProtocolError {
  return new ProtocolError(MISSING_REQUIRED_CLIENT_CAPABILITY, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID_V2]: {} } },
  });
}

/** How one `inputResponses` entry read: the elicitation's action, `sampling`, or `missing`. */
function kindOf(ctx: ServerContext, key: string): string {
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  return view.kind === 'elicit' ? view.action : view.kind;
}

function sampledText(ctx: ServerContext, key: string): string | undefined {
  const view = inputResponse(ctx.mcpReq.inputResponses, key);
  if (view.kind !== 'sampling') return undefined;
  const blocks = Array.isArray(view.result.content) ? view.result.content : [view.result.content];
  return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

const notAnswered = (what: string, action: string): CallToolResult => text(`No ${what}: you ${action === 'decline' ? 'declined' : 'cancelled'} the form.`);

/** A new McpServer (SDK v2) with the 2026-07-28 demo tools and the Tasks extension's methods. */
export function createDemo2026Server(state: Demo2026State): McpServer {
  const { seen, codec } = state;
  const server = new McpServer(SERVER_INFO_2026, {
    capabilities: { tools: {}, ...(state.declareTasks ? { extensions: { [TASKS_EXTENSION_ID_V2]: {} } } : {}) },
    requestState: {
      // The SDK runs this before every re-entry that carries state; a refusal answers -32602.
      verify: async (wire, ctx) => {
        try {
          const payload = await codec.verify(wire, ctx);
          seen.requestStates.verified++;
          return payload;
        } catch (e) {
          seen.requestStates.rejected++;
          throw e;
        }
      },
    },
  });
  // The sealed state of this round (undefined on the first); one minted for another tool is refused (an isError result).
  const flow = <T extends FlowState['tool']>(ctx: ServerContext, tool: T): Extract<FlowState, { tool: T }> | undefined => {
    const state = ctx.mcpReq.requestState<FlowState>();
    if (state !== undefined && state.tool !== tool) throw new Error('This requestState belongs to another tool.');
    return state as Extract<FlowState, { tool: T }> | undefined;
  };

  server.registerTool(
    'write_haiku',
    { title: 'Write a haiku (input_required)', description: 'Asks for a topic (a form), then asks your language model for a haiku about it (sampling): two input_required rounds, each with a sealed requestState.' },
    async (ctx): Promise<CallToolResult | InputRequiredResult> => {
      const state = flow(ctx, 'write_haiku');
      const askTopic = async () =>
        inputRequired({
          inputRequests: { topic: inputRequired.elicit({ message: 'What should the haiku be about?', requestedSchema: TOPIC }) },
          requestState: await codec.mint({ tool: 'write_haiku', step: 'topic' }),
        });
      if (state === undefined) return askTopic();
      if (state.step === 'topic') {
        const action = kindOf(ctx, 'topic');
        seen.round({ tool: 'write_haiku', step: 'topic', responses: { topic: action } });
        if (action === 'decline' || action === 'cancel') return notAnswered('haiku', action);
        const answer = acceptedContent(ctx.mcpReq.inputResponses, 'topic', TOPIC);
        if (!answer) return askTopic();
        return inputRequired({
          inputRequests: {
            poem: inputRequired.createMessage({
              messages: [{ role: 'user', content: { type: 'text', text: `Write a ${answer.mood} haiku about ${answer.topic}.` } }],
              maxTokens: 200,
            }),
          },
          requestState: await codec.mint({ tool: 'write_haiku', step: 'poem', topic: answer.topic, mood: answer.mood }),
        });
      }
      const poem = sampledText(ctx, 'poem');
      seen.round({ tool: 'write_haiku', step: 'poem', responses: { poem: kindOf(ctx, 'poem') } });
      if (poem === undefined) return { ...text('The model gave no haiku.'), isError: true };
      return text(`A ${state.mood} haiku about ${state.topic}:\n\n${poem}`);
    },
  );

  server.registerTool(
    'new_project',
    { title: 'New project (several requests in one round)', description: 'Asks for a name and a license (two forms) and for a tagline from your language model (sampling), all in one input_required round.' },
    async (ctx): Promise<CallToolResult | InputRequiredResult> => {
      const state = flow(ctx, 'new_project');
      const name = acceptedContent(ctx.mcpReq.inputResponses, 'name', NAME);
      const license = acceptedContent(ctx.mcpReq.inputResponses, 'license', LICENSE);
      const tagline = sampledText(ctx, 'tagline');
      if (state !== undefined) {
        const responses = { name: kindOf(ctx, 'name'), license: kindOf(ctx, 'license'), tagline: kindOf(ctx, 'tagline') };
        seen.round({ tool: 'new_project', step: state.step, responses });
        const refused = Object.values(responses).find((r) => r === 'decline' || r === 'cancel');
        if (refused) return notAnswered('project', refused);
      }
      if (name && license && tagline !== undefined) return text(`Project ${name.name} (${license.license}): ${tagline}`);
      // Write-once: ask only for what is still missing (the first round: all three at once).
      return inputRequired({
        inputRequests: {
          ...(name ? {} : { name: inputRequired.elicit({ message: 'Name the new project.', requestedSchema: NAME }) }),
          ...(license ? {} : { license: inputRequired.elicit({ message: 'Pick its license.', requestedSchema: LICENSE }) }),
          ...(tagline !== undefined
            ? {}
            : { tagline: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Suggest a one-line tagline for a new open source project.' } }], maxTokens: 60 }) }),
        },
        requestState: await codec.mint({ tool: 'new_project', step: 'asked' }),
      });
    },
  );

  registerTaskTools(server, state);
  return server;
}

/** The Tasks extension's tools and methods (§Task Creation, §Task Polling, §Task Update Requests, §Task Cancellation). */
function registerTaskTools(server: McpServer, { book, seen }: Demo2026State): void {
  for (const tool of TASK_TOOLS) {
    server.registerTool(tool.name, { title: tool.title, description: tool.description, inputSchema: fromJsonSchema<Record<string, unknown>>(tool.inputSchema) }, async (args, ctx) => {
      const declared = declaresTasks(ctx);
      book.toolCalls.push({ name: tool.name, declared });
      // A tool cannot answer a JSON-RPC error through McpServer (it becomes an isError result):
      // serve2026.ts answers -32021 in front of the SDK first; this is the backstop.
      if (!declared) return { ...text(`${tool.name} runs as a task: declare ${TASKS_EXTENSION_ID_V2} on the request.`), isError: true };
      // A CreateTaskResult (`resultType: "task"`), which the SDK passes through for tools/call.
      return book.seed(book.start(tool.name, args)!) as unknown as CallToolResult;
    });
  }
  server.registerTool('ext_echo', { title: 'Echo (plain result)', description: 'Answers at once with a plain CallToolResult: the server decides not to make a task.', inputSchema: z.object({ text: z.string().optional() }) }, async ({ text: t }) =>
    text(`echo: ${t ?? ''}`),
  );
  server.registerTool('ext_stats', { description: 'What the server saw (for tests).' }, async () => text(JSON.stringify({ ...book.stats(), ...seen.snapshot() })));

  const TaskParams = z.looseObject({ taskId: z.string() });
  const guarded = <R>(ctx: ServerContext, fn: () => R): R => {
    if (!declaresTasks(ctx)) throw missingTasksCapability(); // §Error Handling
    try {
      return fn();
    } catch (e) {
      if (e instanceof TaskRequestError) throw new ProtocolError(e.code, e.message);
      throw e;
    }
  };
  // tasks/get and tasks/cancel are 2025-11-25 spec names the SDK lets through on 2026-07-28 only
  // when registered with an explicit schema (the Tasks extension re-defines them); tasks/update is
  // an extension method of its own.
  server.server.setRequestHandler('tasks/get', { params: TaskParams }, (params, ctx) => guarded(ctx, () => book.get(book.find(params.taskId))));
  server.server.setRequestHandler('tasks/cancel', { params: TaskParams }, async (params, ctx) => {
    const t = guarded(ctx, () => book.find(params.taskId));
    book.cancel(t);
    // `cancelAckDelayMs` (tests): the acknowledgement comes after the cancelled status went out on the listen streams.
    if (t.cancelAckDelayMs) await new Promise((resolve) => setTimeout(resolve, t.cancelAckDelayMs));
    return {};
  });
  // The SDK lifts `inputResponses` out of every request's params (the field a multi round-trip
  // retry carries), so tasks/update reads them where the SDK puts them.
  server.server.setRequestHandler('tasks/update', { params: TaskParams }, (params, ctx) =>
    guarded(ctx, () => (book.answer(book.find(params.taskId), ctx.mcpReq.inputResponses ?? {}), {})),
  );
}
