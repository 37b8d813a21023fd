import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter } from '../../../src/core/receiver/rateLimiter.js';

describe('RateLimiter (R-SEC-3 token bucket)', () => {
  test('starts full, refuses once the burst is spent, refills at the sustained rate up to the burst', () => {
    let now = 5_000;
    const limits = { ratePerSecond: 10, burst: 3 };
    const r = new RateLimiter(() => now, () => limits);
    assert.deepEqual([r.take(), r.take(), r.take(), r.take()], [true, true, true, false]);
    assert.equal(r.spent, 3, 'a refused take spends nothing');
    now += 100; // +1 token
    assert.deepEqual([r.take(), r.take()], [true, false]);
    now += 60_000; // refills to the burst, never beyond
    assert.deepEqual([r.take(), r.take(), r.take(), r.take()], [true, true, true, false]);
    assert.equal(r.spent, 7);
  });

  test('changed limits apply at the next take', () => {
    let now = 0;
    let limits = { ratePerSecond: 1, burst: 1 };
    const r = new RateLimiter(() => now, () => limits);
    assert.equal(r.take(), true);
    assert.equal(r.take(), false);
    limits = { ratePerSecond: 1000, burst: 1000 };
    now += 10; // 10 tokens at the new rate
    for (let i = 0; i < 10; i++) assert.equal(r.take(), true, `take ${i}`);
    assert.equal(r.take(), false);
  });

  test('a clock that goes backwards neither refills nor drains the bucket', () => {
    let now = 10_000;
    const r = new RateLimiter(() => now, () => ({ ratePerSecond: 10, burst: 2 }));
    assert.equal(r.take(), true);
    now = 0;
    assert.equal(r.take(), true, 'the remaining token is still there');
    assert.equal(r.take(), false);
    now = 10_000 + 100; // time is measured from the latest reading, not the backwards one
    assert.equal(r.take(), true);
  });
});
