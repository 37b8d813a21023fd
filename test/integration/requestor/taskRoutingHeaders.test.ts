/**
 * The Tasks extension's routing header over Streamable HTTP, end to end against the demo server
 * (`--http --tasks-extension`, which answers a 2026-07-28 tasks/get|update|cancel without a
 * matching `Mcp-Name` with HTTP 400 and HeaderMismatch -32020). Section:
 * modelcontextprotocol/experimental-ext-tasks specification/draft/tasks.md §Streamable HTTP:
 * Routing Headers ("the client MUST set the Mcp-Name header to the value of params.taskId").
 * Needs `node esbuild.mjs` first.
 */
import { after, describe, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker, type SentTaskSnapshot } from '../../../src/core/requestor/tracker.js';
import { MemoryLog, ROOT, ScriptedResponders, httpDefinition, startHttpFixture, waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const DEMO = resolve(ROOT, 'dist', 'demo-server.js');
const WAIT_MS = 20_000;
const TIMEOUT = { timeout: 60_000 };
const CAPS = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill();
});

/** A raw Streamable HTTP session (no SDK client, so no header is added for us). */
async function rawSession(url: string) {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
  });
  assert.equal(init.status, 200);
  const sessionId = init.headers.get('mcp-session-id')!;
  await init.text();
  return (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { ...base, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
}

describe('requestor: Tasks extension routing header over Streamable HTTP (§Streamable HTTP: Routing Headers)', () => {
  test('tasks/get, tasks/update and tasks/cancel from the extension carry Mcp-Name = taskId; the server refuses them without it (400, -32020)', TIMEOUT, async () => {
    process.env.DEMO_POLL_INTERVAL_MS = '100';
    const { url, child } = await startHttpFixture(DEMO, ['--port', '0', '--tasks-extension'], 'demo server', WAIT_MS);
    children.push(child);
    const ledger = new TaskLedger({});
    const responders = new ScriptedResponders();
    const connection = new McpConnection(httpDefinition('ext-http', url), { sides: hostSides(ledger, responders), log: new MemoryLog(), variables: { env: process.env, workspaceFolder: ROOT } });
    const tracker = new TaskTracker({ connectionFor: () => connection, minPollIntervalMs: 10 });
    const until = (key: string, check: (s: SentTaskSnapshot) => boolean, what: string) =>
      waitFor(tracker.onDidChange, () => { const s = tracker.get(key); return !!s && check(s); }, what, WAIT_MS);
    try {
      await connection.start();
      // tasks/get + tasks/update: the input-needing tool completes through our client.
      responders.elicitImpl = async () => ({ action: 'accept', content: { name: 'Luca' } });
      const asked = await tracker.callTool(connection, { name: 'ext_ask_name' }, {});
      await until(asked, (s) => s.phase === 'done', 'ext_ask_name done');
      assert.equal(tracker.get(asked)?.task?.status, 'completed');
      // tasks/cancel: acknowledged, the task ends cancelled.
      const counting = await tracker.callTool(connection, { name: 'ext_count' }, { steps: 50, stepMs: 200 });
      await until(counting, (s) => s.task?.status === 'working', 'ext_count working');
      const taskId = tracker.get(counting)!.task!.taskId;
      await tracker.cancel(counting);
      await until(counting, (s) => s.phase === 'done', 'ext_count done');
      assert.equal(tracker.get(counting)?.task?.status, 'cancelled');

      // The same requests without the header (a client ignoring the rule) are refused.
      const send = await rawSession(url);
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        const params = { taskId, ...(method === 'tasks/update' ? { inputResponses: {} } : {}), _meta: CAPS };
        const missing = await send(method, params);
        assert.equal(missing.status, 400, method);
        const body = (await missing.json()) as { id: unknown; error: { code: number; message: string } };
        assert.equal(body.error.code, -32020, method);
        assert.equal(body.id, 7);
        assert.match(body.error.message, /Mcp-Name/);
        const wrong = await send(method, params, { 'mcp-name': 'another-task' });
        assert.equal(wrong.status, 400, `${method} with a wrong Mcp-Name`);
        await wrong.body?.cancel();
      }
      const right = await send('tasks/get', { taskId, _meta: CAPS }, { 'mcp-name': taskId, 'mcp-method': 'tasks/get' });
      assert.equal(right.status, 200);
      assert.match(await right.text(), new RegExp(taskId));
    } finally {
      tracker.dispose();
      connection.dispose();
      ledger.dispose();
    }
  });
});
