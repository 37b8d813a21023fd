/**
 * The 2026-07-28 demo server's `subscriptions/listen` for task ids (Tasks extension §Task Status
 * Notifications; examples/demo-server/taskListen.ts), checked at the wire with a bare client
 * (examples/demo-server/rawClient2026.ts) over stdio and Streamable HTTP, so the host's push tests
 * can trust the server they run against. Needs `node esbuild.mjs` first.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpClient2026, stdioClient2026, type Json, type RawClient2026 } from '../../../examples/demo-server/rawClient2026.js';
import { DEMO, REV2026, startHttp2026 } from '../../helpers/rev2026.js';
import type { ChildProcess } from 'node:child_process';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const TIMEOUT = { timeout: 60_000 };
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill();
});

const clients: Array<{ name: string; make: () => Promise<RawClient2026> }> = [
  { name: 'stdio', make: async () => stdioClient2026(DEMO, REV2026, { ...process.env, DEMO_POLL_INTERVAL_MS: '50' }) },
  {
    name: 'http',
    make: async () => {
      const { url, child } = await startHttp2026();
      children.push(child);
      return httpClient2026(url);
    },
  },
];

const paramsOf = (m: Json) => m.params as Json & { _meta?: Json };

describe('demo server (2026-07-28): subscriptions/listen for task ids', () => {
  for (const { name, make } of clients) {
    test(`${name}: acknowledged first with the known task ids; each change then comes as notifications/tasks with the whole task, stamped with the subscription`, TIMEOUT, async () => {
      const c = await make();
      try {
        const created = await c.request('tools/call', { name: 'ext_ask_name', arguments: {} });
        const taskId = created.result?.taskId as string;
        assert.equal(created.result?.resultType, 'task');
        const stream = await c.listen([taskId, 'unknown-task']);
        const first = await stream.next(() => true);
        assert.equal(first.method, 'notifications/subscriptions/acknowledged', 'the acknowledgement comes first');
        assert.deepEqual(paramsOf(first).notifications, { taskIds: [taskId] }, 'only the task the server knows');
        const subscription = paramsOf(first)._meta?.[SUBSCRIPTION_ID];
        assert.ok(subscription !== undefined);
        const waiting = await stream.next((m) => paramsOf(m)?.status === 'input_required');
        assert.equal(waiting.method, 'notifications/tasks');
        assert.equal(paramsOf(waiting).taskId, taskId);
        assert.ok((paramsOf(waiting).inputRequests as Json).name, 'the input requests ride along');
        await c.request('tasks/update', { taskId, inputResponses: { name: { action: 'accept', content: { name: 'Grace' } } } });
        const done = await stream.next((m) => paramsOf(m)?.status === 'completed');
        assert.deepEqual((paramsOf(done).result as Json).content, [{ type: 'text', text: 'Hello, Grace!' }], 'the result inline');
        for (const m of stream.messages) assert.equal(paramsOf(m)?._meta?.[SUBSCRIPTION_ID], subscription, `stamped: ${JSON.stringify(m)}`);
        stream.close();
      } finally {
        await c.close();
      }
    });

    test(`${name}: a listen for task ids without the extension declared is refused with -32021`, TIMEOUT, async () => {
      const c = await make();
      try {
        const stream = await c.listen(['any'], { declareTasks: false });
        const refusal = await stream.next(() => true);
        assert.equal((refusal.error as { code?: number } | undefined)?.code, -32021, JSON.stringify(refusal));
        stream.close();
      } finally {
        await c.close();
      }
    });
  }
});
