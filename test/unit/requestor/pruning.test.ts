/**
 * Bounded stored state of sent tasks: finished tasks are pruned by age
 * (`maxFinishedAgeMs`) and by count (`maxStoredTasks`), in memory, in the view and in storage
 * alike, and every removal — dismissed, cleared, pruned, replaced — is one `onDidRemove` event
 * naming the tasks and the reason.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker, type SentTaskRemoval, type TrackerOptions } from '../../../src/core/requestor/tracker.js';
import { readStoredTasks, type StoredSentTask, type TrackerStorage } from '../../../src/core/requestor/trackerStore.js';
import { TaskView } from '../../../src/core/view/taskView.js';
import { T0, storedTask } from '../../helpers/storedTasks.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every tracker, task and subscription a test makes is disposed by its end.
checkLeaks();

const HOUR = 3_600_000;

class MemoryStorage implements TrackerStorage {
  constructor(public data: unknown) {}
  load() {
    return structuredClone(this.data);
  }
  save(data: unknown) {
    this.data = structuredClone(data);
  }
}

const stored = (n: number, phase: StoredSentTask['phase'], sentAt: number, finishedAt?: number, lastUpdatedAt = sentAt): StoredSentTask =>
  storedTask(n, { phase, sentAt, finishedAt, lastUpdatedAt });

function tracker(tasks: StoredSentTask[], options: Partial<TrackerOptions> & { clock: { now: number } }) {
  const storage = new MemoryStorage({ version: 2, tasks });
  const t = new TaskTracker({ connectionFor: () => undefined, storage, now: () => options.clock.now, ...options });
  // Read as the extension reads them, right after the tracker is made (before anyone listens for removals).
  t.restore();
  const removals: SentTaskRemoval[] = [];
  t.onDidRemove((r) => removals.push(r));
  return { t, storage, removals };
}

const keys = (t: TaskTracker) => t.snapshot().map((s) => s.key).sort();

describe('sent tasks: bounded stored state', () => {
  test('finished tasks older than maxFinishedAgeMs are pruned, with one prunedByAge event; running and orphaned ones never', async () => {
    const clock = { now: T0 };
    const { t, storage, removals } = tracker(
      [stored(1, 'done', T0 - 5 * HOUR, T0 - 2 * HOUR), stored(2, 'done', T0 - 5 * HOUR, T0 - 1 * HOUR), stored(3, 'paused', T0 - 100 * HOUR), stored(4, 'orphaned', T0 - 100 * HOUR)],
      { clock, maxFinishedAgeMs: () => 3 * HOUR },
    );
    assert.deepEqual(keys(t), ['s/t1', 's/t2', 's/t3', 's/t4'], 'nothing is old enough yet');
    clock.now = T0 + 1.5 * HOUR;
    assert.equal(t.prune(), 1);
    assert.deepEqual(removals, [{ keys: ['s/t1'], reason: 'prunedByAge' }]);
    assert.deepEqual(keys(t), ['s/t2', 's/t3', 's/t4']);
    clock.now = T0 + 1000 * HOUR;
    t.prune();
    assert.deepEqual(removals[1], { keys: ['s/t2'], reason: 'prunedByAge' });
    assert.deepEqual(keys(t), ['s/t3', 's/t4'], 'a paused and an orphaned task stay, however old');
    await t.flush();
    assert.deepEqual(readStoredTasks(storage.data).tasks.map((s) => s.key).sort(), ['s/t3', 's/t4'], 'storage holds what the tracker holds');
    t.dispose();
  });

  test('without finishedAt (stored before it was kept) the age counts from the task\'s last update; 0 turns the age limit off', () => {
    const clock = { now: T0 };
    const old = stored(1, 'done', T0 - 50 * HOUR, undefined, T0 - 40 * HOUR);
    const a = tracker([old], { clock, maxFinishedAgeMs: () => 41 * HOUR });
    assert.deepEqual(keys(a.t), ['s/t1']);
    clock.now = T0 + 2 * HOUR;
    a.t.prune();
    assert.deepEqual(a.removals, [{ keys: ['s/t1'], reason: 'prunedByAge' }]);
    a.t.dispose();
    const b = tracker([old], { clock, maxFinishedAgeMs: () => 0 });
    b.t.prune();
    assert.deepEqual(keys(b.t), ['s/t1']);
    b.t.dispose();
  });

  test('beyond maxStoredTasks the oldest finished, then orphaned, tasks go in one prunedByCount event; running ones stay', () => {
    const clock = { now: T0 };
    let max = 10;
    const { t, removals } = tracker(
      [stored(1, 'done', T0 - 4, T0), stored(2, 'orphaned', T0 - 9), stored(3, 'done', T0 - 3, T0), stored(4, 'paused', T0 - 10), stored(5, 'done', T0 - 2, T0)],
      { clock, maxStoredTasks: () => max, maxFinishedAgeMs: () => 0 },
    );
    max = 2;
    assert.equal(t.prune(), 3);
    assert.deepEqual(removals, [{ keys: ['s/t1', 's/t3', 's/t5'], reason: 'prunedByCount' }]);
    assert.deepEqual(keys(t), ['s/t2', 's/t4']);
    max = 1;
    t.prune();
    assert.deepEqual(removals[1], { keys: ['s/t2'], reason: 'prunedByCount' });
    assert.deepEqual(keys(t), ['s/t4'], 'a task that may still run is never pruned, even over the bound');
    t.dispose();
  });

  test('by count, whatever the excess: the oldest finished by sentAt, then the oldest orphaned, ties in the order they were kept', () => {
    // Sent times with ties, out of order, finished and orphaned mixed with running ones.
    const phases: StoredSentTask['phase'][] = ['done', 'orphaned', 'error', 'paused', 'expired', 'orphaned', 'done'];
    const all = Array.from({ length: 40 }, (_, i) => stored(i + 1, phases[i % phases.length]!, T0 - ((i * 7) % 11) * 1000, T0));
    const kept = new Set(['done', 'error', 'expired', 'orphaned']);
    const rank = (x: StoredSentTask) => (x.phase === 'orphaned' ? 1 : 0);
    // What the bound removes, by its definition: a stable sort (finished before orphaned, then sentAt).
    const expected = (excess: number) =>
      all
        .filter((x) => kept.has(x.phase))
        .sort((a, b) => rank(a) - rank(b) || a.sentAt - b.sentAt)
        .slice(0, excess)
        .map((x) => x.key);
    for (const max of [39, 38, 35, 32, 31, 30, 20, 10, 1]) {
      const clock = { now: T0 };
      let bound = 1000;
      const { t, removals } = tracker(all, { clock, maxStoredTasks: () => bound, maxFinishedAgeMs: () => 0 });
      bound = max;
      t.prune();
      assert.deepEqual(removals[0]?.keys, expected(40 - max), `maxStoredTasks ${max}`);
      t.dispose();
    }
  });

  test('by count, tasks kept in sent order and then one kept out of it: the oldest finished go either way', () => {
    // In sent order the bound takes the first finished ones it meets; a task kept after one sent
    // later (t9, sent first, loaded last) must still be found as the oldest.
    for (const [label, order] of [
      ['in sent order', [1, 2, 3, 4, 5, 6, 7, 8]],
      ['the oldest kept last', [1, 2, 3, 4, 5, 6, 7, 8, 9]],
    ] as const) {
      const clock = { now: T0 };
      let bound = 1000;
      const all = order.map((n) => stored(n, n === 2 ? 'paused' : 'done', n === 9 ? T0 - 100 : T0 + n, T0 + 10));
      const { t, removals } = tracker(all, { clock, maxStoredTasks: () => bound, maxFinishedAgeMs: () => 0 });
      bound = all.length - 2;
      t.prune();
      assert.deepEqual(removals[0]?.keys, label === 'in sent order' ? ['s/t1', 's/t3'] : ['s/t9', 's/t1'], label);
      t.dispose();
    }
  });

  test('dismiss and Clear Finished are removals too: one event each, with the reason; the view drops them', async () => {
    const clock = { now: T0 };
    const { t, removals } = tracker([stored(1, 'done', T0 - 3, T0), stored(2, 'done', T0 - 2, T0), stored(3, 'orphaned', T0 - 1), stored(4, 'done', T0, T0)], { clock, maxFinishedAgeMs: () => 0 });
    const ledger = new TaskLedger();
    const view = new TaskView(ledger, t, { coalesceMs: 0 });
    assert.equal(view.group('s', 'sent').length, 4);
    t.remove('s/t3');
    assert.deepEqual(removals, [{ keys: ['s/t3'], reason: 'dismissed' }]);
    assert.equal(t.clearFinished(), 3);
    assert.deepEqual(removals[1]?.reason, 'cleared');
    assert.deepEqual([...removals[1]!.keys].sort(), ['s/t1', 's/t2', 's/t4']);
    assert.equal(removals.length, 2, 'one event for the whole Clear Finished');
    assert.equal(view.group('s', 'sent').length, 0);
    assert.equal(view.item('sent:s/t1'), undefined);
    view.dispose();
    ledger.dispose();
    t.dispose();
  });

  test('pruning runs by itself every pruneIntervalMs', async (ctx) => {
    ctx.mock.timers.enable({ apis: ['setInterval'] });
    const clock = { now: T0 };
    const { t, removals } = tracker([stored(1, 'done', T0 - 2, T0)], { clock, maxFinishedAgeMs: () => HOUR, pruneIntervalMs: 60_000 });
    clock.now = T0 + 2 * HOUR;
    ctx.mock.timers.tick(60_000);
    assert.deepEqual(removals, [{ keys: ['s/t1'], reason: 'prunedByAge' }]);
    t.dispose();
  });
});
