/**
 * A tool call needs no ledger: the connection installs only the sides it is given
 * (connection/clientSide.ts). With the requestor's task wire alone (`requestorSides`) a tool call
 * becomes a 2026-07-28 task and is followed to its end; with no side at all the connection still
 * speaks MCP and a plain call answers. Against the demo server's Tasks extension mode over stdio.
 * Needs `node esbuild.mjs` first.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { receiverOf } from '../../../src/core/receiver/wire/receiverSide.js';
import { requestorSides } from '../../../src/core/requestor/hostSides.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { MemoryLog, ROOT, textOf, waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const DEMO = resolve(ROOT, 'dist', 'demo-server.js');
const WAIT_MS = 20_000;
const TIMEOUT = { timeout: 60_000 };

const definition = (id: string): ServerDefinition => ({
  id,
  name: id,
  source: { kind: 'user', file: 'test settings' },
  transport: { type: 'stdio', command: process.execPath, args: [DEMO, '--tasks-extension'], env: { DEMO_POLL_INTERVAL_MS: '50' } },
  inputs: [],
});

describe('a tool call needs no ledger', () => {
  test("the requestor's side alone: a tool call becomes a task, declared with the Tasks extension and followed to its result", TIMEOUT, async () => {
    const connection = new McpConnection(definition('no-ledger'), { sides: requestorSides(), log: new MemoryLog(), variables: { env: process.env, workspaceFolder: ROOT } });
    const tracker = new TaskTracker({ connectionFor: () => connection, minPollIntervalMs: 10 });
    try {
      await connection.start();
      assert.equal(receiverOf(connection), undefined, 'no receiver side, so no ledger scope');
      const key = await tracker.callTool(connection, { name: 'ext_count' }, { steps: 2, stepMs: 30 });
      await waitFor(tracker.onDidChange, () => tracker.get(key)?.phase === 'done', 'the task to finish', WAIT_MS);
      const done = tracker.get(key)!;
      assert.equal(done.mode, 'task');
      assert.equal(done.task?.status, 'completed');
      // The server refuses a tasks/get that does not declare the extension (-32021): the task wire declared it on each one.
      const stats = JSON.parse(textOf(await connection.client.callTool({ name: 'ext_stats', arguments: {} }))) as { toolCalls: { declared: boolean }[] };
      assert.ok(stats.toolCalls.length >= 1 && stats.toolCalls.every((c) => c.declared), JSON.stringify(stats.toolCalls));
    } finally {
      tracker.dispose();
      connection.dispose();
    }
  });

  test('no side at all: the connection still speaks MCP, and a plain tool call answers', TIMEOUT, async () => {
    const connection = new McpConnection(definition('bare'), { log: new MemoryLog(), variables: { env: process.env, workspaceFolder: ROOT } });
    try {
      await connection.start();
      assert.deepEqual(connection.sides, []);
      assert.equal(textOf(await connection.client.callTool({ name: 'ext_echo', arguments: { text: 'hi' } })), 'echo: hi');
    } finally {
      connection.dispose();
    }
  });
});
