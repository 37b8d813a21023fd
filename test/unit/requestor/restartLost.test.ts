// A task whose server restarted (and forgot it) ends as lost — an error
// naming the restart — not as "expired", and its reason carries no "MCP error -32602:" prefix.
import { afterEach, beforeEach, test } from 'node:test';
import { mock } from 'node:test';
import assert from 'node:assert/strict';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { advance } from '../../helpers/fakeTime.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every tracker, task and subscription a test makes is disposed by its end.
checkLeaks();

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
afterEach(() => mock.timers.reset());

test('a task the restarted server no longer knows ends as lost (error), with one clean reason', async () => {
  const server = new FakeTaskServer();
  server.pollInterval = 50;
  const c = server.connection(definition('demo'));
  const t = new TaskTracker({ connectionFor: (id) => (id === c.id ? c : undefined), minPollIntervalMs: 10, now: () => Date.now() });
  const key = await t.callTool(c, { name: 'work', execution: { taskSupport: 'required' } }, {});
  await advance(60);
  assert.equal(t.get(key)!.phase, 'tracking');

  // Restart: stopped (the tracker pauses), a new process that knows no task, running again.
  c.setState({ kind: 'stopped' });
  t.onServerStopped(c.id, '"demo" is stopped');
  assert.equal(t.get(key)!.phase, 'paused');
  server.tasks.clear();
  c.setState({ kind: 'running', capabilities: {} });
  await t.onServerRunning(c);
  await advance(200);

  const s = t.get(key)!;
  assert.equal(s.phase, 'error', `not expired: ${s.phase}: ${s.reason}`);
  assert.match(s.reason ?? '', /^Lost: "demo" runs as a new process, which does not know the tasks of the old one \(Task not found: /);
  assert.doesNotMatch(s.reason ?? '', /MCP error/);
  t.dispose();
});

test('without a restart, a task the server forgets is still "expired"', async () => {
  const server = new FakeTaskServer();
  server.pollInterval = 50;
  const c = server.connection(definition('demo'));
  const t = new TaskTracker({ connectionFor: (id) => (id === c.id ? c : undefined), minPollIntervalMs: 10, now: () => Date.now() });
  const key = await t.callTool(c, { name: 'work', execution: { taskSupport: 'required' } }, {});
  server.tasks.clear();
  await advance(200);
  assert.equal(t.get(key)!.phase, 'expired');
  assert.match(t.get(key)!.reason ?? '', /^The server no longer knows this task: Task not found/);
  t.dispose();
});
