/** Sent tasks as the tracker stores them (trackerStore.ts), numbered `n`: tests of the stored form, pruning and the sent-tasks file. */
import type { StoredSentTask } from '../../src/core/requestor/trackerStore.js';

export const T0 = Date.parse('2026-11-01T00:00:00Z');

export interface StoredTaskTimes {
  readonly phase: StoredSentTask['phase'];
  readonly sentAt: number;
  /** Absent: not recorded (stored by a release that did not record it). */
  readonly finishedAt?: number;
  readonly lastUpdatedAt?: number;
}

/** Task `n` of server `s`, in `phase` (done: its task completed; otherwise working), with no result. */
export function storedTask(n: number, { phase, sentAt, finishedAt, lastUpdatedAt = sentAt }: StoredTaskTimes): StoredSentTask {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    key: `s/t${n}`,
    serverId: 's',
    serverName: 'S',
    definitionKey: 'user:x#S',
    toolName: `tool${n}`,
    argsSummary: `{"n":${n}}`,
    mode: 'task',
    origin: 'local',
    sentAt,
    phase,
    task: { taskId: `t${n}`, status: phase === 'done' ? 'completed' : 'working', createdAt: iso(sentAt), lastUpdatedAt: iso(lastUpdatedAt), ttl: null },
    ...(finishedAt !== undefined ? { finishedAt } : {}),
    polls: 0,
    resultFetches: 0,
  };
}

/** Task `n`, completed at `T0 + n` with its result (text with a quote, a backslash and a non-ASCII character). */
export function stored(n: number): StoredSentTask {
  const t = storedTask(n, { phase: 'done', sentAt: T0 + n, finishedAt: T0 + n });
  return {
    ...t,
    task: { ...t.task!, pollInterval: 500 },
    outcome: { kind: 'result', result: { content: [{ type: 'text', text: `answer "${n}" \\ ✓` }] } },
    polls: n,
    resultFetches: 1,
  };
}
