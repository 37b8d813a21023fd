/**
 * A task the user started that fails, expires or is given up says so once (src/ui/view/taskEnds.ts,
 * `vscode` faked): one notification when it ends in this window, none again in the next window
 * (its end was seen already), none for an end the user chose, a chat agent's task or a listed one.
 */
import '../../helpers/vscodeStub.js';
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import type { TrackerStorage } from '../../../src/core/requestor/trackerStore.js';
import { TaskEndSignals } from '../../../src/ui/view/taskEnds.js';
import { fake } from '../../helpers/vscodeFake.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { waitFor } from '../../helpers/host.js';

afterEach(() => fake.reset());

class Memento implements TrackerStorage {
  value: unknown;
  load() {
    return this.value;
  }
  save(data: string) {
    this.value = data;
  }
}

const warnings = () => fake.messages.filter((m) => m.severity === 'warning');
const tool = { name: 'research', execution: { taskSupport: 'required' as const } };

describe('a task that ends badly says so once', () => {
  test('failed, then expired: one notification each, with Open; after a reload, none again', async () => {
    const storage = new Memento();
    const server = new FakeTaskServer();
    server.pollInterval = 10;
    const connection = server.connection(definition('everything'));
    const tracker = new TaskTracker({ connectionFor: () => connection, storage, minPollIntervalMs: 10, saveIntervalMs: 0 });
    const ends = new TaskEndSignals(tracker);
    try {
      const failing = await tracker.callTool(connection, tool, { topic: 'a' });
      const expiring = await tracker.callTool(connection, tool, { topic: 'b' });
      const done = await tracker.callTool(connection, tool, { topic: 'c' });
      const cancelled = await tracker.callTool(connection, tool, { topic: 'd' });
      const byChat = await tracker.callTool(connection, tool, { topic: 'e' }, { startedBy: 'chat' });
      assert.equal(warnings().length, 0, 'nothing while they run');
      // The server's words in the notice are plain text: its link is no link.
      Object.assign(server.tasks.get('t1')!.task, { statusMessage: 'quota exceeded: [Fix it](command:workbench.action.terminal.sendSequence)' });
      server.set('t1', 'failed', { content: [{ type: 'text', text: 'quota exceeded' }], isError: true });
      server.tasks.delete('t2');
      server.set('t3', 'completed');
      await tracker.cancel(cancelled);
      server.set('t5', 'failed');
      await waitFor(tracker.onDidChange, () => [failing, expiring, done, cancelled, byChat].every((k) => ['done', 'expired', 'error'].includes(tracker.get(k)?.phase ?? '')), 'all ended');
      await waitFor(tracker.onDidChange, () => tracker.get(failing)?.outcome !== undefined, 'its result');
      const told = warnings()
        .map((m) => m.message)
        .sort();
      assert.equal(told.length, 2, told.join('\n'));
      assert.equal(told[0], 'MCP Tasks: "research" on "everything" expired: The server no longer knows this task: Task not found: t2');
      assert.ok(told[1]!.startsWith('MCP Tasks: "research" on "everything" failed: quota exceeded: [Fix it]'), told[1]);
      assert.doesNotMatch(told[1]!, /\]\(command:/, 'no working command link');
      assert.ok(warnings().every((m) => m.items.includes('Open')));
      assert.equal(ends.shown.length, 2, 'completed, cancelled by the user and the chat agent’s task: not told');
      // Later updates of an ended task (its result fetched) tell nothing new.
      const count = warnings().length;
      await tracker.flush();
      ends.dispose();
      tracker.dispose();
      // The next window: the same ends, loaded from storage, are not told again.
      const after = new TaskTracker({ connectionFor: () => undefined, storage, saveIntervalMs: 0 });
      const again = new TaskEndSignals(after);
      // An ended task changes again in the new window (as a fetched result or a note would change it).
      let updates = 0;
      const sub = after.onDidChange(() => updates++);
      after._task(failing)!.changed();
      after._task(expiring)!.changed();
      sub.dispose();
      assert.equal(updates, 2);
      assert.equal(warnings().length, count, 'not again after a reload');
      again.dispose();
      after.dispose();
    } finally {
      ends.dispose();
      tracker.dispose();
      server.dispose();
    }
  });

  test('a question asked before a reload that the server went on without: told once, with its reason', async () => {
    const storage = new Memento();
    const server = new FakeTaskServer();
    const connection = server.connection(definition('everything'));
    const first = new TaskTracker({ connectionFor: () => connection, storage, minPollIntervalMs: 10, saveIntervalMs: 0 });
    const key = await first.callTool(connection, tool, { topic: 'a' });
    server.set('t1', 'input_required');
    await waitFor(first.onDidChange, () => first.get(key)?.task?.status === 'input_required', 'input_required');
    const sent = first._task(key)!;
    sent.record.openQuestion = { id: 3, method: 'elicitation/create', params: { message: 'Which?' }, askedAt: 1 };
    sent.changed();
    await first.flush();
    first.dispose();
    // The next window: the server is in a new session (the fake reports a new process), so nobody can take the answer.
    const second = new TaskTracker({ connectionFor: () => connection, storage, minPollIntervalMs: 10, saveIntervalMs: 0 });
    const ends = new TaskEndSignals(second);
    try {
      await second.onServerRunning(connection);
      assert.equal(second.get(key)?.questionDropped?.kind, 'new-session');
      const told = warnings().map((m) => m.message);
      assert.deepEqual(told, ['MCP Tasks: "research" on "everything" went on without your answer to its question asked before the reload: the server is in a new session, and the question belonged to the old one.']);
      assert.ok(warnings()[0]!.items.includes('Open'));
      second._task(key)!.changed();
      assert.equal(warnings().length, 1, 'once');
      await second.flush();
      ends.dispose();
      second.dispose();
      const third = new TaskTracker({ connectionFor: () => undefined, storage, saveIntervalMs: 0 });
      const again = new TaskEndSignals(third);
      third._task(key)!.changed();
      assert.equal(warnings().length, 1, 'not again in the next window');
      again.dispose();
      third.dispose();
    } finally {
      ends.dispose();
      second.dispose();
      server.dispose();
    }
  });
});
