/** The pickers list tasks as the tree draws them (core/view/treeOrder.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rowsInTreeOrder } from '../../../src/core/view/treeOrder.js';
import type { TaskViewItem } from '../../../src/core/view/taskView.js';

const row = (id: string, serverId: string, direction: 'sent' | 'received', parentId?: string) => ({ id, serverId, direction, parentId, title: id }) as unknown as TaskViewItem;

describe('rows in tree order', () => {
  test('per server: each sent call followed by its nested question, then the received group; servers in the given order', () => {
    const call = row('sent:a/1', 'a', 'sent');
    const question = row('received:a/q1', 'a', 'received', 'sent:a/1');
    const other = row('sent:a/2', 'a', 'sent');
    const own = row('received:a/r1', 'a', 'received');
    const b = row('sent:b/1', 'b', 'sent');
    // As TaskView answers: the nested question is no row of its group, only the call's child.
    const groups: Record<string, TaskViewItem[]> = { 'a/sent': [call, other], 'a/received': [own], 'b/sent': [b], 'b/received': [] };
    const view = { group: (s: string, d: 'sent' | 'received') => groups[`${s}/${d}`] ?? [], childrenOf: (id: string) => (id === call.id ? [question] : []) };
    const rows = rowsInTreeOrder(view, ['b', 'a']);
    assert.deepEqual(
      rows.map((r) => [r.item.id, r.group, r.parent?.id]),
      [
        ['sent:b/1', 'sent', undefined],
        ['sent:a/1', 'sent', undefined],
        // Listed under its call, in Sent, as the call's question: not first, not as "received".
        ['received:a/q1', 'sent', 'sent:a/1'],
        ['sent:a/2', 'sent', undefined],
        ['received:a/r1', 'received', undefined],
      ],
    );
  });
});
