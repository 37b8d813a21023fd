// The MCP Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) riding on a 2025-11-25
// session (SDK v1), used by the demo server (`--tasks-extension`) and by the integration tests (the
// same bundle). The tasks themselves are the shared book's (extTaskBook.ts); this file is the
// session's side of them.
//
// Tools (each answers as a task only when the request declares the extension, §Capability
// Negotiation; otherwise -32021): the task tools of extTaskBook.ts, and
//   ext_echo      {text}               answers at once (the plain CallToolResult shape)
//   ext_stats     {}                   what the server saw (tests)
// `notify: true` also pushes `notifications/tasks` on every status change (§Task Status Notifications).
import { CreateTaskResultV2Schema, TASKS_EXTENSION_ID_V2, hasTaskClientCapabilityV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ExtTaskBook, MISSING_REQUIRED_CLIENT_CAPABILITY, TASK_TOOLS, TaskRequestError, text } from './extTaskBook.js';

export { ExtTaskBook, MISSING_REQUIRED_CLIENT_CAPABILITY } from './extTaskBook.js';

const TOOLS: Tool[] = [
  ...TASK_TOOLS,
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

  server.fallbackRequestHandler = async (request) => {
    const params = (request.params ?? {}) as Record<string, unknown>;
    const declared = hasTaskClientCapabilityV2(params);
    switch (request.method) {
      case 'tools/call': {
        const name = String(params.name);
        const args = (params.arguments ?? {}) as Record<string, unknown>;
        book.toolCalls.push({ name, declared });
        if (name === 'ext_echo') return { resultType: 'complete', ...text(`echo: ${String(args.text ?? '')}`) };
        if (name === 'ext_stats') return text(JSON.stringify(book.stats()));
        if (!TASK_TOOLS.some((t) => t.name === name)) throw new McpError(-32602, `Unknown tool: ${name}`);
        // §Capability Negotiation: a task needs the client's declaration on this very request.
        if (!declared) throw missingCapability();
        const t = book.start(name, args, notify)!;
        return CreateTaskResultV2Schema.parse(book.seed(t));
      }
      case 'tasks/get':
      case 'tasks/update':
      case 'tasks/cancel': {
        if (!declared) throw missingCapability(); // §Error Handling
        try {
          const t = book.find(params.taskId);
          if (request.method === 'tasks/get') return book.get(t);
          if (request.method === 'tasks/cancel') book.cancel(t);
          else book.answer(t, params.inputResponses);
          return { resultType: 'complete' };
        } catch (e) {
          if (e instanceof TaskRequestError) throw new McpError(e.code, e.message);
          throw e;
        }
      }
      default:
        throw new McpError(-32601, `Method not found: ${request.method}`);
    }
  };
  return server;
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
  if (m.method === 'tasks/get' && book?.refusesHeader(name)) {
    return { id: m.id ?? null, code: HEADER_MISMATCH, message: `Header mismatch: Mcp-Name does not match params.taskId of ${m.method}` };
  }
  return undefined;
}
