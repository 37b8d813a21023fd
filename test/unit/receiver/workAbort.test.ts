/**
 * The lazily made abort signal of a received task's work (receiver/workAbort.ts, serverTasks
 * `runWith`): R-CANCEL-2 still aborts the work, whether it asked for its signal before or after.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Result } from '@modelcontextprotocol/sdk/types.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { WorkAbort } from '../../../src/core/receiver/workAbort.js';
import { checkLeaks } from '../../helpers/leaks.js';

const request = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };

describe('WorkAbort', () => {
  it('aborted before anyone asked: the signal, asked for later, is already aborted with that reason', () => {
    const a = new WorkAbort();
    const reason = new Error('cancelled');
    a.abort(reason);
    a.abort(new Error('second'));
    assert.equal(a.signal.aborted, true);
    assert.equal(a.signal.reason, reason);
  });

  it('asked for first: the same signal every time, aborted (once) by abort()', () => {
    const a = new WorkAbort();
    const s = a.signal;
    assert.equal(a.signal, s);
    let fired = 0;
    s.addEventListener('abort', () => fired++);
    a.abort('why');
    a.abort('again');
    assert.equal(fired, 1);
    assert.equal(s.reason, 'why');
  });
});

describe('ServerTasks.runWith (R-CANCEL-2)', () => {
  checkLeaks();

  it('a cancel reaches work that reads its signal only after the cancel', async () => {
    const ledger = new TaskLedger();
    const s = ledger.forServer('srv', 'srv');
    const t = await s.createTask({ ttl: 60_000 }, 1, request);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let sawAborted: boolean | undefined;
    s.runWith(t.taskId, async (w) => {
      await gate;
      sawAborted = w.signal.aborted;
      return { content: [] } as Result;
    });
    s.cancel(t.taskId, 'user cancelled');
    release();
    await new Promise((r) => setImmediate(r));
    assert.equal(sawAborted, true);
    assert.equal(s.get(t.taskId)?.task.status, 'cancelled');
    ledger.dispose();
  });

  it('work that never reads its signal completes the task as before', async () => {
    const ledger = new TaskLedger();
    const s = ledger.forServer('srv', 'srv');
    const t = await s.createTask({ ttl: 60_000 }, 1, request);
    s.runWith(t.taskId, async () => ({ content: [{ type: 'text', text: 'ok' }] }) as Result);
    await s.whenTerminal(t.taskId, new AbortController().signal);
    assert.equal(s.get(t.taskId)?.task.status, 'completed');
    ledger.dispose();
  });
});
