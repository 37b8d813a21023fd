/** The task wire of a sent task in its document (core/view/render.ts) and label (taskView.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderTaskDocument } from '../../../src/core/view/render.js';
import { wireLabel, type TaskViewItem } from '../../../src/core/view/taskView.js';

const item: TaskViewItem = {
  id: 'sent:s/abc',
  kind: 'sent',
  key: 's/abc',
  direction: 'sent',
  serverId: 's',
  serverName: 'weather',
  taskId: 'abc',
  title: 'forecast',
  state: 'working',
  createdAt: 0,
  task: { taskId: 'abc', status: 'working', ttl: null, createdAt: '2026-01-01T00:00:00.000Z', lastUpdatedAt: '2026-01-01T00:00:00.000Z', pollInterval: 500 },
};

describe('task wire in the view', () => {
  test('the document names the wire of a sent task; none for a task without one', () => {
    assert.match(renderTaskDocument({ ...item, wire: '2026-07-28' }), /\| wire \| 2026-07-28 \(Tasks extension io\.modelcontextprotocol\/tasks\) \|/);
    assert.match(renderTaskDocument({ ...item, wire: '2025-11-25' }), /\| wire \| 2025-11-25 \(core tasks\) \|/);
    assert.doesNotMatch(renderTaskDocument(item), /\| wire \|/);
    assert.match(renderTaskDocument({ ...item, wire: '2026-07-28' }), /\| ttl \| unlimited \|/);
  });

  test('labels', () => {
    assert.equal(wireLabel(undefined), undefined);
    assert.equal(wireLabel('2026-07-28'), '2026-07-28 (Tasks extension io.modelcontextprotocol/tasks)');
  });
});
