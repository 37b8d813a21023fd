/**
 * One sent task on its own, for the unit tests of its pieces (polling, results, cancellation,
 * input): a real {@link SentTask} with a host that records what it is told, a connection that
 * only says it runs, and a task wire whose answers each test scripts.
 */
import type { Task } from '@modelcontextprotocol/client';
import { Emitter } from '../../src/core/base/event.js';
import { NULL_LOG, type ClientSide, type ConnectionState, type Continuity, type RequestorConnection, type ServerOrigin } from '../../src/core/connection/connection.js';
import type { HostClient } from '../../src/core/connection/hostClient.js';
import { definition } from './fakeTaskServer.js';
import type { ReceiverSide } from '../../src/core/receiver/wire/receiverSide.js';
import type { SentRecord } from '../../src/core/requestor/sentRecord.js';
import { SentTask, type SentTaskHost } from '../../src/core/requestor/sentTask.js';
import type { SentTaskChange, TrackerOptions } from '../../src/core/requestor/trackerTypes.js';
import type { TaskWire } from '../../src/core/requestor/wire/taskWire.js';

/** Where the fake connection reaches, and where the fixture's task was sent. */
export const FIXTURE_ORIGIN: ServerOrigin = { kind: 'http', id: 'origin-a', label: 'http://a.example/mcp' };

export const task = (over: Partial<Task> = {}): Task => ({ taskId: 't1', status: 'working', createdAt: new Date(0).toISOString(), lastUpdatedAt: new Date(0).toISOString(), ttl: null, pollInterval: 1000, ...over });

/** A connection that runs (or not: `state.kind`), with no client behind it: the scripted wire answers. */
export function fakeConnection(over: { respondToInput?: ReceiverSide['respondToInput']; answerRound?: ReceiverSide['answerRound'] } = {}) {
  const watched: string[] = [];
  const sides: ClientSide[] = [
    { kind: 'task-wire', watch: (_client: unknown, id: string) => void watched.push(id), unwatch() {} } as ClientSide,
    {
      kind: 'receiver',
      respondToInput: over.respondToInput ?? (() => Promise.reject(new Error('no responder'))),
      answerRound: over.answerRound ?? (() => Promise.reject(new Error('no responder'))),
    } as ClientSide,
  ];
  const connection = {
    id: 's',
    name: 'Server S',
    definition: { ...definition('s'), name: 'Server S' },
    state: { kind: 'running', capabilities: {} } as ConnectionState,
    serverCapabilities: {},
    continuity: { kind: 'first' } as Continuity,
    origin: FIXTURE_ORIGIN as ServerOrigin | undefined,
    // No client behind it: the scripted wire answers.
    client: {} as HostClient,
    /** The task ids a push was asked for (the task wire side below). */
    watched,
    log: NULL_LOG,
    onDidReceiveNotification: new Emitter<never>().event,
    sides,
  } satisfies RequestorConnection & { watched: string[] };
  return connection;
}

export interface Fixture {
  readonly sent: SentTask;
  readonly connection: ReturnType<typeof fakeConnection>;
  /** What the host was told, in order: changes ("updated", "added"), polls, lost connections. */
  readonly told: string[];
  readonly wire: Partial<TaskWire>;
}

/** A task tracked live (attached) through a running fake connection, with `wire` answering. */
export function sentTask(wire: Partial<TaskWire>, record: Partial<SentRecord> = {}, options: Partial<TrackerOptions> = {}, connection = fakeConnection()): Fixture {
  const told: string[] = [];
  const host: SentTaskHost = {
    options: { connectionFor: () => undefined, ...options },
    now: () => Date.now(),
    wireFor: () => wire as TaskWire,
    changed: (_t, kind: SentTaskChange['kind']) => void told.push(kind),
    named: () => undefined,
    polled: () => void told.push('polled'),
    connectionLost: () => void told.push('connection lost'),
    listenOn: () => undefined,
  };
  const sent = new SentTask(
    { key: 's/t1', serverId: 's', serverName: 'Server S', toolName: 'tool', argsSummary: '{}', mode: 'task', origin: 'local', sentAt: 0, phase: 'tracking', polls: 0, resultFetches: 0, task: task(), sentTo: { ...FIXTURE_ORIGIN }, ...record },
    host,
  );
  sent.attach(connection);
  return { sent, connection, told, wire };
}
