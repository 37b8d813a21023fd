// A bare MCP 2026-07-28 client for checking the demo server's 2026 mode at the wire: JSON-RPC with
// the per-request `_meta` envelope, over stdio or Streamable HTTP (the standard headers set by
// hand, so a check can leave one out), and `subscriptions/listen` streams read as they come. Used
// by smoke2026.ts and the integration tests; no SDK in between, so nothing is added or hidden.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export const REVISION = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';

export type Json = Record<string, unknown>;

/** A JSON-RPC response, with the HTTP status over Streamable HTTP. */
export interface RawResponse {
  status?: number;
  result?: Json;
  error?: { code: number; message: string; data?: unknown };
}

/** A `subscriptions/listen` stream: its messages as they arrive, a wait for the next ones, and its close. */
export interface RawStream {
  readonly messages: Json[];
  /** Resolves with the first message (counting those already here) for which `match` holds. */
  next(match: (m: Json) => boolean, ms?: number): Promise<Json>;
  close(): void;
}

export interface RawClient2026 {
  request(method: string, params?: Json, options?: { declareTasks?: boolean; headers?: Record<string, string | undefined>; noEnvelope?: boolean }): Promise<RawResponse>;
  /** Opens `subscriptions/listen` for `taskIds`. */
  listen(taskIds: string[], options?: { declareTasks?: boolean }): Promise<RawStream>;
  close(): Promise<void>;
}

let nextId = 1;

/** The params of a request with the per-request envelope (declaring the Tasks extension unless told not to). */
export function withEnvelope(params: Json = {}, declareTasks = true): Json {
  const capabilities = { elicitation: { form: {} }, sampling: {}, ...(declareTasks ? { extensions: { [TASKS]: {} } } : {}) };
  return {
    ...params,
    _meta: {
      ...(params._meta as Json | undefined),
      'io.modelcontextprotocol/protocolVersion': REVISION,
      'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    },
  };
}

function stream(onClose: () => void): RawStream & { push(m: Json): void } {
  const messages: Json[] = [];
  const waiters: Array<{ match: (m: Json) => boolean; resolve: (m: Json) => void }> = [];
  return {
    messages,
    push(m) {
      messages.push(m);
      for (const w of [...waiters]) {
        if (!w.match(m)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    },
    next(match, ms = 10_000) {
      const seen = messages.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching message on the listen stream within ${ms} ms; got ${JSON.stringify(messages)}`)), ms);
        waiters.push({ match, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      });
    },
    close: onClose,
  };
}

/** A client on a spawned `dist/demo-server.js` (`args`) over stdio. */
export function stdioClient2026(serverJs: string, args: string[] = ['--revision', REVISION], env: NodeJS.ProcessEnv = process.env): RawClient2026 & { child: ChildProcess } {
  const child = spawn(process.execPath, [serverJs, ...args], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const pending = new Map<unknown, (m: Json) => void>();
  const streams = new Map<unknown, ReturnType<typeof stream>>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const m = JSON.parse(line) as Json;
    const subscription = (m.params as { _meta?: Json } | undefined)?._meta?.['io.modelcontextprotocol/subscriptionId'];
    if (m.method !== undefined && subscription !== undefined) streams.get(subscription)?.push(m);
    else if (m.id !== undefined && streams.has(m.id)) streams.get(m.id)!.push(m);
    else if (m.id !== undefined) pending.get(m.id)?.(m);
  });
  const send = (m: Json) => child.stdin!.write(`${JSON.stringify(m)}\n`);
  return {
    child,
    request(method, params = {}, options = {}) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, (m) => resolve({ result: m.result as Json | undefined, error: m.error as RawResponse['error'] }));
        send({ jsonrpc: '2.0', id, method, params: options.noEnvelope ? params : withEnvelope(params, options.declareTasks) });
      });
    },
    async listen(taskIds, options = {}) {
      const id = nextId++;
      const s = stream(() => {
        streams.delete(id);
        send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: withEnvelope({ requestId: id }) });
      });
      streams.set(id, s);
      send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: withEnvelope({ notifications: { taskIds } }, options.declareTasks) });
      return s;
    },
    async close() {
      child.stdin!.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** Reads the JSON-RPC messages of an SSE body as they come. */
async function readSse(body: ReadableStream<Uint8Array>, onMessage: (m: Json) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data) onMessage(JSON.parse(data) as Json);
    }
  }
}

/** A client on a Streamable HTTP endpoint: each request one POST with the standard headers (override any with `headers`; `undefined` leaves one out). */
export function httpClient2026(url: string): RawClient2026 {
  const controllers = new Set<AbortController>();
  const post = (body: Json, headers: Record<string, string | undefined>, signal?: AbortSignal) => {
    const all: Record<string, string> = {};
    for (const [k, v] of Object.entries({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': REVISION, ...headers })) if (v !== undefined) all[k] = v;
    return fetch(url, { method: 'POST', headers: all, body: JSON.stringify(body), signal });
  };
  const nameOf = (method: string, params: Json) => (method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined);
  return {
    async request(method, params = {}, options = {}) {
      const id = nextId++;
      const name = nameOf(method, params);
      const res = await post(
        { jsonrpc: '2.0', id, method, params: options.noEnvelope ? params : withEnvelope(params, options.declareTasks) },
        { 'mcp-method': method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}), ...options.headers },
      );
      let reply: Json | undefined;
      if (res.headers.get('content-type')?.includes('text/event-stream')) await readSse(res.body!, (m) => void (m.id === id && (reply = m)));
      else reply = (await res.json()) as Json;
      return { status: res.status, result: reply?.result as Json | undefined, error: reply?.error as RawResponse['error'] };
    },
    async listen(taskIds, options = {}) {
      const controller = new AbortController();
      controllers.add(controller);
      const s = stream(() => {
        controllers.delete(controller);
        controller.abort();
      });
      const res = await post({ jsonrpc: '2.0', id: nextId++, method: 'subscriptions/listen', params: withEnvelope({ notifications: { taskIds } }, options.declareTasks) }, { 'mcp-method': 'subscriptions/listen' }, controller.signal);
      if (!res.headers.get('content-type')?.includes('text/event-stream')) s.push((await res.json()) as Json);
      else void readSse(res.body!, (m) => s.push(m)).catch(() => undefined);
      return s;
    },
    async close() {
      for (const c of controllers) c.abort();
    },
  };
}
