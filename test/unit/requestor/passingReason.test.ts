/** A passing trouble's reason is cleared by the step that ends it, and only while it is still shown (requestor/passingReason.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clearPassingReason, setPassingReason } from '../../../src/core/requestor/passingReason.js';
import type { SentRecord } from '../../../src/core/requestor/sentRecord.js';

const record = () => ({ key: 's/t1' }) as unknown as SentRecord;

describe('passing reasons', () => {
  test('the trouble that set it clears it; another kind leaves it', () => {
    const rec = record();
    setPassingReason(rec, 'result-retry', 'tasks/result failed (x); trying again in 0.5 s');
    clearPassingReason(rec, 'cancel-pending');
    assert.equal(rec.reason, 'tasks/result failed (x); trying again in 0.5 s');
    clearPassingReason(rec, 'result-retry');
    assert.equal(rec.reason, undefined);
    assert.equal(rec.passingReason, undefined);
  });

  test('a reason set since (the task was lost, say) stays when the trouble ends', () => {
    const rec = record();
    setPassingReason(rec, 'cancel-pending', 'Cancel requested: tasks/cancel goes out when "demo" is connected again.');
    rec.reason = 'Lost: the server runs as a new process';
    clearPassingReason(rec, 'cancel-pending');
    assert.equal(rec.reason, 'Lost: the server runs as a new process');
    assert.equal(rec.passingReason, undefined);
  });
});
