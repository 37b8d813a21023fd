/**
 * A TaskTracker on one connection to the demo server's Tasks extension mode (2026-07-28,
 * examples/demo-server/tasksExtension.ts), with what the integration tests need around it: wait
 * for a task's snapshot, read what the server saw (`ext_stats`), dispose everything.
 */
import type { McpConnection } from '../../src/core/connection/connection.js';
import type { TaskLedger } from '../../src/core/receiver/ledger.js';
import { TaskTracker, type SentTaskSnapshot } from '../../src/core/requestor/tracker.js';
import { textOf, waitFor } from './host.js';

/** What the demo server saw (its `ext_stats` tool). */
export interface ExtStats {
  toolCalls: Array<{ name: string; declared: boolean }>;
  tasks: Record<string, { status: string; gets: number[]; getAnswers: Array<{ status: string; pollIntervalMs: number }>; updates: string[]; cancels: number }>;
}

export function extTracker(connection: McpConnection, ledger: TaskLedger, waitMs: number) {
  const tracker = new TaskTracker({ connectionFor: () => connection, minPollIntervalMs: 10 });
  return {
    tracker,
    call: (name: string, args: Record<string, unknown> = {}) => tracker.callTool(connection, { name }, args),
    until: (key: string, check: (s: SentTaskSnapshot) => boolean, what: string) =>
      waitFor(tracker.onDidChange, () => { const s = tracker.get(key); return !!s && check(s); }, what, waitMs),
    async stats(): Promise<ExtStats> {
      return JSON.parse(textOf(await connection.client.callTool({ name: 'ext_stats', arguments: {} }))) as ExtStats;
    },
    dispose() {
      tracker.dispose();
      connection.dispose();
      ledger.dispose();
    },
  };
}
