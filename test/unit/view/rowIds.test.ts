/** The ids of the Tasks view's rows are built and read back in one place (core/view/rowIds.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyTreeId, groupTreeId, parseRowId, receivedRowId, requestRowId, rowId, sentRowId, serverTreeId, taskTreeId, type RowIdParts } from '../../../src/core/view/rowIds.js';

describe('row ids', () => {
  test('each kind of row id reads back as what built it (a task id may hold slashes and colons)', () => {
    const parts: RowIdParts[] = [
      { kind: 'sent', key: 'srv/call-1' },
      { kind: 'received', serverId: 'srv', taskId: 't/1:2' },
      { kind: 'request', serverId: 'my-server', localId: 'request-7' },
    ];
    for (const p of parts) assert.deepEqual(parseRowId(rowId(p)), p);
    assert.equal(sentRowId('srv/call-1'), 'sent:srv/call-1');
    assert.equal(receivedRowId('srv', 't/1:2'), 'received:srv/t/1:2');
    assert.equal(requestRowId('my-server', 'request-7'), 'request:my-server/request-7');
  });

  test('anything else is no row id: a tree row, a kind unknown, a server or a key missing', () => {
    for (const id of ['', 'sent', 'sent:', 'sent:srv', 'sent:/t', 'received:srv/', 'task:srv/t', serverTreeId('srv'), groupTreeId('srv', 'sent'), emptyTreeId('srv', 'received'), 'request srv/r']) {
      assert.equal(parseRowId(id), undefined, id);
    }
  });

  test("a task's tree row changes id when it moves under a call or gains children (VS Code keeps a known row's collapse)", () => {
    const alone = taskTreeId({ id: receivedRowId('srv', 't1') }, false);
    const nested = taskTreeId({ id: receivedRowId('srv', 't1'), parentId: sentRowId('srv/c1') }, false);
    const parent = taskTreeId({ id: sentRowId('srv/c1') }, true);
    assert.equal(new Set([alone, nested, parent, taskTreeId({ id: sentRowId('srv/c1') }, false)]).size, 4);
    assert.equal(alone, 'received:srv/t1');
    // The tree's own rows never read as a task's.
    assert.notEqual(serverTreeId('srv'), groupTreeId('srv', 'sent'));
    assert.notEqual(groupTreeId('srv', 'sent'), emptyTreeId('srv', 'sent'));
  });
});
