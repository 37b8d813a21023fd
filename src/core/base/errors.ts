import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC error codes used by the core (the SDK's, plus the spec's names for them). */
export const JsonRpcCode = {
  ParseError: ErrorCode.ParseError,
  InvalidRequest: ErrorCode.InvalidRequest,
  MethodNotFound: ErrorCode.MethodNotFound,
  InvalidParams: ErrorCode.InvalidParams,
  InternalError: ErrorCode.InternalError,
} as const;

/** R-GET-2 / R-ERR-1: an unknown, expired or malformed task reference (-32602). */
export class TaskNotFoundError extends McpError {
  constructor(taskId: unknown, reason = 'unknown or expired task') {
    super(ErrorCode.InvalidParams, `Task not found: ${typeof taskId === 'string' ? JSON.stringify(taskId) : String(taskId)} (${reason})`);
    this.name = 'TaskNotFoundError';
  }
}

/** A request parameter that is missing or of the wrong type (-32602). */
export class InvalidParamsError extends McpError {
  constructor(message: string) {
    super(ErrorCode.InvalidParams, message);
    this.name = 'InvalidParamsError';
  }
}

/** A limit (live tasks, rate) was reached; the request is refused, the connection stays healthy. */
export class LimitExceededError extends McpError {
  constructor(message: string) {
    // -32600 would blame the request's shape; the spec has no code for quotas, so use
    // InvalidRequest with a message that names the limit and the setting that raises it.
    super(ErrorCode.InvalidRequest, message);
    this.name = 'LimitExceededError';
  }
}

/** An illegal status transition (R-LIFE-2). */
export class IllegalTransitionError extends McpError {
  constructor(taskId: string, from: string, to: string) {
    super(ErrorCode.InvalidParams, `Cannot move task ${taskId} from '${from}' to '${to}'${['completed', 'failed', 'cancelled'].includes(from) ? `: already in terminal status '${from}'` : ''}`);
    this.name = 'IllegalTransitionError';
  }
}

/**
 * The SDK's `McpError` puts "MCP error <code>: " in front of its message; a server built on the
 * SDK sends that text on the wire and the SDK here prefixes it again ("MCP error -32602: MCP
 * error -32602: Task not found"). Keeps one prefix.
 */
export function withSingleMcpPrefix(message: string): string {
  return message.replace(/^(MCP error (-?\d+): )(?:MCP error \2: )+/, '$1');
}

/** The message without any "MCP error <code>: " prefix (for where the code is kept beside it). */
export function withoutMcpPrefix(message: string): string {
  return message.replace(/^(?:MCP error -?\d+: )+/, '');
}

/** Readable text of any thrown value (an SDK error's doubled "MCP error <code>:" prefix made single). */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return withSingleMcpPrefix(e.message);
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}

export { McpError, ErrorCode };
