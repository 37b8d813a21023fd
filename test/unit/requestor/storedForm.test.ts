/**
 * The stored form of sent tasks (trackerStore.ts): version 3 is one JSON string put
 * together from each task's cached JSON, so a VS Code Memento passes it through without copying
 * every task on each write. What the previous release stored (version 2, an object) is read and
 * kept across the update; a change rewrites only the changed task's part.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { readStoredTasks, type TrackerStorage } from '../../../src/core/requestor/trackerStore.js';
import { T0, stored } from '../../helpers/storedTasks.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every tracker, task and subscription a test makes is disposed by its end.
checkLeaks();


/** Like a VS Code Memento under one key: a string passes as it is, an object is copied through JSON. */
class MementoLike implements TrackerStorage {
  writes: unknown[] = [];
  constructor(public value: unknown) {}
  load() {
    return this.value;
  }
  save(data: string) {
    this.value = typeof data === 'object' ? JSON.parse(JSON.stringify(data)) : data;
    this.writes.push(this.value);
  }
}

/** A window's tracker, its stored tasks read as the extension reads them right after activation. */
const newTracker = (storage: TrackerStorage) => {
  const t = new TaskTracker({ connectionFor: () => undefined, storage, now: () => T0 + 10_000, maxFinishedAgeMs: () => 0 });
  t.restore();
  return t;
};

function touch(t: TaskTracker, key: string, reason: string): void {
  const sent = t._task(key)!;
  sent.record.reason = reason;
  sent.changed();
}

describe('stored sent tasks: version 3', () => {
  test('tasks stored by the previous release (version 2, an object) survive the update and are written back as one version 3 string', async () => {
    const v2 = { version: 2, tasks: [stored(1), stored(2), stored(3)] };
    const storage = new MementoLike(structuredClone(v2));
    const before = newTracker(storage);
    const snapshots = before.snapshot();
    assert.equal(snapshots.length, 3);
    touch(before, 's/t2', 'changed once');
    await before.flush();
    before.dispose();
    assert.equal(typeof storage.value, 'string');
    const written = JSON.parse(storage.value as string) as { version: number; tasks: unknown[] };
    assert.equal(written.version, 3);
    assert.equal(written.tasks.length, 3);

    const after = newTracker(storage);
    assert.deepEqual(
      after.snapshot().map((s) => ({ ...s, reason: undefined })),
      snapshots.map((s) => ({ ...s, reason: undefined })),
      'the same tasks, results and counters after a reload',
    );
    assert.equal(after.get('s/t2')?.reason, 'changed once');
    assert.deepEqual(after.get('s/t1')?.outcome, stored(1).outcome, 'quotes, backslashes and non-ASCII text survive');
    after.dispose();
  });

  test('a change rewrites only that task; the others are stored exactly as before', async () => {
    const storage = new MementoLike({ version: 2, tasks: [stored(1), stored(2), stored(3)] });
    const t = newTracker(storage);
    await t.flush();
    const first = readStoredTasks(storage.value).tasks;
    touch(t, 's/t3', 'a note');
    await t.flush();
    const second = readStoredTasks(storage.value).tasks;
    assert.deepEqual(second.slice(0, 2), first.slice(0, 2));
    assert.equal(second[2]?.reason, 'a note');
    assert.equal(storage.writes.length, 2);
    await t.flush();
    assert.equal(storage.writes.length, 2, 'nothing changed: no write');
    t.dispose();
  });

  test('an unreadable string is dropped as a whole, never thrown', () => {
    assert.deepEqual(readStoredTasks('{"version":3,'), { tasks: [], dropped: 1 });
    const t = newTracker(new MementoLike('not json'));
    assert.equal(t.snapshot().length, 0);
    t.dispose();
  });
});
