/**
 * A server-to-client request that arrived inside a sent task (2026-07-28 Tasks extension
 * `inputRequests`), answered exactly as the same request sent directly: the same params
 * validation and the same responders (consent, forms, trust rules), never as a received task
 * (§Task Update Requests: "subject to the same trust model and user-facing behavior").
 */
import { type Result } from '@modelcontextprotocol/client';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/core';
import { ErrorCode, ProtocolError } from '../base/errors.js';
import { DisposableStore } from '../base/lifecycle.js';
import type { HostResponders, RequestingServer, ResponderContext, SentTaskLink } from './responders.js';

export interface InputRequestMessage {
  readonly method: string;
  readonly params?: unknown;
}

export async function respondToInputRequest(responders: HostResponders, server: RequestingServer, request: InputRequestMessage, link: SentTaskLink, signal: AbortSignal): Promise<Result> {
  const store = new DisposableStore();
  const ctx: ResponderContext = { ...server, signal, store, relatedTaskId: link.taskId, sentTask: link, setWaitingForUser: () => undefined };
  try {
    switch (request.method) {
      case 'elicitation/create': {
        const parsed = ElicitRequestSchema.safeParse({ method: request.method, params: request.params });
        if (!parsed.success) throw invalid(request.method, parsed.error);
        return await responders.elicitation(parsed.data.params, ctx);
      }
      case 'sampling/createMessage': {
        const parsed = CreateMessageRequestSchema.safeParse({ method: request.method, params: request.params });
        if (!parsed.success) throw invalid(request.method, parsed.error);
        return await responders.sampling(parsed.data.params, ctx);
      }
      default:
        throw new ProtocolError(ErrorCode.MethodNotFound, `${request.method} is not supported by this host`);
    }
  } finally {
    store.dispose();
  }
}

/**
 * {@link respondToInputRequest}, counted like a plain request of its server (`scope.openRequest`):
 * a server's prompts are bounded per server, whatever carries them. Refused beyond the limit.
 */
export function respondToCountedInputRequest(
  scope: { openRequest(method: string): () => void },
  responders: HostResponders,
  server: RequestingServer,
  request: InputRequestMessage,
  link: SentTaskLink,
  signal: AbortSignal,
): Promise<Result> {
  let release: () => void;
  try {
    release = scope.openRequest(request.method);
  } catch (e) {
    return Promise.reject(e);
  }
  return respondToInputRequest(responders, server, request, link, signal).finally(release);
}

function invalid(method: string, error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }): ProtocolError {
  const issue = error.issues[0];
  const where = issue ? issue.path.filter((p) => p !== 'params').join('.') : '';
  return new ProtocolError(ErrorCode.InvalidParams, `Invalid params for ${method}${where ? `: "${where}"` : ''}: ${issue?.message ?? 'invalid'}`);
}
