/**
 * The receiver's side of one connection (connection/clientSide.ts): the server's
 * `sampling/createMessage` and `elicitation/create` answered through the responders and the ledger
 * (the server's received tasks: responders.ts), the 2025-11-25 `tasks/*` answered from them (receiverRequests.ts),
 * the `input_required` rounds of the calls this host sent answered for their owners (inputRounds.ts), and the server told
 * of each status change of the tasks it made here. Installed on every client the connection makes;
 * a connection without it asks nothing of a ledger.
 */
import type { CreateMessageResult, ElicitResult, InputResponses, JSONRPCResultResponse, Result } from '@modelcontextprotocol/client';
import { errorMessage } from '../../base/errors.js';
import type { ServerDefinition } from '../../config/config.js';
import type { ClientSide, SideAttempt } from '../../connection/clientSide.js';
import { HOST_CAPABILITIES, type HostClient } from '../../connection/hostClient.js';
import type { ServerTasks, TaskLedger } from '../ledger.js';
import { QuestionDoor, type CallLink, type KeptQuestion, type QuestionMessage } from '../questionDoor.js';
import { answerKeptQuestion } from './keptQuestions.js';
import { answerRound, type RoundRequests } from './inputRounds.js';
import { respondToTaskInput } from './inputRequests.js';
import { receivedTasks } from './receiverRequests.js';
import { serveRequest, type HostResponders, type RequestingServer, type ResponderContext, type ServedParams } from './responders.js';
import { StatusNotifications } from './statusNotifications.js';

export class ReceiverSide implements ClientSide {
  readonly kind = 'receiver';
  /** R-CAP-1: sampling, elicitation and the 2025-11-25 tasks for them — what this side answers; a connection without it declares none of them. */
  readonly capabilities = HOST_CAPABILITIES;
  /** This server's received tasks (its part of the ledger). */
  readonly tasks: ServerTasks;
  /** The one door this server's questions come through, whatever carries them (questionDoor.ts). */
  readonly questions: QuestionDoor;
  private readonly _server: RequestingServer;

  constructor(
    private readonly _ledger: TaskLedger,
    private readonly _responders: HostResponders,
    definition: ServerDefinition,
  ) {
    this._server = { serverId: definition.id, serverName: definition.name, definition };
    this.tasks = _ledger.forServer(definition.id, definition.name);
    this.questions = new QuestionDoor(definition.name, this.tasks);
  }

  /** Installs the handlers on the attempt's client; what they keep listening to is owned by its session. */
  install({ client, session, log, isLive }: SideAttempt): void {
    const w = { tasks: this.tasks, server: this._server, responders: this._responders };
    const serve = <P extends ServedParams, R extends Result>(method: string, params: P, requestId: string | number, signal: AbortSignal, respond: (params: P, ctx: ResponderContext) => Promise<R>) =>
      serveRequest(w.tasks, w.server, { method, params, requestId, signal }, respond);
    // First: the budget and the `tasks/*` answers are in place before any handler is wrapped (hostClient.ts).
    client.receive(receivedTasks(this.tasks, this.questions));
    // A task-augmented request answers its CreateTaskResult (hostClient.ts lets it past the SDK's result check).
    client.setRequestHandler('sampling/createMessage', (request, ctx) =>
      serve('sampling/createMessage', request.params, ctx.mcpReq.id, ctx.mcpReq.signal, (p, c) => w.responders.sampling(p, c)) as Promise<CreateMessageResult>,
    );
    client.setRequestHandler('elicitation/create', (request, ctx) =>
      serve('elicitation/create', request.params, ctx.mcpReq.id, ctx.mcpReq.signal, (p, c) => w.responders.elicitation(p, c)) as Promise<ElicitResult>,
    );

    // R-NOTIFY-1: tell the server about every status change of its tasks (no related-task metadata),
    // after the answers of the same turn (see StatusNotifications). Not on creation: the
    // CreateTaskResult already carries the new `working` task, and a notification there would add
    // a message to every task's critical path — 1.3× the SDK's CPU per received task and its
    // CreateTaskResult p99 (bench: receiver CPU per 1,000 creations, receiver CreateTaskResult latency). The SDK's own receivers do the same.
    const notifications = session.add(
      new StatusNotifications((task) => {
        if (!isLive()) return;
        // A 2025-11-25 notification (the SDK's typed list of methods leaves the deprecated task ones out).
        client.notification({ method: 'notifications/tasks/status', params: task } as unknown as Parameters<HostClient['notification']>[0]).catch((e) => {
          log.debug(`could not send notifications/tasks/status: ${errorMessage(e)}`);
        });
      }),
    );
    session.add(
      this._ledger.onDidChange((c) => {
        if (c.kind === 'created' || c.serverId !== w.server.serverId || !c.statusChanged || !isLive()) return;
        notifications.push({ ...c.task });
      }),
    );
  }

  /** The connection closed, was lost or stopped: the received tasks still running are cancelled. */
  abortAll(reason: string): void {
    this.tasks.abortAll(reason);
  }

  /** The server was removed from the configuration: its received tasks are forgotten. */
  serverRemoved(): void {
    this._ledger.forgetServer(this._server.serverId);
  }

  /**
   * Answers a request that came inside a sent task (2026-07-28 `inputRequests`) through the same
   * responders, validation, budget and trust rules as the same request sent directly, under the
   * call `call` (the sent task; its `inputKey` entry).
   */
  respondToInput(request: QuestionMessage, call: CallLink, inputKey: string, signal: AbortSignal): Promise<Result> {
    return respondToTaskInput(this.questions, this._responders, this._server, call, inputKey, request, signal);
  }

  /**
   * Answers one `input_required` round of `method`, a call this host sent (2026-07-28), for the
   * call's owner to retry with: opened through the question door as that round of `call` (charged
   * whole, refused whole), each request through the same responders as the same request sent directly.
   */
  answerRound(method: string, inputRequests: RoundRequests, call: CallLink, signal: AbortSignal): Promise<InputResponses> {
    return answerRound(this.questions, this._responders, this._server, method, inputRequests, call, signal);
  }

  /**
   * Asks again a 2025-11-25 question `call` kept across a reload (keptQuestions.ts) and resolves
   * with the JSON-RPC response that answers it, for the requestor to send in the same session.
   */
  answerKept(question: KeptQuestion, call: CallLink, signal: AbortSignal): Promise<JSONRPCResultResponse> {
    return answerKeptQuestion(this.questions, this.tasks, this._responders, this._server, call, question, signal);
  }
}

export { receiverOf } from './receiverOf.js';
