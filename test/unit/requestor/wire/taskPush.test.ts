/**
 * Push for sent tasks (requestor/wire/taskPush.ts): one `subscriptions/listen` stream with the
 * tracked task ids (specification/draft/tasks.md §Task Status Notifications), replaced when the set
 * changes, opened again after the server drops it, and given up on when the server refuses it.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { McpSubscription } from '@modelcontextprotocol/client';
import { ProtocolError } from '../../../../src/core/base/errors.js';
import type { HostClient } from '../../../../src/core/connection/hostClient.js';
import { TaskPush } from '../../../../src/core/requestor/wire/taskPush.js';
import { MemoryLog } from '../../../helpers/host.js';
import { advance, flush } from '../../../helpers/fakeTime.js';
import { checkLeaks } from '../../../helpers/leaks.js';

interface Stream {
  readonly taskIds: readonly string[];
  closedByHost: boolean;
  end(cause: 'graceful' | 'remote'): void;
}

function fakeClient(refuse?: ProtocolError) {
  const streams: Stream[] = [];
  const client = {
    listen: async (filter: { taskIds?: string[] }): Promise<McpSubscription> => {
      if (refuse) throw refuse;
      let settle!: (c: 'local' | 'graceful' | 'remote') => void;
      const closed = new Promise<'local' | 'graceful' | 'remote'>((r) => (settle = r));
      const stream: Stream = { taskIds: [...(filter.taskIds ?? [])], closedByHost: false, end: (c) => settle(c) };
      streams.push(stream);
      return {
        honoredFilter: {},
        closed,
        close: async () => {
          stream.closedByHost = true;
          settle('local');
        },
      };
    },
  };
  return { client: client as unknown as HostClient, streams };
}

describe('TaskPush', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'] }));
  afterEach(() => mock.timers.reset());
  checkLeaks();

  it('tasks watched in one turn share one stream; a change opens a new one before closing the old', async () => {
    const { client, streams } = fakeClient();
    const push = new TaskPush(client, new MemoryLog());
    push.watch('a');
    push.watch('b');
    push.watch('a');
    await flush();
    assert.deepEqual(streams.map((s) => s.taskIds), [['a', 'b']]);
    push.unwatch('a');
    push.watch('c');
    await flush();
    assert.deepEqual(streams.map((s) => s.taskIds), [['a', 'b'], ['b', 'c']]);
    assert.equal(streams[0]!.closedByHost, true, 'the old stream is closed');
    assert.equal(streams[1]!.closedByHost, false);
    assert.deepEqual([...push.streaming], ['b', 'c']);
    push.unwatch('b');
    push.unwatch('c');
    await flush();
    assert.equal(streams.length, 2, 'no stream for no task');
    assert.equal(streams[1]!.closedByHost, true);
    push.dispose();
  });

  it('a stream the server drops is opened again with the same tasks, after a delay that grows', async () => {
    const { client, streams } = fakeClient();
    const log = new MemoryLog();
    const push = new TaskPush(client, log);
    push.watch('t');
    await flush();
    streams[0]!.end('remote');
    await flush();
    assert.equal(streams.length, 1, 'not at once');
    await advance(1_000, 100);
    assert.deepEqual(streams.map((s) => s.taskIds), [['t'], ['t']]);
    streams[1]!.end('graceful');
    await flush();
    await advance(1_000, 100);
    assert.equal(streams.length, 2, 'the second reopen waits longer');
    await advance(1_000, 100);
    assert.equal(streams.length, 3);
    assert.ok(log.lines.some((l) => /task status stream ended \(it dropped\)/.test(l)));
    push.dispose();
    assert.equal(streams[2]!.closedByHost, true, 'dispose closes it');
  });

  it('a server that refuses the stream (-32601, -32021) is not asked again: its tasks are polled', async () => {
    for (const code of [-32601, -32021]) {
      let listens = 0;
      const { client } = fakeClient(new ProtocolError(code, 'no'));
      const counting = { listen: (f: never) => (listens++, client.listen(f)) } as unknown as HostClient;
      const log = new MemoryLog();
      const push = new TaskPush(counting, log);
      push.watch('x');
      await flush();
      push.watch('y');
      await advance(5_000, 500);
      assert.equal(listens, 1, String(code));
      assert.equal(push.refused, true);
      assert.ok(log.lines.some((l) => /does not push task status/.test(l)));
      push.dispose();
    }
  });
});
