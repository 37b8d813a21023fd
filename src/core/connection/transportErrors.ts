/**
 * What one connection attempt does with its transport's errors, from the start to its end: while
 * starting, an error that shows the server is not speaking MCP (or cannot run at all) fails the
 * start at once with its true cause; once running, a 401 asks for a sign-in and an HTTP error asks
 * the server whether it is still there. Each error is logged once, protocol errors throttled.
 */
import { errorMessage } from '../base/errors.js';
import type { ServerLog } from '../base/log.js';
import { LogThrottle } from '../base/logThrottle.js';
import { isUnauthorized } from './auth/signInRequired.js';
import { rejectedCredentialsCode } from './auth/credentialsRejected.js';
import { describeStartFailure, oauthErrorMessage } from './startErrors.js';
import { truncate } from './tracing.js';

/** The SDK's error for a `notifications/progress` whose token no open request holds. */
const LATE_PROGRESS = /^Received a progress notification for an unknown token/;

/** Where the attempt stands: its connection's state, or `stale` once another attempt replaced it. */
export type AttemptPhase = 'starting' | 'running' | 'stale' | 'other';

export interface AttemptHooks {
  readonly phase: () => AttemptPhase;
  readonly http: boolean;
  /** The server has OAuth: a 401 means "sign in", not a failure. */
  readonly signsIn: boolean;
  /** What was started or dialled, to name it in a failure. */
  readonly target: { readonly command?: string; readonly url?: string };
  readonly log: ServerLog;
  /** Closes the channel: it ends a `server/discover` probe at once (the SDK's probe has no signal). */
  readonly closeChannel: () => void;
  readonly unauthorizedWhileRunning: () => void;
  readonly httpErrorWhileRunning: () => void;
  /** The transport closed itself for a message over `limitBytes`. */
  readonly oversized: (limitBytes: number) => void;
}

export class AttemptErrors {
  private readonly _abort = new AbortController();
  private readonly _seen = new WeakSet<Error>();
  private readonly _protocolErrors = new LogThrottle();
  private _startError?: string;
  private _startCause?: unknown;
  private _rejectedCode?: string;

  constructor(private readonly _hooks: AttemptHooks) {}

  /** Aborts the connect when the start has failed. */
  get signal(): AbortSignal {
    return this._abort.signal;
  }

  /** The first reason the start failed for, in words, when this router found it. */
  get startError(): string | undefined {
    return this._startError;
  }

  /** The 401 seen while starting, if any. */
  get startCause(): unknown {
    return this._startCause;
  }

  /** The OAuth error code of a refusal of the client credentials seen while starting. */
  get rejectedCode(): string | undefined {
    return this._rejectedCode;
  }

  failStart(message: string): void {
    if (this._hooks.phase() !== 'starting') return;
    this._startError ??= message;
    this._abort.abort(new Error(message));
    this._hooks.closeChannel();
  }

  /** A stdout line that is not JSON: logged; while starting, the server is not speaking MCP there. */
  noise(line: string): void {
    if (this._hooks.phase() === 'stale') return;
    const quoted = truncate(line.length > 200 ? `${line.slice(0, 200)}…` : line);
    this._hooks.log.warn(`[stdout] not JSON-RPC: ${quoted}`);
    this.failStart(`it wrote text that is not JSON-RPC on stdout: "${quoted}"`);
  }

  /** A transport or client error (each is seen once, though both handlers get it once connected). */
  error(err: Error): void {
    if (this._seen.has(err)) return;
    this._seen.add(err);
    const h = this._hooks;
    const phase = h.phase();
    if (phase === 'starting') this._rejectedCode ??= rejectedCredentialsCode(err);
    if (h.signsIn && isUnauthorized(err) && phase !== 'stale') {
      this._startCause ??= err;
      if (phase === 'running') h.unauthorizedWhileRunning();
      else this._abort.abort(err);
      return;
    }
    if (phase === 'starting' && h.http) {
      // It may be the `server/discover` probe meeting a 2025 server (which answers it 4xx): the SDK
      // then falls back to `initialize`, and if the start fails, its rejection names the cause.
      h.log.debug(`while starting: ${truncate(errorMessage(err))}`);
      return;
    }
    // Progress for a request that has already been answered (a server's last progress message
    // arriving just after its result): ordinary server behaviour, not a fault: debug, not a warning.
    if (LATE_PROGRESS.test(errorMessage(err))) {
      h.log.debug(`progress after its request ended: ${truncate(errorMessage(err))}`);
      return;
    }
    // A program that cannot be spawned or a server that cannot be reached is not a protocol error: say what it is.
    const cause = describeStartFailure(err, h.target);
    // Server-controlled text of any length (a 50 MB reply to an unknown id is quoted whole by the SDK).
    const msg = truncate(cause?.message ?? oauthErrorMessage(err) ?? errorMessage(err));
    if (cause) h.log.warn(`${cause.kind === 'spawn' ? 'cannot start the program' : 'cannot reach the server'}: ${msg}`);
    else if (this._protocolErrors.take((summary) => h.log.warn(`protocol errors: ${summary}`))) h.log.warn(`protocol error: ${msg}`);
    if (phase === 'stale') return;
    const oversized = /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(msg);
    if (oversized) h.oversized(Number(oversized[1]));
    // A stdio server that errs while starting is not speaking MCP (or cannot run at all).
    if (phase === 'starting') this.failStart(msg);
    // An HTTP server that went away does not close anything: ask it whether it is still there.
    else if (phase === 'running' && h.http) h.httpErrorWhileRunning();
  }
}
