// The demo server's 2026-07-28 mode (`--revision 2026-07-28`) on the SDK v2 serving entries:
// `serveStdio` over stdio, `createMcpHandler` (stateless: a server per request, `server/discover`,
// the per-request `_meta` envelope, the standard headers Mcp-Method / Mcp-Name checked by the SDK)
// over Streamable HTTP. Only 2026-07-28 is spoken (`legacy: 'reject'`): a client must negotiate it.
//
// In front of each entry, what the SDK (2.4.0) cannot do for the Tasks extension:
// - a `subscriptions/listen` naming `taskIds` is served by taskListen.ts (the SDK's router drops them);
// - a task tool called without the extension declared is answered -32021 (HTTP 400), which a tool
//   registered on McpServer cannot answer (every error it throws becomes an isError result);
// - every request is recorded (seen2026.ts) for the tests, with its standard headers over HTTP;
// - `--omit-result-type` (stdio, tests only) takes `resultType: "complete"` off every result but
//   server/discover's, as a server written before the field was required does.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TASKS_EXTENSION_ID_V2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { classifyInboundRequest, createMcpHandler, hostHeaderValidationResponse, localhostAllowedHostnames, type JSONRPCMessage, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createDemo2026Server, missingTasksCapability, type Demo2026State } from './demo2026.js';
import { TASK_TOOLS } from './extTaskBook.js';
import { isTaskListen, TaskListens } from './taskListen.js';
import { log } from './taskRuntime.js';

const TASK_TOOL_NAMES = new Set(TASK_TOOLS.map((t) => t.name));
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

type Message = Record<string, unknown>;

/** The -32021 a `tools/call` of a task tool gets when its (2026-07-28) envelope does not declare the extension; undefined otherwise. */
function undeclaredTaskCall(message: unknown): Message | undefined {
  const m = message as { id?: unknown; method?: unknown; params?: { name?: unknown; _meta?: Record<string, unknown> } } | null;
  if (!m || m.method !== 'tools/call' || m.id === undefined || !TASK_TOOL_NAMES.has(String(m.params?.name))) return undefined;
  const meta = m.params?._meta;
  // No envelope at all is the SDK's to refuse (-32602); only a 2026-07-28 request is judged here.
  if (!meta || typeof meta[PROTOCOL_VERSION] !== 'string') return undefined;
  const extensions = (meta[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  if (extensions && TASKS_EXTENSION_ID_V2 in extensions) return undefined;
  const e = missingTasksCapability();
  return { jsonrpc: '2.0', id: m.id, error: { code: e.code, message: e.message, data: e.data } };
}

/** The stdio transport the SDK's `serveStdio` is given: the real one, with the fronts above in between. */
class StdioFront implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  /** Methods of the requests still unanswered, by id (`--omit-result-type` leaves server/discover's alone). */
  private readonly _methods = new Map<unknown, string>();
  private readonly _listens = new Map<unknown, (graceful: boolean) => void>();

  constructor(
    private readonly _inner: StdioServerTransport,
    private readonly _state: Demo2026State,
    private readonly _taskListens: TaskListens,
    private readonly _omitResultType: boolean,
  ) {}

  start(): Promise<void> {
    this._inner.onclose = () => this.onclose?.();
    this._inner.onerror = (e) => this.onerror?.(e);
    this._inner.onmessage = (message) => {
      this._state.seen.request(message);
      if (!this._served(message)) this.onmessage?.(message);
    };
    return this._inner.start();
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: unknown; result?: Record<string, unknown> };
    const method = m.id !== undefined ? this._methods.get(m.id) : undefined;
    if (m.id !== undefined && ('result' in m || 'error' in m)) this._methods.delete(m.id);
    if (this._omitResultType && method !== 'server/discover' && m.result?.resultType === 'complete') {
      const { resultType: _dropped, ...result } = m.result;
      return this._inner.send({ ...message, result } as JSONRPCMessage);
    }
    return this._inner.send(message);
  }

  close(): Promise<void> {
    for (const close of this._listens.values()) close(true);
    return this._inner.close();
  }

  /** Whether `message` was answered here (so the SDK never sees it). */
  private _served(message: unknown): boolean {
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    const write = (reply: Message) => void this._inner.send(reply as JSONRPCMessage).catch((e: unknown) => log('stdout write failed:', e));
    if (isTaskListen(message)) {
      const close = this._taskListens.open(message, write, () => this._listens.delete(message.id));
      if (close) this._listens.set(message.id, close);
      return true;
    }
    if (m.method === 'notifications/cancelled' && this._listens.has(m.params?.requestId)) {
      this._listens.get(m.params?.requestId)!(false);
      return true;
    }
    const refused = undeclaredTaskCall(message);
    if (refused) {
      write(refused);
      return true;
    }
    if (typeof m.method === 'string' && m.id !== undefined) this._methods.set(m.id, m.method);
    return false;
  }
}

/** Serves the 2026-07-28 demo on stdio; resolves once serving, with the close. */
export function runStdio2026(state: Demo2026State, options: { omitResultType: boolean }): { close(): Promise<void> } {
  const listens = new TaskListens(state.book);
  const transport = new StdioFront(new StdioServerTransport(), state, listens, options.omitResultType);
  const handle = serveStdio(() => createDemo2026Server(state), { legacy: 'reject', transport, onerror: (e) => log('protocol error:', e) });
  return { close: () => handle.close() };
}

function jsonRpcError(status: number, id: unknown, code: number, message: string, data?: unknown): Response {
  return Response.json({ jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data !== undefined ? { data } : {}) } }, { status });
}

/** Serves the 2026-07-28 demo over stateless Streamable HTTP on 127.0.0.1:`port` (0: a free one). */
export async function runHttp2026(state: Demo2026State, requestedPort: number): Promise<{ port: number; close(): Promise<void> }> {
  const handler = createMcpHandler(() => createDemo2026Server(state), { legacy: 'reject', onerror: (e) => log('request refused or failed:', e.message) });
  const listens = new TaskListens(state.book);

  const front = async (request: Request): Promise<Response> => {
    // Loopback only: refuse other Host headers (DNS rebinding).
    const badHost = hostHeaderValidationResponse(request, localhostAllowedHostnames());
    if (badHost) return badHost;
    if (new URL(request.url).pathname !== '/mcp') return new Response('not found; the MCP endpoint is /mcp\n', { status: 404 });
    if (request.method !== 'POST') return handler.fetch(request);
    const body: unknown = await request
      .clone()
      .json()
      .catch(() => undefined);
    const headers = {
      protocolVersion: request.headers.get('mcp-protocol-version') ?? undefined,
      mcpMethod: request.headers.get('mcp-method') ?? undefined,
      mcpName: request.headers.get('mcp-name') ?? undefined,
    };
    state.seen.request(body, headers);
    if (isTaskListen(body)) {
      // The same header rules the SDK applies to every 2026-07-28 request POST.
      const route = classifyInboundRequest({ httpMethod: 'POST', body, protocolVersionHeader: headers.protocolVersion, mcpMethodHeader: headers.mcpMethod, mcpNameHeader: headers.mcpName });
      if (route.kind === 'reject') return jsonRpcError(route.httpStatus, body.id, route.code, route.message, route.data);
      if (route.kind === 'modern') {
        if (headers.protocolVersion === undefined || headers.mcpMethod === undefined) return jsonRpcError(400, body.id, -32020, 'Header mismatch: a 2026-07-28 request needs the MCP-Protocol-Version and Mcp-Method headers');
        return listens.sse(body, request.signal);
      }
    }
    const refused = undeclaredTaskCall(body);
    if (refused) return Response.json(refused, { status: 400 });
    return handler.fetch(request);
  };

  const httpServer: HttpServer = createServer(toNodeHandler({ fetch: front }, { onerror: (e) => log('HTTP request failed:', e) }));
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(requestedPort, '127.0.0.1', () => resolve());
  });
  return {
    port: (httpServer.address() as AddressInfo).port,
    async close() {
      listens.closeAll();
      await handler.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
