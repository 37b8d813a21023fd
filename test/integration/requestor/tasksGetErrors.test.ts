/**
 * What the tracker does when a 2026-07-28 server refuses `tasks/get`, against the demo server's
 * Tasks extension mode (`ext_count` with `refuseGets`, examples/demo-server/tasksExtension.ts).
 * Sections: modelcontextprotocol/experimental-ext-tasks specification/draft/tasks.md.
 * - Permanent (asking again gets the same answer): HTTP 400 / -32020 HeaderMismatch
 *   (§Streamable HTTP: Routing Headers) ends the task at once, with a message naming the server
 *   and the error, and no further tasks/get.
 * - Transient: -32603 Internal error (§Task Polling: the client keeps polling) is asked again;
 *   a task whose server recovers completes.
 * Needs `node esbuild.mjs` first.
 */
import { after, describe, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import type { SentTaskSnapshot } from '../../../src/core/requestor/tracker.js';
import { extTracker } from '../../helpers/extTasks.js';
import { MemoryLog, ROOT, ScriptedResponders, httpDefinition, startHttpFixture } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const DEMO = resolve(ROOT, 'dist', 'demo-server.js');
const WAIT_MS = 20_000;
const TIMEOUT = { timeout: 60_000 };

const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill();
});

async function httpHost() {
  process.env.DEMO_POLL_INTERVAL_MS = '100';
  const { url, child } = await startHttpFixture(DEMO, ['--port', '0', '--tasks-extension'], 'demo server', WAIT_MS);
  children.push(child);
  const ledger = new TaskLedger({});
  const connection = new McpConnection(httpDefinition('ext-http', url), { sides: hostSides(ledger, new ScriptedResponders()), log: new MemoryLog(), variables: { env: process.env, workspaceFolder: ROOT } });
  await connection.start();
  const h = extTracker(connection, ledger, WAIT_MS);
  return {
    ...h,
    connection,
    /** How many tasks/get the server answered for the task (refused ones not counted). */
    gets: async (taskId: string) => (await h.stats()).tasks[taskId]!.gets.length,
  };
}

describe('requestor: tasks/get refused by a 2026-07-28 server', () => {
  test('§Streamable HTTP: Routing Headers: HTTP 400 / -32020 HeaderMismatch on tasks/get ends the task at once, naming the server and the error', TIMEOUT, async () => {
    const h = await httpHost();
    try {
      const changes: SentTaskSnapshot[] = [];
      const key = await h.call('ext_count', { steps: 50, stepMs: 200, refuseGets: 'header-mismatch' });
      h.tracker.onDidChange(() => { const s = h.tracker.get(key); if (s) changes.push(s); });
      await h.until(key, (s) => s.phase !== 'tracking' && s.phase !== 'sending', 'the task leaves tracking');
      const s = h.tracker.get(key)!;
      assert.equal(s.phase, 'error', `phase ${s.phase}: ${s.reason}`);
      assert.match(s.reason ?? '', /"ext-http"/, 'names the server');
      assert.match(s.reason ?? '', /HTTP 400/);
      assert.match(s.reason ?? '', /-32020/);
      assert.match(s.reason ?? '', /Header mismatch: Mcp-Name does not match params\.taskId of tasks\/get/);
      assert.doesNotMatch(s.reason ?? '', /\{"jsonrpc"/, 'the server\'s error, not its raw JSON body');
      // Not retried: the server was never asked again, and the task stays ended.
      assert.equal(changes.filter((c) => c.phase === 'error').length, 1);
      assert.equal(s.polls, 1, 'one tasks/get, not retried');
      assert.equal(await h.gets(s.task!.taskId), 0, 'no tasks/get got through');
      assert.equal(h.connection.state.kind, 'running', 'the connection itself is fine');
    } finally {
      h.dispose();
    }
  });

  test('§Task Polling: -32603 Internal error on tasks/get is transient: polling goes on and the task completes', TIMEOUT, async () => {
    const h = await httpHost();
    try {
      const key = await h.call('ext_count', { steps: 3, stepMs: 100, refuseGets: 'internal-error', refuseGetsCount: 2 });
      await h.until(key, (s) => s.phase === 'done' || s.phase === 'error', 'the task ends');
      const s = h.tracker.get(key)!;
      assert.equal(s.phase, 'done', `phase ${s.phase}: ${s.reason}`);
      assert.equal(s.task?.status, 'completed');
      assert.ok(s.polls >= 3, `asked again after the two refusals (${s.polls} polls)`);
    } finally {
      h.dispose();
    }
  });
});
