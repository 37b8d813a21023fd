/** JSON-RPC tracing of a connection's transport, and the bound on server text in its log. */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { RedactingLog } from '../base/redact.js';

/**
 * Gives a transport wrapper the `pid` and `stderr` of the stdio transport it wraps: the SDK's
 * version negotiation tells a stdio channel by them (there, a server silent to the
 * `server/discover` probe is a 2025 server; over HTTP silence is an outage). An HTTP transport
 * must not have them at all, so they are added only where the wrapped one has them.
 */
export function mirrorStdioShape(wrapper: Transport, inner: Transport): void {
  if (!('pid' in inner && 'stderr' in inner)) return;
  mirrored.set(wrapper, inner as StdioShaped);
  Object.defineProperty(wrapper, 'pid', { get: pidOfMirrored, enumerable: true });
  Object.defineProperty(wrapper, 'stderr', { get: stderrOfMirrored, enumerable: true });
}

type StdioShaped = Transport & { readonly pid: unknown; readonly stderr: unknown };
/** The stdio transport each wrapper mirrors. */
const mirrored = new WeakMap<Transport, StdioShaped>();
/*
 * One getter for every wrapper, not a closure each: V8 gives an object whose accessor is a function
 * of its own a hidden class of its own, so each connection's wrappers had new ones, and the code
 * that reads or sends on a transport (the SDK's and the host's) saw one more with every connection
 * a window made: polymorphic, then megamorphic past four.
 */
function pidOfMirrored(this: Transport): unknown {
  return mirrored.get(this)?.pid;
}
function stderrOfMirrored(this: Transport): unknown {
  return mirrored.get(this)?.stderr;
}

/** Wraps a transport to log every JSON-RPC message at trace level. */
export class TracingTransport implements Transport {
  protocolVersion?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  constructor(
    private readonly _inner: Transport,
    private readonly _log: RedactingLog,
  ) {
    _inner.onclose = () => this.onclose?.();
    _inner.onerror = (e) => this.onerror?.(e);
    _inner.onmessage = (message, extra) => {
      if (this._log.traceEnabled !== false) this._log.traceJson('◀ ', message);
      this.onmessage?.(message, extra);
    };
    mirrorStdioShape(this, _inner);
  }

  get hasPerRequestStream(): boolean | undefined {
    return this._inner.hasPerRequestStream;
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this._inner.setSupportedProtocolVersions?.(versions);
  }

  get sessionId(): string | undefined {
    return this._inner.sessionId;
  }

  start(): Promise<void> {
    return this._inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // Formatting costs a JSON.stringify per message (~5 % of a task's CPU in bench/); skip it unless traced.
    if (this._log.traceEnabled !== false) this._log.traceJson('▶ ', message);
    return this._inner.send(message, options);
  }

  close(): Promise<void> {
    return this._inner.close();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this._inner.setProtocolVersion?.(version);
  }
}

/** Server-controlled text of any length, cut to 4000 characters for the log. */
export function truncate(s: string): string {
  // A copy rather than a slice: V8 keeps the whole parent string alive behind a slice.
  return s.length > 4000 ? `${Buffer.from(s.slice(0, 4000)).toString()}… (${s.length} chars)` : s;
}
