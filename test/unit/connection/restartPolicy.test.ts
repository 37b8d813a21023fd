/** The restart backoff of a crashing server (connection/restartPolicy.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CrashHistory } from '../../../src/core/connection/restartPolicy.js';

const POLICY = { maxCrashes: 4, windowMs: 10_000, baseDelayMs: 100, maxDelayMs: 250 };

describe('CrashHistory', () => {
  it('doubles the delay per crash within the window, capped, and gives up at maxCrashes', () => {
    const h = new CrashHistory(POLICY);
    assert.deepEqual(h.record(0), { giveUp: false, failures: 1, delayMs: 100 });
    assert.deepEqual(h.record(1), { giveUp: false, failures: 2, delayMs: 200 });
    assert.deepEqual(h.record(2), { giveUp: false, failures: 3, delayMs: 250 });
    assert.deepEqual(h.record(3), { giveUp: true, failures: 4 });
  });

  it('forgets crashes older than the window, and all of them on reset', () => {
    const h = new CrashHistory(POLICY);
    h.record(0);
    h.record(1);
    assert.deepEqual(h.record(10_000), { giveUp: false, failures: 2, delayMs: 200 }, 'the crash at 0 left the window');
    h.reset();
    assert.deepEqual(h.record(10_001), { giveUp: false, failures: 1, delayMs: 100 });
  });
});
