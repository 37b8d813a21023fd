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
import { invalidParams } from '../base/paramIssues.js';
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
        const whole = { method: request.method, params: request.params };
        const parsed = ElicitRequestSchema.safeParse(whole);
        if (!parsed.success) throw invalidParams('elicitation/create', parsed.error, whole);
        return await responders.elicitation(parsed.data.params, ctx);
      }
      case 'sampling/createMessage': {
        const whole = { method: request.method, params: request.params };
        const parsed = CreateMessageRequestSchema.safeParse(whole);
        if (!parsed.success) throw invalidParams('sampling/createMessage', parsed.error, whole);
        return await responders.sampling(parsed.data.params, ctx);
      }
      default:
        // The method is the server's text: quoted and shortened, so the error stays one line.
        throw new ProtocolError(ErrorCode.MethodNotFound, `${JSON.stringify(String(request.method)).slice(0, 80)} is not supported by this host`);
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
