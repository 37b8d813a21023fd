/**
 * The demo server printed `MaxListenersExceededWarning: … 11 abort listeners
 * added to [AbortSignal]` while a task's tasks/result waited (the SDK's wait adds one listener per
 * poll interval to the request's signal; examples/demo-server/taskWaitFix.ts bounds it). Runs the
 * bundled demo server with a 5 ms pollInterval, so one tasks/result spans dozens of polls.
 */
import { after, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { MemoryLog, ROOT, ScriptedResponders, stdioDefinition } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const ledger = new TaskLedger();
after(() => ledger.dispose());

test('a tasks/result that waits through many polls leaves no abort listeners behind on the demo server', async () => {
  const log = new MemoryLog();
  const def = stdioDefinition('demo', process.execPath, [join(ROOT, 'dist', 'demo-server.js')]);
  const c = new McpConnection(
    { ...def, transport: { ...def.transport, env: { DEMO_POLL_INTERVAL_MS: '5' } } as typeof def.transport },
    { sides: hostSides(ledger, new ScriptedResponders()), log, variables: { env: process.env } },
  );
  try {
    await c.start();
    const created = await c.client.request(
      { method: 'tools/call', params: { name: 'long_build', arguments: { steps: 8, stepMs: 50 }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    // Blocks until the task is done: ~400 ms at a 5 ms pollInterval is ~80 waits on one request.
    const result = await c.client.request({ method: 'tasks/result', params: { taskId: created.task.taskId } }, CallToolResultSchema);
    assert.equal(result.isError ?? false, false);
    await c.client.ping();
    await c.stop();
    const stderr = log.lines.filter((l) => l.includes('[stderr]'));
    assert.ok(stderr.some((l) => l.includes('ready on stdio')), 'the demo server logged to stderr (so a warning would have been seen)');
    assert.ok(!stderr.some((l) => /MaxListenersExceededWarning|memory leak/.test(l)), `no listener warning:\n${stderr.join('\n')}`);
  } finally {
    c.dispose();
  }
});
