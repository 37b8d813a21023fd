/**
 * A window of the extension as the requestor's reload tests make it, more than once over one
 * server: a connection with both sides installed (as extension.ts installs them), a tracker over the
 * window's stored tasks, and the sessions the windows keep. `close()` is the window going (a reload):
 * the tracker saves and stops and the connection closes; nothing is ended on the server.
 */
import { McpConnection } from '../../src/core/connection/connection.js';
import type { SessionStore } from '../../src/core/connection/httpSession.js';
import type { StdioHost } from '../../src/core/connection/hostedStdio.js';
import type { ConnectGate } from '../../src/core/config/gate.js';
import type { ServerDefinition } from '../../src/core/config/config.js';
import type { Event } from '../../src/core/base/event.js';
import { TaskLedger } from '../../src/core/receiver/ledger.js';
import type { HostResponders } from '../../src/core/receiver/wire/responders.js';
import { hostSides } from '../../src/core/requestor/hostSides.js';
import { TaskTracker, type SentTaskSnapshot } from '../../src/core/requestor/tracker.js';
import type { TrackerStorage } from '../../src/core/requestor/trackerStore.js';
import { MemoryLog, ScriptedResponders, waitFor } from './host.js';

/** The stored sent tasks of a window, in memory, kept across its reloads (a copy in, a copy out). */
export class MemoryStorage implements TrackerStorage {
  data: unknown;
  saves = 0;
  load() {
    return this.data === undefined ? undefined : structuredClone(this.data);
  }
  save(data: unknown) {
    this.saves++;
    this.data = structuredClone(data);
  }
}

export interface ReloadWindowOptions {
  readonly sessions: SessionStore;
  readonly storage: TrackerStorage;
  /** How it answers the server's questions (disposed with the window when it can be); default: scripted answers. */
  readonly responders?: HostResponders & { dispose?(): void };
  /** The tracker's interval for a task that names none, ms. */
  readonly defaultPollIntervalMs: number;
  /** Where its stdio servers run (the server host), when not spawned by the window itself. */
  readonly serverHost?: StdioHost;
  readonly gate?: ConnectGate;
}

export interface ReloadWindow {
  readonly connection: McpConnection;
  readonly tracker: TaskTracker;
  readonly log: MemoryLog;
  /** The window goes (closes or reloads). */
  close(): void;
}

export function reloadWindow(def: ServerDefinition, options: ReloadWindowOptions): ReloadWindow {
  const ledger = new TaskLedger();
  const log = new MemoryLog();
  const responders: HostResponders & { dispose?(): void } = options.responders ?? new ScriptedResponders();
  const connection = new McpConnection(def, {
    sides: hostSides(ledger, responders),
    log,
    variables: { env: process.env },
    sessions: options.sessions,
    ...(options.serverHost ? { serverHost: options.serverHost } : {}),
    ...(options.gate ? { gate: options.gate } : {}),
  });
  const tracker = new TaskTracker({
    connectionFor: (id) => (id === connection.id ? connection : undefined),
    storage: options.storage,
    minPollIntervalMs: 10,
    defaultPollIntervalMs: options.defaultPollIntervalMs,
  });
  return {
    connection,
    tracker,
    log,
    close() {
      tracker.dispose();
      connection.dispose();
      ledger.dispose();
      responders.dispose?.();
    },
  };
}

/** A change of any sent task, or a tasks/get answered (one that changes nothing fires no change). */
export function changedOrPolled(tracker: TaskTracker): Event<unknown> {
  return (listener) => {
    const a = tracker.onDidChange(listener);
    const b = tracker.onDidPoll(listener);
    return { dispose: () => (a.dispose(), b.dispose()) };
  };
}

/** Waits on the tracker's events (never a timer) until the sent task `key` satisfies `check`; `ms` only bounds a failure. */
export function untilTask(tracker: TaskTracker, key: string, check: (s: SentTaskSnapshot) => boolean, what: string, ms: number): Promise<SentTaskSnapshot> {
  const now = () => tracker.get(key);
  return waitFor(changedOrPolled(tracker), () => !!now() && check(now()!), `${key}: ${what} (now ${JSON.stringify(now()?.phase)} / ${now()?.task?.status} / ${now()?.reason})`, ms).then(() => now()!);
}
