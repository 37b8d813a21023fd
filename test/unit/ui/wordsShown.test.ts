/**
 * Words a user reads shown as meant: no "Error:" before a cancelled call's reason, no local id
 * presented as the server's taskId, a reply editor's folder readable in its breadcrumb.
 */
import '../../helpers/vscodeStub.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { errorOutcome } from '../../../src/core/base/taskOutcome.js';
import { renderTaskDocument } from '../../../src/core/view/render.js';
import type { TaskViewItem } from '../../../src/core/view/taskView.js';
import { replyFolder } from '../../../src/ui/prompts/replyEditor.js';

describe('words shown as meant', () => {
  test('a request aborted here ends with its reason as said (the SDK rejects with String(reason): "Error: …")', async () => {
    // The SDK's own rejection of an aborted request, as a real abort makes it.
    const controller = new AbortController();
    controller.abort(new Error('cancelled by the user'));
    const rejection = new SdkError(SdkErrorCode.RequestTimeout, String(controller.signal.reason));
    const o = errorOutcome(rejection);
    assert.equal(o.kind === 'error' && o.message, 'cancelled by the user');
    const timeout = errorOutcome(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out'));
    assert.equal(timeout.kind === 'error' && timeout.message, 'Request timed out', 'other messages as they are');
  });

  test('a plain call\'s document names no taskId: its local id is shown as such', () => {
    const plain: TaskViewItem = { id: 'sent:s/call-x-1', kind: 'sent', direction: 'sent', key: 's/call-x-1', serverId: 's', serverName: 'everything', taskId: 'call-x-1', title: 'echo', state: 'completed', createdAt: 0, mode: 'plain' };
    const doc = renderTaskDocument(plain);
    assert.doesNotMatch(doc, /\| taskId \|/);
    assert.match(doc, /\| call \| a plain tools\/call: the server made no task of it \|/);
    assert.match(doc, /\| local id \| call-x-1 \|/);
    const task = renderTaskDocument({ ...plain, mode: 'task', taskId: 't-9', task: { taskId: 't-9', status: 'completed', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:01Z', ttl: null } });
    assert.match(task, /\| taskId \| t-9 \|/);
    assert.doesNotMatch(task, /local id/);
  });

  test('a reply editor\'s folder is the request id made readable (the breadcrumb showed request%3Av3-2026%2Frequest-2)', () => {
    assert.equal(replyFolder('request:v3-2026/request-2', new Set()), 'request-v3-2026-request-2');
    assert.equal(replyFolder('request:v3-2026/request-2', new Set(['request-v3-2026-request-2'])), 'request-v3-2026-request-2-2', 'another request\'s folder is not shared');
    assert.equal(replyFolder('::', new Set()), 'request');
  });
});
