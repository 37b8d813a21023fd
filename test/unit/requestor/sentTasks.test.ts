/** The tracker's set of sent tasks (requestor/sentTasks.ts): adding, finding by the server's task id, moving and forgetting tasks, and what each tells. */
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

  test('added, found by the task id its server names once named, moved to another server id under the same key, then forgotten with one removal naming why', () => {
    const { tasks, changes, removals, forgotten, slots } = setUp();
    const a = tasks.create({ ...record('s/call-1'), phase: 'sending' });
    tasks.add(a);
    assert.equal(tasks.byTaskId('s', 't1'), undefined, 'not named yet');
    a.named({ taskId: 't1', status: 'working', createdAt: '', lastUpdatedAt: '', ttl: null });
    assert.equal(a.key, 's/call-1', 'the key stays when the server names the task');
    assert.equal(tasks.byTaskId('s', 't1'), a);
    tasks.moveServer(a, 's2');
    assert.equal(a.key, 's/call-1', 'and when its server id moves');
    assert.equal(tasks.byTaskId('s', 't1'), undefined);
    assert.equal(tasks.byTaskId('s2', 't1'), a);
    tasks.add(tasks.create(record('s/t2')));
    assert.equal(tasks.get('s/call-1'), a);
    tasks.drop([...tasks.all()], 'cleared');
    assert.equal(tasks.byTaskId('s2', 't1'), undefined, 'a forgotten task is not found by its id either');
    assert.deepEqual(changes, [
      { key: 's/call-1', kind: 'added' },
      { key: 's/call-1', kind: 'updated', named: true },
      { key: 's/call-1', kind: 'updated' },
      { key: 's/t2', kind: 'added' },
      { key: 's/call-1', kind: 'removed' },
      { key: 's/t2', kind: 'removed' },
    ]);
    assert.deepEqual(removals, [{ keys: ['s/call-1', 's/t2'], reason: 'cleared' }]);
    assert.deepEqual(forgotten, ['s/call-1', 's/t2'], 'the send queue hears of each');
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
