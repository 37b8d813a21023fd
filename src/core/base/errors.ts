import { ProtocolError, SdkError, SdkErrorCode } from './protocolErrors.js';

/**
 * JSON-RPC error codes the core uses: JSON-RPC's own (the SDK's `ProtocolErrorCode`), plus the two the SDK now reports
 * as typed local errors ({@link SdkError}) but which a task outcome, the API and the stored sent
 * tasks keep as numbers (the values MCP SDKs have always used for them).
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
} as const;

/** JSON-RPC error codes used by the core (the spec's names for them). */
export const JsonRpcCode = {
  ParseError: ErrorCode.ParseError,
  InvalidRequest: ErrorCode.InvalidRequest,
  MethodNotFound: ErrorCode.MethodNotFound,
  InvalidParams: ErrorCode.InvalidParams,
  InternalError: ErrorCode.InternalError,
} as const;

/** R-GET-2 / R-ERR-1: an unknown, expired or malformed task reference (-32602). */
export class TaskNotFoundError extends ProtocolError {
  constructor(taskId: unknown, reason = 'unknown or expired task') {
    super(ErrorCode.InvalidParams, `Task not found: ${typeof taskId === 'string' ? JSON.stringify(taskId) : String(taskId)} (${reason})`);
    this.name = 'TaskNotFoundError';
  }
}

/** A request parameter that is missing or of the wrong type (-32602). */
export class InvalidParamsError extends ProtocolError {
  constructor(message: string) {
    super(ErrorCode.InvalidParams, message);
    this.name = 'InvalidParamsError';
  }
}

/** A limit (live tasks, rate) was reached; the request is refused, the connection stays healthy. */
export class LimitExceededError extends ProtocolError {
  constructor(message: string) {
    // -32600 would blame the request's shape; the spec has no code for quotas, so use
    // InvalidRequest with a message that names the limit and the setting that raises it.
    super(ErrorCode.InvalidRequest, message);
    this.name = 'LimitExceededError';
  }
}

/** An illegal status transition (R-LIFE-2). */
export class IllegalTransitionError extends ProtocolError {
  constructor(taskId: string, from: string, to: string) {
    super(ErrorCode.InvalidParams, `Cannot move task ${taskId} from '${from}' to '${to}'${['completed', 'failed', 'cancelled'].includes(from) ? `: already in terminal status '${from}'` : ''}`);
    this.name = 'IllegalTransitionError';
  }
}

/** A request that could not go on because the connection is closed or was never open (the SDK's typed error, or a peer's -32000). */
export function isConnectionClosed(e: unknown): boolean {
  if (e instanceof SdkError) return e.code === SdkErrorCode.ConnectionClosed || e.code === SdkErrorCode.NotConnected;
  return e instanceof ProtocolError && e.code === ErrorCode.ConnectionClosed;
}

/** The numeric JSON-RPC code of a thrown value: a protocol error's own, the SDK's local errors by kind, else -32603. */
export function errorCodeOf(e: unknown): number {
  if (e instanceof ProtocolError) return e.code;
  if (e instanceof SdkError) {
    switch (e.code) {
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
        return ErrorCode.ConnectionClosed;
      case SdkErrorCode.RequestTimeout:
        return ErrorCode.RequestTimeout;
      default:
        return ErrorCode.InternalError;
    }
  }
  const code = (e as { code?: unknown } | undefined)?.code;
  return Number.isSafeInteger(code) ? (code as number) : ErrorCode.InternalError;
}

/**
 * Servers built on MCP SDK v1 put "MCP error <code>: " in front of an error's message on the wire,
 * and repeat it when they relay one ("MCP error -32602: MCP error -32602: Task not found"). Keeps one prefix.
 */
export function withSingleMcpPrefix(message: string): string {
  return message.replace(/^(MCP error (-?\d+): )(?:MCP error \2: )+/, '$1');
}

/** The message without any "MCP error <code>: " prefix (for where the code is kept beside it). */
export function withoutMcpPrefix(message: string): string {
  return message.replace(/^(?:MCP error -?\d+: )+/, '');
}

/** Readable text of any thrown value (a relayed error's doubled "MCP error <code>:" prefix made single). */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return withSingleMcpPrefix(e.message);
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}

export { ProtocolError, SdkError, SdkErrorCode };

/**
 * An Error that gives a reason rather than reports a fault (an abort's reason: "it ended"), made
 * without a stack: its stack would only point at the line that made it, and capturing one cost
 * ≈ 7 µs at the depth a call ends at, on every call that was asked a question (bench: rev2026
 * input_required latency).
 */
export function reasonError(message: string): Error {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new Error(message);
  } finally {
    Error.stackTraceLimit = limit;
  }
}
