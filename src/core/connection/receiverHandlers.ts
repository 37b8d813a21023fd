/**
 * The receiver side of one connection's client: the server's `sampling/createMessage` and
 * `elicitation/create` answered through the responders and the ledger scope (responders.ts),
 * URL-mode elicitation completions and every other notification passed on, and the server told
 * of each status change of the tasks it made here.
 */
import type { CreateMessageResult, ElicitResult, JSONRPCMessage, Result } from '@modelcontextprotocol/client';
import { errorMessage } from '../base/errors.js';
import type { DisposableStore } from '../base/lifecycle.js';
import type { ServerLog } from '../base/log.js';
import type { LedgerScope, TaskLedger } from '../receiver/ledger.js';
import type { QuestionDoor } from '../receiver/questionDoor.js';
import type { HostClient } from './hostClient.js';
import { serveRequest, type HostResponders, type RequestingServer, type ResponderContext, type ServedParams } from './responders.js';
import { StatusNotifications } from './statusNotifications.js';

export interface ReceiverWiring {
  readonly server: RequestingServer;
  readonly scope: LedgerScope;
  readonly questions: QuestionDoor;
  readonly ledger: TaskLedger;
  readonly responders: HostResponders;
  readonly log: ServerLog;
  /** Whether `client` is still the connection's running client (status notifications go only there). */
  readonly isLive: () => boolean;
  readonly onElicitationComplete: (elicitationId: string) => void;
  readonly onNotification: (message: JSONRPCMessage) => void;
}

/** Installs the handlers on `client`; what they keep listening to is owned by `session`. */
export function installReceiverHandlers(client: HostClient, session: DisposableStore, w: ReceiverWiring): void {
  const serve = <P extends ServedParams, R extends Result>(method: string, params: P, requestId: string | number, signal: AbortSignal, respond: (params: P, ctx: ResponderContext) => Promise<R>) =>
    serveRequest(w.scope, w.server, { method, params, requestId, signal }, respond);
  // Each `input_required` round is charged whole to the server's budget when it opens (questionDoor.ts).
  client.questionRounds = w.questions;
  // A task-augmented request answers its CreateTaskResult (hostClient.ts lets it past the SDK's result check).
  client.setRequestHandler('sampling/createMessage', (request, ctx) =>
    serve('sampling/createMessage', request.params, ctx.mcpReq.id, ctx.mcpReq.signal, (p, c) => w.responders.sampling(p, c)) as Promise<CreateMessageResult>,
  );
  client.setRequestHandler('elicitation/create', (request, ctx) =>
    serve('elicitation/create', request.params, ctx.mcpReq.id, ctx.mcpReq.signal, (p, c) => w.responders.elicitation(p, c)) as Promise<ElicitResult>,
  );
  client.setNotificationHandler('notifications/elicitation/complete', (n) => w.onElicitationComplete(n.params.elicitationId));
  client.fallbackNotificationHandler = async (n) => w.onNotification({ jsonrpc: '2.0', ...n } as JSONRPCMessage);

  // R-NOTIFY-1: tell the server about every status change of its tasks (no related-task metadata),
  // after the answers of the same turn (see StatusNotifications). Not on creation: the
  // CreateTaskResult already carries the new `working` task, and a notification there would add
  // a message to every task's critical path — 1.3× the SDK's CPU per received task and its
  // CreateTaskResult p99 (bench: receiver CPU per 1,000 creations, receiver CreateTaskResult latency). The SDK's own receivers do the same.
  const notifications = session.add(
    new StatusNotifications((task) => {
      if (!w.isLive()) return;
      // A 2025-11-25 notification (the SDK's typed list of methods leaves the deprecated task ones out).
      client.notification({ method: 'notifications/tasks/status', params: task } as unknown as Parameters<HostClient['notification']>[0]).catch((e) => {
        w.log.debug(`could not send notifications/tasks/status: ${errorMessage(e)}`);
      });
    }),
  );
  session.add(
    w.ledger.onDidChange((c) => {
      if (c.kind === 'created' || c.scopeId !== w.server.serverId || !c.statusChanged || !w.isLive()) return;
      notifications.push({ ...c.task });
    }),
  );
}
