// Demo MCP server for "MCP Tasks for VS Code" (protocol revision 2025-11-25, MCP tasks).
//
//   node dist/demo-server.js                      stdio (default)
//   node dist/demo-server.js --http [--port N]    Streamable HTTP on http://127.0.0.1:N/mcp
//                                                 (stateful sessions; N = 0 picks a free port)
//   … --http --shared-tasks                       every session sees the same tasks, which outlive
//                                                 the session that created them (a single-user server)
//   … --tasks-extension                           a server of the 2026-07-28 MCP Tasks extension
//                                                 (io.modelcontextprotocol/tasks) instead: tasksExtension.ts
//   … --tasks-extension-undeclared                the same, not declaring it (its task tools answer -32021)
//   … --revision 2026-07-28                       MCP 2026-07-28 only, on the official SDK v2 (serve2026.ts,
//                                                 demo2026.ts): server/discover, the per-request _meta envelope,
//                                                 input_required tools, the Tasks extension with
//                                                 subscriptions/listen; over HTTP stateless (no sessions)
//   … --revision 2026-07-28 --omit-result-type    (stdio, tests) results without "resultType"
//   … --revision 2026-07-28 --tasks-extension-undeclared   (tests) not declaring the Tasks extension:
//                                                 its calls are plain (the task tools answer -32021)
//
// Environment: DEMO_POLL_INTERVAL_MS (task pollInterval, default 500), DEMO_DEFAULT_TTL_MS
// (default 15 min), DEMO_MAX_TTL_MS (ttl cap, default 1 h), DEMO_INPUT_TIMEOUT_MS (how long a
// sampling/elicitation request may stay unanswered, default 10 min).
// Logs go to stderr only; stdout belongs to the stdio transport.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createDemoServer, SERVER_NAME, SERVER_VERSION, type SharedTasks } from './demoServer.js';
import { DemoTaskStore, limitsFromEnv, log } from './taskRuntime.js';
import { checkTaskRoutingHeader, createTasksExtensionServer, ExtTaskBook } from './tasksExtension.js';
import { demo2026State, SERVER_INFO_2026 } from './demo2026.js';
import { Seen2026 } from './seen2026.js';
import { runHttp2026, runStdio2026 } from './serve2026.js';

interface CliOptions {
  http: boolean;
  port: number;
  sharedTasks: boolean;
  tasksExtension: boolean;
  undeclared?: boolean;
  revision: '2025-11-25' | '2026-07-28';
  omitResultType: boolean;
}

const REVISIONS = ['2025-11-25', '2026-07-28'] as const;

function parseArgs(argv: string[]): CliOptions {
  const options: CliOptions = { http: false, port: 3001, sharedTasks: false, tasksExtension: false, revision: '2025-11-25', omitResultType: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--http') options.http = true;
    else if (arg === '--shared-tasks') options.sharedTasks = true;
    else if (arg === '--tasks-extension') options.tasksExtension = true;
    else if (arg === '--tasks-extension-undeclared') options.tasksExtension = options.undeclared = true;
    else if (arg === '--omit-result-type') options.omitResultType = true;
    else if (arg === '--revision' || arg.startsWith('--revision=')) {
      const value = arg.includes('=') ? arg.slice('--revision='.length) : argv[++i];
      const revision = REVISIONS.find((r) => r === value);
      if (!revision) fail(`invalid --revision: ${value} (one of ${REVISIONS.join(', ')})`);
      options.revision = revision;
    }
    else if (arg === '--port' || arg.startsWith('--port=')) {
      const value = arg.includes('=') ? arg.slice('--port='.length) : argv[++i];
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid --port: ${value}`);
      options.port = port;
    } else if (arg === '--help' || arg === '-h') {
      process.stderr.write('usage: demo-server [--http [--port N] [--shared-tasks]] [--tasks-extension] [--revision 2025-11-25|2026-07-28 [--omit-result-type]]\n');
      process.exit(0);
    } else fail(`unknown argument: ${arg}`);
  }
  if (options.revision === '2026-07-28' && ((options.tasksExtension && !options.undeclared) || options.sharedTasks)) fail('--revision 2026-07-28 has the Tasks extension and shared tasks built in; drop --tasks-extension / --shared-tasks');
  if (options.omitResultType && (options.revision !== '2026-07-28' || options.http)) fail('--omit-result-type needs --revision 2026-07-28 over stdio');
  return options;
}

function fail(message: string): never {
  log(message);
  process.exit(2);
}

const limits = limitsFromEnv();
const cli = parseArgs(process.argv.slice(2));
/** `--tasks-extension`: one task book for the process (every HTTP session sees its tasks). */
const extBook = cli.tasksExtension && cli.revision === '2025-11-25' ? new ExtTaskBook(limits.pollIntervalMs, limits.defaultTtlMs) : undefined;

/** What the transports need of one connection's server. */
interface ServerHandle {
  mcp: { server: Server; connect(transport: Transport): Promise<void>; close(): Promise<void> };
  store: { shutdown(): void };
}

/** One connection's server: the 2025-11-25 demo, or the Tasks extension one. */
function makeServer(shared?: SharedTasks): ServerHandle {
  if (extBook) {
    const server = createTasksExtensionServer(extBook, { declare: !cli.undeclared });
    return { mcp: { server, connect: (t) => server.connect(t), close: () => server.close() }, store: { shutdown: () => undefined } };
  }
  return createDemoServer(limits, shared);
}

/** Closes one connection's server: stops its task work, clears its store. Idempotent. */
async function closeDemo(demo: ServerHandle): Promise<void> {
  demo.store.shutdown();
  await demo.mcp.close().catch(() => undefined);
}

async function runStdio(): Promise<void> {
  const demo = makeServer();
  let exiting = false;
  const exit = async (why: string) => {
    if (exiting) return;
    exiting = true;
    log(`${why}; exiting`);
    await closeDemo(demo);
    process.exit(0);
  };
  demo.mcp.server.onerror = (err) => log('protocol error:', err);
  demo.mcp.server.onclose = () => void exit('connection closed');
  // The SDK's StdioServerTransport does not watch for the end of stdin.
  process.stdin.on('end', () => void exit('stdin closed'));
  process.stdin.on('close', () => void exit('stdin closed'));
  process.on('SIGTERM', () => void exit('SIGTERM'));
  process.on('SIGINT', () => void exit('SIGINT'));
  await demo.mcp.connect(new StdioServerTransport());
  log(`${SERVER_NAME} ${SERVER_VERSION} ready on stdio (pollInterval ${limits.pollIntervalMs} ms)`);
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 4 * 1024 * 1024) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks).toString('utf8');
  return body ? JSON.parse(body) : undefined;
}

async function runHttp(requestedPort: number, sharedTasks: boolean): Promise<void> {
  const shared: SharedTasks | undefined = sharedTasks ? { store: new DemoTaskStore(true), queue: new InMemoryTaskMessageQueue() } : undefined;
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; demo: ServerHandle }>();
  let port = requestedPort;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found; the MCP endpoint is /mcp\n');
      return;
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;

    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return jsonRpcError(res, 404, -32001, 'Session not found');
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      // Tasks extension: tasks/get|update|cancel must carry Mcp-Name = params.taskId (HTTP 400 HeaderMismatch otherwise).
      const mismatch = extBook ? checkTaskRoutingHeader(body, req.headers['mcp-name'], extBook) : undefined;
      if (mismatch) {
        res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: mismatch.id, error: { code: mismatch.code, message: mismatch.message } }));
        return;
      }
      await session.transport.handleRequest(req, res, body);
      return;
    }

    // No session: only an initialize POST may open one.
    if (req.method !== 'POST') return jsonRpcError(res, 400, -32000, 'Bad Request: no valid session id');
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return jsonRpcError(res, 400, -32000, 'Bad Request: no valid session id');

    const demo = makeServer(shared);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, demo });
        log(`session ${id} opened (${sessions.size} open)`);
      },
      // Loopback only: refuse other Host headers (DNS rebinding).
      enableDnsRebindingProtection: true,
      allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, '127.0.0.1', 'localhost'],
    });
    demo.mcp.server.onerror = (err) => log('protocol error:', err);
    demo.mcp.server.onclose = () => {
      const id = transport.sessionId;
      if (id && sessions.delete(id)) log(`session ${id} closed (${sessions.size} open)`);
      // Shared tasks outlive the session; they end with the process.
      if (!shared) demo.store.shutdown();
    };
    await demo.mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log('HTTP request failed:', err);
      jsonRpcError(res, err instanceof SyntaxError ? 400 : 500, err instanceof SyntaxError ? -32700 : -32603, String(err));
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(requestedPort, '127.0.0.1', () => resolve());
  });
  port = (httpServer.address() as AddressInfo).port;
  log(`${SERVER_NAME} ${SERVER_VERSION} (pollInterval ${limits.pollIntervalMs} ms)`);
  log(`listening on http://127.0.0.1:${port}/mcp`);

  let exiting = false;
  const exit = async (why: string) => {
    if (exiting) return;
    exiting = true;
    log(`${why}; closing ${sessions.size} session(s) and exiting`);
    for (const { demo } of [...sessions.values()]) await closeDemo(demo);
    sessions.clear();
    httpServer.closeAllConnections();
    httpServer.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.on('SIGTERM', () => void exit('SIGTERM'));
  process.on('SIGINT', () => void exit('SIGINT'));
}

/** `--revision 2026-07-28`: one task book and one record of what was seen for the process. */
async function run2026(): Promise<void> {
  const state = demo2026State(new ExtTaskBook(limits.pollIntervalMs, limits.defaultTtlMs), new Seen2026(), { declareTasks: !cli.undeclared });
  let exiting = false;
  const exit = async (why: string, close: () => Promise<void>) => {
    if (exiting) return;
    exiting = true;
    log(`${why}; exiting`);
    state.book.shutdown();
    await close().catch(() => undefined);
    process.exit(0);
  };
  if (cli.http) {
    const served = await runHttp2026(state, cli.port);
    log(`${SERVER_INFO_2026.name} ${SERVER_INFO_2026.version} (MCP 2026-07-28, stateless; pollInterval ${limits.pollIntervalMs} ms)`);
    log(`listening on http://127.0.0.1:${served.port}/mcp`);
    for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => void exit(sig, served.close));
    return;
  }
  const served = runStdio2026(state, { omitResultType: cli.omitResultType });
  // The end of stdin ends the connection (and the process, tasks and all).
  process.stdin.on('end', () => void exit('stdin closed', served.close));
  process.stdin.on('close', () => void exit('stdin closed', served.close));
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => void exit(sig, served.close));
  log(`${SERVER_INFO_2026.name} ${SERVER_INFO_2026.version} ready on stdio (MCP 2026-07-28; pollInterval ${limits.pollIntervalMs} ms)`);
}

(cli.revision === '2026-07-28' ? run2026() : cli.http ? runHttp(cli.port, cli.sharedTasks) : runStdio()).catch((err: unknown) => {
  log('fatal:', err);
  process.exit(1);
});
