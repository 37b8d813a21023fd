/**
 * Sent tasks kept in a file of the workspace storage folder (fileStorage.ts): the
 * Memento value of earlier releases is taken over once, writes replace the file whole, and a
 * file that cannot be read is kept aside rather than written over.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { fileTrackerStorage, MIN_APPENDS_BEFORE_REWRITE, SENT_TASKS_FILE, type FileTrackerStorageOptions } from '../../../src/core/requestor/fileStorage.js';
import { readStoredTasks } from '../../../src/core/requestor/trackerStore.js';
import { T0, stored } from '../../helpers/storedTasks.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every tracker, task and subscription a test makes is disposed by its end.
checkLeaks();

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-tasks-sent-'));
  file = join(dir, 'workspace-storage', SENT_TASKS_FILE);
});
// Retries: a test that disposes a tracker without awaiting its last write may still have it in flight.
afterEach(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 }));

/** A Memento key of an earlier release. */
class LegacyKey {
  clears = 0;
  constructor(public value: unknown) {}
  load() {
    return this.value;
  }
  clear() {
    this.clears++;
    this.value = undefined;
  }
}

function storage(extra: Partial<FileTrackerStorageOptions> = {}) {
  const problems: Array<{ message: string; kind: string }> = [];
  const s = fileTrackerStorage({ file, onProblem: (message, kind) => problems.push({ message, kind }), ...extra });
  return { s, problems };
}

/** A window's tracker, its stored tasks read as the extension reads them right after activation. */
const newTracker = (s: ReturnType<typeof fileTrackerStorage>) => {
  const t = new TaskTracker({ connectionFor: () => undefined, storage: s, now: () => T0 + 10_000, maxFinishedAgeMs: () => 0 });
  t.restore();
  return t;
};

function touch(t: TaskTracker, key: string, reason: string): void {
  const sent = t._task(key)!;
  sent.record.reason = reason;
  sent.changed();
}

/** What a new window would load. */
const onDisk = () => readStoredTasks(fileTrackerStorage({ file }).load()).tasks;

describe('sent tasks in a file of the workspace storage folder', () => {
  test('an earlier release\'s Memento value is taken over: written to the file, then cleared; the next window reads the file', async () => {
    const legacy = new LegacyKey({ version: 2, tasks: [stored(1), stored(2)] });
    const first = newTracker(storage({ legacy }).s);
    assert.deepEqual(
      first.snapshot().map((s) => s.key).sort(),
      ['s/t1', 's/t2'],
    );
    await first.flush();
    first.dispose();
    assert.equal(legacy.clears, 1);
    assert.deepEqual(
      onDisk().map((t) => [t.key, t.outcome]),
      [
        ['s/t1', stored(1).outcome],
        ['s/t2', stored(2).outcome],
      ],
    );
    const again = new LegacyKey(undefined);
    const second = newTracker(storage({ legacy: again }).s);
    assert.deepEqual(
      second.snapshot().map((s) => s.key).sort(),
      ['s/t1', 's/t2'],
    );
    // Its load prunes and schedules a write: let it land before the folder is removed (afterEach).
    await second.flush();
    second.dispose();
    assert.equal(again.clears, 0, 'nothing to clear');
  });

  test('a change replaces the file whole (written beside it, then renamed): no temporary file stays', async () => {
    const legacy = new LegacyKey({ version: 2, tasks: [stored(1), stored(2), stored(3)] });
    const t = newTracker(storage({ legacy }).s);
    await t.flush();
    touch(t, 's/t2', 'a note');
    await t.flush();
    assert.equal(onDisk()[1]?.reason, 'a note');
    assert.deepEqual(readdirSync(join(dir, 'workspace-storage')), [SENT_TASKS_FILE]);
    t.dispose();
  });

  test('a change appends only the changed task; after as many appends as tasks the file is written whole again', async () => {
    const legacy = new LegacyKey({ version: 2, tasks: [stored(1), stored(2), stored(3)] });
    const { s } = storage({ legacy });
    const t = newTracker(s);
    await t.flush();
    assert.deepEqual(s.counts, { rewrites: 1, appends: 0 });
    const whole = statSync(file).size;
    touch(t, 's/t2', 'a note');
    await t.flush();
    assert.deepEqual(s.counts, { rewrites: 1, appends: 1 });
    const grown = statSync(file).size - whole;
    assert.ok(grown > 0 && grown < whole / 2, `one task's line appended (${grown} of ${whole} bytes)`);
    assert.equal(onDisk().find((x) => x.key === 's/t2')?.reason, 'a note');
    for (let i = 0; s.counts.rewrites === 1; i++) {
      assert.ok(i < MIN_APPENDS_BEFORE_REWRITE + 1, 'written whole in the end');
      touch(t, 's/t3', `note ${i}`);
      await t.flush();
    }
    assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, 4, 'the header and one line per task');
    assert.deepEqual(
      onDisk().map((x) => x.key),
      ['s/t1', 's/t2', 's/t3'],
    );
    t.dispose();
  });

  test('a pruned task is written as removed and stays gone after a reload', async () => {
    const legacy = new LegacyKey({ version: 2, tasks: [stored(1), stored(2), stored(3)] });
    const { s } = storage({ legacy });
    const t = newTracker(s);
    await t.flush();
    t.remove('s/t2');
    await t.flush();
    assert.deepEqual(s.counts, { rewrites: 1, appends: 1 });
    assert.match(readFileSync(file, 'utf8'), /\{"removed":"s\/t2"\}\n$/);
    assert.deepEqual(
      onDisk().map((x) => x.key),
      ['s/t1', 's/t3'],
    );
    t.dispose();
  });

  test('a last line cut short (a crash during an append) is ignored, and the next write replaces the file whole', async () => {
    const { s } = storage({ legacy: new LegacyKey({ version: 2, tasks: [stored(1), stored(2)] }) });
    const t0 = newTracker(s);
    await t0.flush();
    t0.dispose();
    appendFileSync(file, JSON.stringify(stored(2)).slice(0, 40));
    const { s: s2, problems } = storage();
    const t = newTracker(s2);
    assert.deepEqual(
      t.snapshot().map((x) => x.key).sort(),
      ['s/t1', 's/t2'],
    );
    assert.equal(problems.length, 0, 'nothing to tell the user');
    touch(t, 's/t1', 'x');
    await t.flush();
    assert.deepEqual(s2.counts, { rewrites: 1, appends: 0 });
    assert.ok(readFileSync(file, 'utf8').endsWith('\n'));
    t.dispose();
  });

  test('writes run in order: changes asked for while one is being written land after it', async () => {
    const { s } = storage();
    const a = s.saveChanges!({ all: [JSON.stringify(stored(1))], put: [JSON.stringify(stored(1))], removed: [], first: true });
    const b = s.saveChanges!({ all: [JSON.stringify(stored(1)), JSON.stringify(stored(2))], put: [JSON.stringify(stored(2))], removed: [], first: false });
    const c = s.saveChanges!({ all: [JSON.stringify(stored(2))], put: [], removed: ['s/t1'], first: false });
    await Promise.all([a, b, c]);
    assert.deepEqual(s.counts, { rewrites: 1, appends: 2 });
    assert.deepEqual(
      onDisk().map((x) => x.key),
      ['s/t2'],
    );
  });

  test('a file that is not sent tasks is kept aside, the user is told which, and the tasks start empty', async () => {
    const { s, problems } = storage();
    const t0 = newTracker(s);
    await t0.flush();
    t0.dispose();
    writeFileSync(file, '{"mcpTasksSentTasks":1}\n{"key":\n{}\n');
    const { s: s2, problems: p2 } = storage();
    const t = newTracker(s2);
    assert.equal(t.snapshot().length, 0);
    const aside = readdirSync(join(dir, 'workspace-storage')).filter((n) => n.startsWith('sent-tasks.unreadable-'));
    assert.equal(aside.length, 1);
    assert.equal(readFileSync(join(dir, 'workspace-storage', aside[0]!), 'utf8'), '{"mcpTasksSentTasks":1}\n{"key":\n{}\n', 'the original is kept as it was');
    assert.equal(p2.length, 1);
    assert.equal(p2[0]!.kind, 'read');
    assert.match(p2[0]!.message, new RegExp(`${SENT_TASKS_FILE}.*could not be read.*kept as .*sent-tasks\\.unreadable-`));
    assert.equal(problems.length, 0);
    t.dispose();
  });

  test('one unreadable entry: the others load, and the whole original is kept aside before the next write', async () => {
    const { s } = storage();
    await s.save(JSON.stringify({ version: 3, tasks: [stored(1), { key: 's/broken' }, stored(3)] }));
    const { s: s2, problems } = storage();
    const t = newTracker(s2);
    assert.deepEqual(
      t.snapshot().map((x) => x.key).sort(),
      ['s/t1', 's/t3'],
    );
    assert.match(problems[0]?.message ?? '', /1 unreadable entry/);
    const aside = readdirSync(join(dir, 'workspace-storage')).find((n) => n.startsWith('sent-tasks.unreadable-'))!;
    assert.match(readFileSync(join(dir, 'workspace-storage', aside), 'utf8'), /s\/broken/);
    touch(t, 's/t1', 'x');
    await t.flush();
    assert.deepEqual(
      onDisk().map((x) => x.key),
      ['s/t1', 's/t3'],
    );
    t.dispose();
  });

  test('a failed write is reported, not thrown; tracking goes on and the next change writes again', async () => {
    // The storage folder's place is taken by a file: the folder cannot be made.
    writeFileSync(join(dir, 'workspace-storage'), 'not a folder');
    const legacy = new LegacyKey({ version: 2, tasks: [stored(1)] });
    const { s, problems } = storage({ legacy });
    const t = newTracker(s);
    await t.flush();
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.kind, 'write');
    assert.match(problems[0]!.message, new RegExp(`could not write .*${SENT_TASKS_FILE}`));
    assert.equal(legacy.clears, 0, 'the old copy stays until the file is written');
    rmSync(join(dir, 'workspace-storage'));
    touch(t, 's/t1', 'after');
    await t.flush();
    assert.equal(onDisk()[0]?.reason, 'after');
    assert.equal(legacy.clears, 1);
    t.dispose();
  });

  test('a store with no task left (every form) reads as empty; one with an entry that is not a task still counts it dropped', () => {
    for (const raw of [{ version: 3, tasks: [] }, '{"version":3,"tasks":[]}', '{ "version": 3, "tasks": [ ] }']) assert.deepEqual(readStoredTasks(raw), { tasks: [], dropped: 0 }, JSON.stringify(raw));
    for (const raw of [{ version: 3, tasks: [{}] }, '{"version":3,"tasks":[{}]}']) assert.deepEqual(readStoredTasks(raw), { tasks: [], dropped: 1 }, JSON.stringify(raw));
    for (const raw of [{ version: 4, tasks: [] }, '{"version":3}', 'not json', []]) assert.equal(readStoredTasks(raw).dropped, 1, JSON.stringify(raw));
  });

  test('no file and no earlier value: nothing loaded, nothing reported', () => {
    const { s, problems } = storage({ legacy: new LegacyKey(undefined) });
    assert.equal(s.load(), undefined);
    const t = newTracker(s);
    assert.equal(t.snapshot().length, 0);
    assert.equal(problems.length, 0);
    t.dispose();
  });
});
