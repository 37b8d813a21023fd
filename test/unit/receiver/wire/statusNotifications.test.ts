/** A connection's `notifications/tasks/status` (receiver/wire/statusNotifications.ts): sent at the end of the turn, in order. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Task } from '@modelcontextprotocol/client';
import { StatusNotifications } from '../../../../src/core/receiver/wire/statusNotifications.js';
import { checkLeaks } from '../../../helpers/leaks.js';

const task = (taskId: string, status: Task['status']): Task => ({ taskId, status, createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:00Z', ttl: null });
const endOfTurn = () => new Promise<void>((r) => setImmediate(r));

describe('StatusNotifications', () => {
  checkLeaks();

  it('what is pushed in one turn is sent once that turn ends, in the order pushed', async () => {
    const sent: string[] = [];
    const n = new StatusNotifications((t) => sent.push(`${t.taskId} ${t.status}`));
    n.push(task('a', 'working'));
    n.push(task('a', 'completed'));
    n.push(task('b', 'failed'));
    assert.deepEqual(sent, [], 'nothing within the turn (the CreateTaskResult goes first)');
    await endOfTurn();
    assert.deepEqual(sent, ['a working', 'a completed', 'b failed']);
    n.push(task('c', 'cancelled'));
    await endOfTurn();
    assert.deepEqual(sent, ['a working', 'a completed', 'b failed', 'c cancelled']);
    n.dispose();
  });

  it('dispose drops what is queued: nothing is sent after it', async () => {
    const sent: string[] = [];
    const n = new StatusNotifications((t) => sent.push(t.taskId));
    n.push(task('a', 'completed'));
    n.dispose();
    await endOfTurn();
    assert.deepEqual(sent, []);
  });
});
