/** A passing trouble's reason is cleared by the step that ends it, and only while it is still shown (requestor/sentTask.ts `setPassing`, `clearPassing`). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sentTask } from '../../helpers/sentTaskFixture.js';

const record = () => sentTask({}).sent;

describe('passing reasons', () => {
  test('the trouble that set it clears it; another kind leaves it', () => {
    const rec = record();
    rec.setPassing('result-retry', 'tasks/result failed (x); trying again in 0.5 s');
    rec.clearPassing('cancel-pending');
    assert.equal(rec.record.reason, 'tasks/result failed (x); trying again in 0.5 s');
    rec.clearPassing('result-retry');
    assert.equal(rec.record.reason, undefined);
    assert.equal(rec.record.passingReason, undefined);
  });

  test('a reason set since (the task was lost, say) stays when the trouble ends', () => {
    const rec = record();
    rec.setPassing('cancel-pending', 'Cancel requested: tasks/cancel goes out when "demo" is connected again.');
    rec.record.reason = 'Lost: the server runs as a new process';
    rec.clearPassing('cancel-pending');
    assert.equal(rec.record.reason, 'Lost: the server runs as a new process');
    assert.equal(rec.record.passingReason, undefined);
  });
});
