// `subscriptions/listen` for task status (Tasks extension §Task Status Notifications): a listen
// whose `notifications` names `taskIds` is acknowledged with the ids this server knows
// (`notifications/subscriptions/acknowledged`, first on the stream), then each change of one of
// those tasks goes out as `notifications/tasks` carrying the whole DetailedTask. Every message of
// the stream is stamped with the listen request's id (`_meta["io.modelcontextprotocol/subscriptionId"]`).
//
// Why not the SDK's: its listen router (SDK v2 2.4.0) reads the filter through the 2026-07-28
// schema, which knows only toolsListChanged, promptsListChanged, resourcesListChanged and
// resourceSubscriptions — `taskIds` is dropped before the acknowledgement — and its event bus
// carries those four kinds of change alone. So such a listen is served here, in front of the SDK
// (serve2026.ts: before `serveStdio` on stdio, before `createMcpHandler` over HTTP); every other
// listen still reaches the SDK. This server declares no listChanged, so only taskIds are honored.
import { TASKS_EXTENSION_ID_V2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { MISSING_REQUIRED_CLIENT_CAPABILITY, notificationParams, type ExtTask, type ExtTaskBook } from './extTaskBook.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
/** Most task ids one listen may name (a runaway client stays bounded). */
const MAX_TASK_IDS = 1000;
/** SSE comment frames keep an idle HTTP stream open through proxies. */
const KEEP_ALIVE_MS = 15_000;

type Id = string | number;
type Message = Record<string, unknown>;

interface ListenRequest {
  id: Id;
  params: { notifications: { taskIds: unknown }; _meta?: Record<string, unknown> };
}

/** Whether `message` is a `subscriptions/listen` request that names task ids (the ones served here). */
export function isTaskListen(message: unknown): message is ListenRequest {
  const m = message as { id?: unknown; method?: unknown; params?: { notifications?: { taskIds?: unknown } } } | null;
  return !!m && typeof m === 'object' && m.method === 'subscriptions/listen' && (typeof m.id === 'string' || typeof m.id === 'number') && m.params?.notifications?.taskIds !== undefined;
}

function error(id: Id, code: number, message: string, data?: unknown): Message {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } };
}

/** The open task subscriptions of one process. */
export class TaskListens {
  private readonly _open = new Map<object, (graceful: boolean) => void>();

  constructor(private readonly _book: ExtTaskBook) {}

  /**
   * Opens the subscription of `request`: `send` gets the acknowledgement (or the error that refuses
   * it) at once, then every notification; `ended` is called once it is closed. Returns the
   * subscription's close, or undefined when refused.
   */
  open(request: ListenRequest, send: (message: Message) => void, ended: () => void = () => undefined): ((graceful: boolean) => void) | undefined {
    const meta = request.params._meta;
    if (!meta || typeof meta[PROTOCOL_VERSION] !== 'string') {
      send(error(request.id, -32602, 'Invalid _meta envelope: the per-request envelope is required on protocol revision 2026-07-28'));
      return undefined;
    }
    const extensions = (meta[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> } | undefined)?.extensions;
    if (!extensions || !(TASKS_EXTENSION_ID_V2 in extensions)) {
      // §Task Status Notifications: a non-declaring client asking for task notifications.
      send(error(request.id, MISSING_REQUIRED_CLIENT_CAPABILITY, 'Missing required client capability', { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID_V2]: {} } } }));
      return undefined;
    }
    const asked = request.params.notifications.taskIds;
    if (!Array.isArray(asked) || asked.length > MAX_TASK_IDS || !asked.every((id) => typeof id === 'string')) {
      send(error(request.id, -32602, `Invalid params: notifications.taskIds must be an array of at most ${MAX_TASK_IDS} task ids`));
      return undefined;
    }
    const honored = [...new Set(asked as string[])].filter((id) => this._book.tasks.has(id));
    const stamp = { [SUBSCRIPTION_ID]: request.id };
    send({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { taskIds: honored }, _meta: stamp } });
    const deliver = (t: ExtTask) => send({ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...notificationParams(t), _meta: stamp } });
    // The state each task is in now: a change between the task's creation and this listen is not lost.
    for (const id of honored) deliver(this._book.tasks.get(id)!);
    const ids = new Set(honored);
    const unsubscribe = this._book.onChange((t) => {
      if (ids.has(t.taskId)) deliver(t);
    });
    const key = {};
    const close = (graceful: boolean) => {
      if (!this._open.delete(key)) return;
      unsubscribe();
      // A graceful end is the empty listen result (the client tells it from a dropped stream).
      if (graceful) send({ jsonrpc: '2.0', id: request.id, result: { resultType: 'complete', _meta: stamp } });
      ended();
    };
    this._open.set(key, close);
    return close;
  }

  /** Serves `request` as an SSE response (Streamable HTTP): the stream is the subscription. */
  sse(request: ListenRequest, signal: AbortSignal): Response {
    const encoder = new TextEncoder();
    let close: ((graceful: boolean) => void) | undefined;
    let keepAlive: NodeJS.Timeout | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        let done = false;
        const write = (frame: string) => {
          if (!done) controller.enqueue(encoder.encode(frame));
        };
        const finish = () => {
          if (done) return;
          done = true;
          clearInterval(keepAlive);
          try {
            controller.close();
          } catch {
            // the client cancelled the stream already
          }
        };
        close = this.open(request, (m) => write(`event: message\ndata: ${JSON.stringify(m)}\n\n`), finish);
        if (!close) return finish();
        keepAlive = setInterval(() => write(': keepalive\n\n'), KEEP_ALIVE_MS);
        // The client closing the stream ends the subscription (the spec's HTTP cancel).
        signal.addEventListener('abort', () => close?.(false), { once: true });
      },
      cancel: () => {
        clearInterval(keepAlive);
        close?.(false);
      },
    });
    return new Response(stream, { status: 200, headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive' } });
  }

  /** Ends every subscription gracefully (the server is shutting down). */
  closeAll(): void {
    for (const close of [...this._open.values()]) close(true);
  }
}
