/** The restart backoff of a crashing server (connection/restartPolicy.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CrashHistory } from '../../../src/core/connection/restartPolicy.js';

const POLICY = { maxCrashes: 4, windowMs: 10_000, baseDelayMs: 100, maxDelayMs: 250 };

describe('CrashHistory', () => {
  it('doubles the delay per crash within the window, capped, and gives up at maxCrashes', () => {
    const h = new CrashHistory(POLICY);
    assert.deepEqual(h.record(0), { giveUp: false, failures: 1, inARow: 1, delayMs: 100 });
    assert.deepEqual(h.record(1), { giveUp: false, failures: 2, inARow: 2, delayMs: 200 });
    assert.deepEqual(h.record(2), { giveUp: false, failures: 3, inARow: 3, delayMs: 250 });
    assert.deepEqual(h.record(3), { giveUp: true, failures: 4 });
  });

  it('forgets crashes older than the window, and all of them on reset; the delay keeps growing while the server stays down', () => {
    const h = new CrashHistory(POLICY);
    h.record(0);
    h.record(1);
    assert.deepEqual(h.record(10_000), { giveUp: false, failures: 2, inARow: 3, delayMs: 250 }, 'the crash at 0 left the window, the server has not been up since');
    h.reset();
    assert.deepEqual(h.record(10_001), { giveUp: false, failures: 1, inARow: 1, delayMs: 100 });
  });

  it('told to keep trying (an HTTP server, or work on it), it never gives up and the delay stays at its cap', () => {
    const h = new CrashHistory(POLICY);
    for (let i = 0; i < 50; i++) {
      const d = h.record(i, true);
      assert.equal(d.giveUp, false, `try ${i + 1}`);
      if (!d.giveUp && i >= 2) assert.equal(d.delayMs, 250);
    }
    assert.deepEqual(h.record(51), { giveUp: true, failures: 51 }, 'without it, the window decides');
  });

  it('once the server was up, the next failure starts the delays over', () => {
    const h = new CrashHistory(POLICY);
    h.record(0, true);
    h.record(1, true);
    h.record(2, true);
    h.succeeded();
    assert.deepEqual(h.record(20_000, true), { giveUp: false, failures: 1, inARow: 1, delayMs: 100 });
  });
});
