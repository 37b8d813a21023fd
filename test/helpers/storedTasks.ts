/** A finished sent task as the tracker stores it (trackerStore.ts), numbered `n`: tests of the stored form. */
import type { StoredSentTask } from '../../src/core/requestor/trackerStore.js';

export const T0 = Date.parse('2026-11-01T00:00:00Z');

export function stored(n: number): StoredSentTask {
  const iso = new Date(T0 + n).toISOString();
  return {
    key: `s/t${n}`,
    serverId: 's',
    serverName: 'S',
    definitionKey: 'user:x#S',
    toolName: `tool${n}`,
    argsSummary: `{"n":${n}}`,
    mode: 'task',
    origin: 'local',
    sentAt: T0 + n,
    phase: 'done',
    task: { taskId: `t${n}`, status: 'completed', createdAt: iso, lastUpdatedAt: iso, ttl: null, pollInterval: 500 },
    outcome: { kind: 'result', result: { content: [{ type: 'text', text: `answer "${n}" \\ ✓` }] } },
    finishedAt: T0 + n,
    polls: n,
    resultFetches: 1,
  };
}
