/**
 * A finished task's clock stops at its real end, and its tooltip's status is its row's state:
 * a call that ended with its window (closed cleanly, or crashed), an expired task, a lost one, and
 * a record stored before ends were recorded. Fake time: the tracker's clock and Date are ours.
 */
import { afterEach, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import type { TrackerStorage } from '../../../src/core/requestor/trackerStore.js';
import { toSnapshot } from '../../../src/core/requestor/sentRecord.js';
import { sentItem } from '../../../src/core/view/taskViewItem.js';
import { elapsedMs, endedAt, serverStatusBeside } from '../../../src/core/view/rowText.js';
import { renderTaskDocument } from '../../../src/core/view/render.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { T0, storedTask } from '../../helpers/storedTasks.js';
import { advance, flush } from '../../helpers/fakeTime.js';

class Memento implements TrackerStorage {
  constructor(public value: unknown = undefined) {}
  load() {
    return this.value;
  }
  save(data: string) {
    this.value = data;
  }
}

const MIN = 60_000;
afterEach(() => mock.timers.reset());

describe('a finished task’s clock stops at its real end', () => {
  test('a plain call in flight when its window closes: its row stops at the close (1m 36s), in the next window and the one after', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: T0 });
    const storage = new Memento();
    const server = new FakeTaskServer();
    const connection = server.connection(definition('srv'));
    const before = new TaskTracker({ connectionFor: () => connection, storage, now: () => Date.now(), saveIntervalMs: 0 });
    // A plain call's promise is its answer, which never comes: it ends with the window.
    void before.callTool(connection, { name: 'echo' }, { n: 1 }, { mode: 'plain' }).catch(() => undefined);
    await flush();
    const key = before.snapshot()[0]!.key;
    assert.equal(server.plainCalls.length, 1, 'the call is in flight');
    await advance(96_000, 1000);
    await before.windowClosing();
    before.dispose();
    server.dispose();

    await advance(25 * MIN, MIN);
    const after = new TaskTracker({ connectionFor: () => undefined, storage, now: () => Date.now(), saveIntervalMs: 0 });
    const s = after.get(key)!;
    assert.equal(s.phase, 'error');
    const item = sentItem(s);
    assert.equal(elapsedMs(item, Date.now()), 96_000, 'stopped at the close, not counting on to 26m');
    await after.flush();
    after.dispose();
    await advance(10 * MIN, MIN);
    const third = new TaskTracker({ connectionFor: () => undefined, storage, now: () => Date.now(), saveIntervalMs: 0 });
    assert.equal(elapsedMs(sentItem(third.get(key)!), Date.now()), 96_000, 'the same end in every later window');
    third.dispose();
  });

  test('a call in flight when its window crashed (no close stamped): its clock stops when the next window loads it, and stays there', async () => {
    const rec = { ...storedTask(1, { phase: 'sending', sentAt: T0 }), mode: 'plain' as const, task: undefined };
    const storage = new Memento({ version: 2, tasks: [rec] });
    let now = T0 + 26 * MIN;
    const after = new TaskTracker({ connectionFor: () => undefined, storage, now: () => now, saveIntervalMs: 0 });
    assert.equal(elapsedMs(sentItem(after.get('s/t1')!), now + 5 * MIN), 26 * MIN);
    await after.flush();
    after.dispose();
    now += 60 * MIN;
    const third = new TaskTracker({ connectionFor: () => undefined, storage, now: () => now, saveIntervalMs: 0 });
    assert.equal(elapsedMs(sentItem(third.get('s/t1')!), now), 26 * MIN, 'its end was written back');
    third.dispose();
  });

  test('an expired task (the server forgot it while it still said "working" at 2 s): its row shows how long it lived, not 2s', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: T0 });
    const server = new FakeTaskServer();
    server.pollInterval = 1000;
    const connection = server.connection(definition('srv'));
    const tracker = new TaskTracker({ connectionFor: () => connection, now: () => Date.now(), minPollIntervalMs: 1000 });
    try {
      const key = await tracker.callTool(connection, { name: 'research', execution: { taskSupport: 'required' } }, { topic: 'q' });
      await advance(2000, 100);
      server.notify('t1', { statusMessage: 'still at it' });
      await advance(5 * MIN, 1000);
      assert.notEqual(tracker.get(key)?.phase, 'expired');
      server.tasks.delete('t1');
      await advance(3000, 100);
      const s = tracker.get(key)!;
      assert.equal(s.phase, 'expired');
      const item = sentItem(s);
      const lived = elapsedMs(item, Date.now() + 10 * MIN);
      assert.ok(lived >= 5 * MIN && lived <= 5 * MIN + 6000, `lived ${lived} ms`);
      assert.equal(serverStatusBeside(item), 'working', "the server's last word, beside the row's state");
    } finally {
      tracker.dispose();
      server.dispose();
    }
  });

  test('a lost task (the server restarted) ends when it was found lost; its tooltip status is the row’s, the server’s "working" beside it', () => {
    const rec = { ...storedTask(1, { phase: 'error', sentAt: T0, lastUpdatedAt: T0 + 2000, finishedAt: T0 + 96_000 }), reason: 'Lost: "S" runs as a new process' };
    const item = sentItem(toSnapshot(rec));
    assert.equal(item.state, 'error');
    assert.equal(endedAt(item), T0 + 96_000);
    assert.equal(elapsedMs(item, T0 + 26 * MIN), 96_000, 'not "2s" (its last update), not counting on');
    assert.equal(serverStatusBeside(item), 'working');
    const doc = renderTaskDocument(item);
    assert.match(doc, /\| status \| error \|/, 'its document says what its row says');
    assert.match(doc, /\| last status from the server \| working \|/);
  });

  test('a completed task ends at the server’s last change even when it was seen later (polled after a reload)', () => {
    const rec = storedTask(1, { phase: 'done', sentAt: T0, lastUpdatedAt: T0 + 96_000, finishedAt: T0 + 26 * MIN });
    const item = sentItem(toSnapshot(rec));
    assert.equal(elapsedMs(item, T0 + 60 * MIN), 96_000);
    assert.equal(serverStatusBeside(item), undefined, 'completed agrees with its row');
    // Another clock far off (its last change before the call was sent here): this host's end.
    const skewed = sentItem(toSnapshot(storedTask(2, { phase: 'done', sentAt: T0, lastUpdatedAt: T0 - 10 * MIN, finishedAt: T0 + 5000 })));
    assert.equal(elapsedMs(skewed, T0 + 60 * MIN), 5000);
  });

  test('a record stored before ends were recorded: its last change stands for its end (a fixed clock, never a running one)', () => {
    const expired = sentItem(toSnapshot(storedTask(1, { phase: 'expired', sentAt: T0, lastUpdatedAt: T0 + 40_000 })));
    assert.equal(elapsedMs(expired, T0 + 60 * MIN), 40_000);
    const plain = sentItem(toSnapshot({ ...storedTask(2, { phase: 'error', sentAt: T0 }), mode: 'plain', task: undefined }));
    assert.equal(elapsedMs(plain, T0 + 60 * MIN), 0, 'no witness but its start: 0s, not an hour and counting');
  });
});
