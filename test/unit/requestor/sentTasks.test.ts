/** The tracker's set of sent tasks (requestor/sentTasks.ts): adding, re-keying and forgetting tasks, and what each tells. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SentRecord } from '../../../src/core/requestor/sentRecord.js';
import { SentTasks } from '../../../src/core/requestor/sentTasks.js';
import type { SentTaskChange } from '../../../src/core/requestor/trackerTypes.js';
import type { SentTaskRemoval } from '../../../src/core/requestor/removal.js';
import { checkLeaks } from '../../helpers/leaks.js';

const record = (key: string): SentRecord => ({ key, serverId: 's', serverName: 'S', toolName: 't', argsSummary: '', mode: 'task', origin: 'local', sentAt: 0, phase: 'done', polls: 0, resultFetches: 0 });

function setUp() {
  const forgotten: string[] = [];
  let slots = 0;
  const tasks = new SentTasks({ connectionFor: () => undefined }, { forgotten: (t) => void forgotten.push(t.key), slotMayHaveFreed: () => void slots++ });
  const changes: SentTaskChange[] = [];
  const removals: SentTaskRemoval[] = [];
  tasks.onDidChange((c) => void changes.push(c));
  tasks.onDidRemove((r) => void removals.push(r));
  return { tasks, changes, removals, forgotten, slots: () => slots };
}

describe('the set of sent tasks', () => {
  checkLeaks();

  test('added, re-keyed (out and back under the new key, naming the old), then forgotten with one removal naming why', () => {
    const { tasks, changes, removals, forgotten, slots } = setUp();
    const a = tasks.create(record('s/call-1'));
    tasks.add(a);
    tasks.takeOut(a);
    a.record.key = 's/t1';
    tasks.add(a, 's/call-1');
    tasks.add(tasks.create(record('s/t2')));
    assert.equal(tasks.get('s/call-1'), undefined);
    assert.equal(tasks.get('s/t1'), a);
    tasks.drop([...tasks.all()], 'cleared');
    assert.deepEqual(changes, [
      { key: 's/call-1', kind: 'added' },
      { key: 's/call-1', kind: 'removed' },
      { key: 's/t1', kind: 'added', from: 's/call-1' },
      { key: 's/t2', kind: 'added' },
      { key: 's/t1', kind: 'removed' },
      { key: 's/t2', kind: 'removed' },
    ]);
    assert.deepEqual(removals, [{ keys: ['s/t1', 's/t2'], reason: 'cleared' }]);
    assert.deepEqual(forgotten, ['s/t1', 's/t2'], 'the send queue hears of each');
    assert.equal(tasks.size, 0);
    assert.ok(slots() >= 4);
    tasks.dispose();
  });

  test('a task read from storage is kept without a change; an unknown key is an InvalidParams error', () => {
    const { tasks, changes } = setUp();
    tasks.restore(record('s/t1'));
    assert.equal(tasks.size, 1);
    assert.deepEqual(changes, []);
    assert.throws(() => tasks.require('s/nope'), /No sent task with key s\/nope/);
    tasks.dispose();
  });
});
