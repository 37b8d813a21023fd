/** The typed errors of the extension API (`api/mcp-tasks.d.ts`, `McpTasksApiError`), with JSON-RPC codes. */
import { ErrorCode, ProtocolError } from '../base/errors.js';
import type { McpTasksApiErrorKind } from '../../../api/mcp-tasks';

function codeOf(kind: McpTasksApiErrorKind): number {
  switch (kind) {
    case 'invalid_input':
    case 'not_found':
    case 'pruned':
    case 'unknown_server':
    case 'unknown_tool':
      return ErrorCode.InvalidParams;
    case 'server_not_running':
      return ErrorCode.ConnectionClosed;
    case 'unsupported':
    case 'forbidden':
    case 'not_cancellable':
    case 'disposed':
      return ErrorCode.InvalidRequest;
  }
}

/** An API call failed; `kind` says why, the message names the input, server or task. */
export class TaskApiError extends ProtocolError {
  override readonly name = 'McpTasksApiError' as const;
  constructor(
    readonly kind: McpTasksApiErrorKind,
    message: string,
  ) {
    super(codeOf(kind), message);
  }
}
