/** How a sent task's drive takes in what the server says of its task (requestor/taskDrive.ts `take`). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Task } from '@modelcontextprotocol/client';
import type { SentRecord } from '../../../src/core/requestor/sentRecord.js';
import { SentTask, type SentTaskHost } from '../../../src/core/requestor/sentTask.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every tracker, task and subscription a test makes is disposed by its end.
checkLeaks();

const task = (over: Partial<Task> = {}): Task => ({ taskId: 't1', status: 'working', createdAt: '2026-11-26T00:00:00Z', lastUpdatedAt: '2026-11-26T00:00:00Z', ttl: 60_000, ...over });

function setUp() {
  const changed: string[] = [];
  const host = { changed: (t: SentTask) => void changed.push(t.record.task?.status ?? 'none'), listenOn: () => undefined, wireFor: () => ({}) } as unknown as SentTaskHost;
  const t = new SentTask({ key: 's/t1', task: task() } as unknown as SentRecord, host);
  // A connection that is not running: nothing is asked of it (no subscription to leak).
  const live = t.attach({ id: 's', state: { kind: 'stopped' }, sides: [], client: {} } as never);
  return { t: live, rec: t.record, changed, dispose: () => t.dispose() };
}

describe('taking in a task', () => {
  test('a new status, message or interval is a change; the same answer again is none', () => {
    const { t, rec, changed, dispose } = setUp();
    t.take(task());
    assert.deepEqual(changed, [], 'nothing the task shows changed');
    t.take(task({ statusMessage: 'step 2' }));
    t.take(task({ statusMessage: 'step 2', pollInterval: 500 }));
    t.take(task({ status: 'completed', statusMessage: 'step 2', pollInterval: 500 }));
    assert.deepEqual(changed, ['working', 'working', 'completed']);
    assert.equal(rec.task?.status, 'completed');
    dispose();
  });

  test('a finished task never moves back (a late answer of before its end)', () => {
    const { t, rec, changed, dispose } = setUp();
    t.take(task({ status: 'cancelled' }));
    t.take(task({ status: 'working', statusMessage: 'late' }));
    assert.equal(rec.task?.status, 'cancelled');
    assert.deepEqual(changed, ['cancelled']);
    dispose();
  });
});
