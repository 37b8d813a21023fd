/**
 * The sent tasks an earlier window kept are read at their first need, not when the tracker is made
 * (src/core/requestor/tracker.ts): a window's tracker is made at activation, and the extension reads
 * them right after it (`restore()`). Read once, told once (`onDidLoad`), never as a change; a window
 * that closes before reading them leaves them as they were; what keeps "the tasks this window began
 * with" takes them when they are read (the ends already told, the calls that ended before it).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import type { TrackerStorage } from '../../../src/core/requestor/trackerStore.js';
import { TaskView } from '../../../src/core/view/taskView.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

checkLeaks();

/** A storage that counts its reads and writes. */
class CountingStorage implements TrackerStorage {
  value: unknown;
  loads = 0;
  saves = 0;
  load() {
    this.loads++;
    return this.value;
  }
  save(data: string) {
    this.saves++;
    this.value = data;
  }
}

const tool = { name: 'research', execution: { taskSupport: 'required' as const } };

/** A storage holding what a first window kept: one finished call, and one that failed. */
async function keptByAnEarlierWindow(): Promise<{ storage: CountingStorage; done: string; failed: string }> {
  const storage = new CountingStorage();
  const server = new FakeTaskServer();
  server.pollInterval = 10;
  const connection = server.connection(definition('everything'));
  const first = new TaskTracker({ connectionFor: () => connection, storage, minPollIntervalMs: 10, saveIntervalMs: 0 });
  try {
    const done = await first.callTool(connection, tool, { topic: 'a' });
    const failed = await first.callTool(connection, tool, { topic: 'b' });
    server.set('t1', 'completed');
    server.set('t2', 'failed');
    await waitFor(first.onDidChange, () => first.get(done)?.outcome !== undefined && first.get(failed)?.outcome !== undefined, 'both ended with their results');
    await first.flush();
    return { storage, done, failed };
  } finally {
    first.dispose();
    server.dispose();
  }
}

describe('the tasks an earlier window kept', () => {
  test('are read at their first need, once: not when the tracker is made, and loading tells of no change', async () => {
    const { storage, done, failed } = await keptByAnEarlierWindow();
    storage.loads = 0;
    const tracker = new TaskTracker({ connectionFor: () => undefined, storage, saveIntervalMs: 0 });
    let loads = 0;
    let changes = 0;
    const subs = [tracker.onDidLoad(() => loads++), tracker.onDidChange(() => changes++)];
    try {
      assert.equal(storage.loads, 0, 'nothing read when the tracker was made');
      assert.equal(tracker.loaded, false);
      assert.deepEqual(
        tracker.snapshot().map((s) => s.key).sort(),
        [done, failed].sort(),
        'the first read finds them all',
      );
      assert.equal(tracker.loaded, true);
      assert.equal(storage.loads, 1);
      assert.equal(loads, 1, 'told once that they were read');
      tracker.restore();
      assert.equal(tracker.get(done)?.phase, 'done');
      assert.equal(storage.loads, 1, 'read once');
      assert.equal(loads, 1, 'told once');
      assert.equal(changes, 0, 'reading them is no change');
    } finally {
      subs.forEach((s) => s.dispose());
      tracker.dispose();
    }
  });

  test('restore() reads them with no other need, as the extension does right after activation', async () => {
    const { storage, done } = await keptByAnEarlierWindow();
    const tracker = new TaskTracker({ connectionFor: () => undefined, storage, saveIntervalMs: 0 });
    let loads = 0;
    const sub = tracker.onDidLoad(() => loads++);
    try {
      tracker.restore();
      assert.equal(tracker.loaded, true);
      assert.equal(loads, 1);
      assert.equal(tracker.activeCount, 0);
      assert.equal(tracker.get(done)?.outcome?.kind, 'result');
    } finally {
      sub.dispose();
      tracker.dispose();
    }
  });

  test('whenLoaded runs with the tasks read: once at the read when made before it, at once after it, never once given up', async () => {
    const { storage, done } = await keptByAnEarlierWindow();
    const tracker = new TaskTracker({ connectionFor: () => undefined, storage, saveIntervalMs: 0 });
    const seen: string[] = [];
    const early = tracker.whenLoaded(() => seen.push(`early: ${tracker.get(done)?.phase}`));
    const givenUp = tracker.whenLoaded(() => seen.push('given up'));
    givenUp.dispose();
    try {
      assert.equal(seen.length, 0, 'nothing before the read');
      tracker.restore();
      tracker.restore();
      assert.deepEqual(seen, ['early: done'], 'once, with the tasks there');
      const late = tracker.whenLoaded(() => seen.push(`late: ${tracker.get(done)?.phase}`));
      assert.deepEqual(seen, ['early: done', 'late: done'], 'at once after the read');
      late.dispose();
    } finally {
      early.dispose();
      tracker.dispose();
    }
  });

  test('a window closed before reading them writes nothing over them: the next window finds them all', async () => {
    const { storage, done, failed } = await keptByAnEarlierWindow();
    const stored = storage.value;
    storage.saves = 0;
    const closing = new TaskTracker({ connectionFor: () => undefined, storage, saveIntervalMs: 0 });
    await closing.windowClosing();
    await closing.flush();
    closing.dispose();
    assert.equal(storage.saves, 0, 'nothing written');
    assert.equal(storage.value, stored, 'the stored tasks as they were');
    const next = new TaskTracker({ connectionFor: () => undefined, storage, saveIntervalMs: 0 });
    try {
      assert.deepEqual(
        next.snapshot().map((s) => s.key).sort(),
        [done, failed].sort(),
      );
    } finally {
      next.dispose();
    }
  });

  test('a tracker disposed before reading them neither reads nor writes them', async () => {
    const { storage, done } = await keptByAnEarlierWindow();
    const stored = storage.value;
    storage.loads = 0;
    storage.saves = 0;
    const tracker = new TaskTracker({ connectionFor: () => undefined, storage, saveIntervalMs: 0 });
    tracker.dispose();
    tracker.restore();
    assert.equal(storage.loads, 0);
    assert.equal(storage.saves, 0);
    assert.equal(storage.value, stored);
    assert.deepEqual(tracker.snapshot(), []);
    const next = new TaskTracker({ connectionFor: () => undefined, storage, saveIntervalMs: 0 });
    try {
      assert.equal(next.get(done)?.phase, 'done', 'the next window finds them');
    } finally {
      next.dispose();
    }
  });

  test('a view made before they are read shows them once read, and counts the calls that ended before this window as ended', async () => {
    const { storage, done, failed } = await keptByAnEarlierWindow();
    storage.loads = 0;
    const ledger = new TaskLedger();
    const tracker = new TaskTracker({ connectionFor: () => undefined, storage, saveIntervalMs: 0 });
    const view = new TaskView(ledger, tracker, { coalesceMs: 0 });
    try {
      assert.equal(storage.loads, 0, 'making the view read nothing');
      tracker.restore();
      const states = Object.fromEntries(view.items().map((i) => [i.id.replace(/^sent:/, ''), i.state]));
      assert.deepEqual(Object.keys(states).sort(), [done, failed].sort());
      assert.equal(states[done], 'completed');
      assert.equal(states[failed], 'failed');
      assert.equal(view.counts().active, 0);
    } finally {
      view.dispose();
      tracker.dispose();
      ledger.dispose();
    }
  });
});
