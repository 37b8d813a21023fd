/**
 * The requestor's 2026-07-28 task wire on a connection (connection/clientSide.ts): the Tasks
 * extension on the client's channel (tasksExtension.ts: the capability declared, a `tools/call`
 * answered with a task kept for its call), the `Mcp-Name`/`Mcp-Method` routing headers on
 * Streamable HTTP (taskRoutingHeaders.ts), and push for sent tasks where the session carries it
 * (taskPush.ts). What it keeps per client dies with that client.
 */
import type { FetchLike, Transport } from '@modelcontextprotocol/client';
import type { ClientSide, SideAttempt } from '../../connection/clientSide.js';
import type { HostClient } from '../../connection/hostClient.js';
import { declaresTasksExtension } from '../../connection/tasksCapability.js';
import { ResumeWatch } from './resultStream.js';
import { TaskPush } from './taskPush.js';
import { withTaskRoutingHeaders } from './taskRoutingHeaders.js';
import { TaskAnswers, TasksExtensionTransport } from './tasksExtension.js';

/** The `tools/call` answers that were tasks, per client (the task wire takes them: wire2026_07_28.ts). */
const answers = new WeakMap<object, TaskAnswers>();

/** The task answers kept for `client`'s calls (made on first use). */
export function taskAnswersOf(client: object): TaskAnswers {
  let kept = answers.get(client);
  if (!kept) answers.set(client, (kept = new TaskAnswers()));
  return kept;
}

export class TaskWireSide implements ClientSide {
  readonly kind = 'task-wire';
  private readonly _channels = new WeakMap<HostClient, TasksExtensionTransport>();
  private readonly _pushes = new WeakMap<HostClient, TaskPush>();
  /** The refusals of `tasks/result` streams resumed with `Last-Event-ID` (resultStream.ts). */
  readonly resumes = new ResumeWatch();

  /**
   * Streamable HTTP: 2026-07-28 tasks/get|update|cancel carry the Mcp-Name routing header; a
   * refused resume of a 2025-11-25 result stream is noticed (resultStream.ts).
   */
  wrapFetch(fetch: FetchLike): FetchLike {
    return this.resumes.wrapFetch(withTaskRoutingHeaders(fetch));
  }

  wrapChannel(channel: Transport, { client, log }: SideAttempt): TasksExtensionTransport {
    const extension = new TasksExtensionTransport(channel, taskAnswersOf(client), (note) => log.warn(note));
    this._channels.set(client, extension);
    return extension;
  }

  /** The Tasks extension declared on every request where the server has it, and push where it can. */
  established({ client, session, log }: SideAttempt): void {
    const hasTasks = declaresTasksExtension(client.getServerCapabilities() ?? {});
    // 2026-07-28 Tasks extension: from now on every request declares it (§Capability Negotiation).
    this._channels.get(client)?.use(hasTasks, client.isModern);
    if (client.isModern && hasTasks) this._pushes.set(client, session.add(new TaskPush(client, log)));
  }

  /** A sent task tracked through `client`: its status is pushed where the server can; nothing happens otherwise. */
  watch(client: HostClient, taskId: string): void {
    this._pushes.get(client)?.watch(taskId);
  }

  unwatch(client: HostClient, taskId: string): void {
    this._pushes.get(client)?.unwatch(taskId);
  }

  /** The task status stream of `client`, once established (for tests and the bench). */
  pushOf(client: HostClient): TaskPush | undefined {
    return this._pushes.get(client);
  }
}
