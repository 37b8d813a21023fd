/**
 * The client side of the 2026-07-28 Tasks extension on the transport (modelcontextprotocol/
 * experimental-ext-tasks, specification/draft/tasks.md §Capability Negotiation): once the server
 * declared `capabilities.extensions["io.modelcontextprotocol/tasks"]`, every request carries the
 * client capability in `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`, and a
 * `CreateTaskResult` (`resultType: "task"`) answering any request but `tools/call` (the only
 * supported method, §Supported Methods) is turned into an invalid-response error.
 */
import { withTaskCapabilityV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Methods a server may answer with a CreateTaskResult (§Supported Methods). */
const TASK_ELIGIBLE: ReadonlySet<string> = new Set(['tools/call']);
/** Requests awaiting an answer beyond which the oldest are forgotten (their answers then pass unchecked). */
const MAX_PENDING = 10_000;

export class TasksExtensionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private _onmessage?: Transport['onmessage'];
  private _enabled = false;
  private readonly _pending = new Map<RequestId, string>();

  constructor(private readonly _inner: Transport) {
    _inner.onclose = () => this.onclose?.();
    _inner.onerror = (e) => this.onerror?.(e);
  }

  /** Set once the server declared the extension. */
  get enabled(): boolean {
    return this._enabled;
  }

  set enabled(on: boolean) {
    this._enabled = on;
    this._route();
  }

  get onmessage(): Transport['onmessage'] {
    return this._onmessage;
  }

  set onmessage(handler: Transport['onmessage']) {
    this._onmessage = handler;
    this._route();
  }

  get sessionId(): string | undefined {
    return this._inner.sessionId;
  }

  start(): Promise<void> {
    return this._inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: RequestId; method?: string; params?: unknown };
    if (this.enabled && m.method !== undefined && m.id !== undefined) {
      const params = (m.params ?? {}) as Parameters<typeof withTaskCapabilityV2>[0];
      message = { ...message, params: withTaskCapabilityV2(params) } as JSONRPCMessage;
      this._pending.set(m.id, m.method);
      if (this._pending.size > MAX_PENDING) this._pending.delete(this._pending.keys().next().value!);
    }
    return this._inner.send(message, options);
  }

  close(): Promise<void> {
    return this._inner.close();
  }

  setProtocolVersion(version: string): void {
    this._inner.setProtocolVersion?.(version);
  }

  /**
   * Only answers to requests sent while enabled are checked: until then (for a server without the
   * extension, always) incoming messages go straight to the client, one call less per message
   * (bench/ row 2).
   */
  private _route(): void {
    const handler = this._onmessage;
    this._inner.onmessage = handler && (this._enabled || this._pending.size > 0) ? (message, extra) => handler(this._incoming(message), extra) : handler;
  }

  private _incoming(message: JSONRPCMessage): JSONRPCMessage {
    const m = message as { id?: RequestId; method?: string };
    if (m.id === undefined || m.method !== undefined || this._pending.size === 0) return message;
    const method = this._pending.get(m.id);
    if (method === undefined) return message;
    this._pending.delete(m.id);
    const result = 'result' in message ? (message.result as { resultType?: unknown }) : undefined;
    if (result?.resultType !== 'task' || TASK_ELIGIBLE.has(method)) return message;
    // §Capability Negotiation: a CreateTaskResult for an unsupported request is an invalid response.
    return {
      jsonrpc: '2.0',
      id: m.id,
      error: { code: -32603, message: `Invalid response: the server answered ${method} with a CreateTaskResult, but only tools/call may become a task (Tasks extension)` },
    };
  }
}
