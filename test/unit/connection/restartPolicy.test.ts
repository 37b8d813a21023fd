/** The restart backoff of a crashing server (connection/restartPolicy.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CrashHistory, formatDelay, RestartScheduler } from '../../../src/core/connection/restartPolicy.js';
import { checkLeaks } from '../../helpers/leaks.js';

const POLICY = { maxCrashes: 4, windowMs: 10_000, baseDelayMs: 100, maxDelayMs: 250, stableMs: 5_000 };

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

  it('once the server stayed up for stableMs, the next failure starts the delays over', () => {
    const h = new CrashHistory(POLICY);
    h.record(0, true);
    h.record(1, true);
    h.record(2, true);
    h.succeeded(10);
    assert.deepEqual(h.record(20_000, true), { giveUp: false, failures: 1, inARow: 1, delayMs: 100 });
  });

  it('a server that comes up and crashes again before stableMs keeps the delay it had reached, and it grows to its cap', () => {
    const h = new CrashHistory({ ...POLICY, maxDelayMs: 800, windowMs: 1_000 });
    // Each crash is outside the window of the one before (the window alone would start over every time).
    let now = 0;
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const d = h.record(now, true);
      assert.equal(d.giveUp, false);
      if (!d.giveUp) delays.push(d.delayMs);
      now += 2_000;
      h.succeeded(now);
      now += POLICY.stableMs - 1;
    }
    assert.deepEqual(delays, [100, 200, 400, 800, 800, 800]);
    // Up exactly stableMs: starts over.
    h.succeeded(now);
    assert.equal((h.record(now + POLICY.stableMs, true) as { delayMs: number }).delayMs, 100);
  });
});

describe('RestartScheduler', () => {
  checkLeaks();
  const HTTP = { http: true, keepTrying: false };
  const STDIO = { http: false, keepTrying: false };

  it('times one retry at a time, says when in the words the user reads, and counts the attempt', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let now = 1_000;
    const s = new RestartScheduler({ ...POLICY, baseDelayMs: 1_000, maxDelayMs: 150_000 }, () => now);
    const retried: number[] = [];
    const first = s.schedule('"a" exited', STDIO, (n) => retried.push(n));
    assert.deepEqual(first, { kind: 'retry', retryAt: 2_000, logLine: '"a" exited; restarting in 1000 ms', message: '"a" exited; restarting in 1 s' });
    // A second failure before the first retry replaces it: only one retry runs.
    now = 1_500;
    const second = s.schedule('"a" exited again', STDIO, (n) => retried.push(n));
    assert.equal(second.kind === 'retry' && second.message, '"a" exited again; restarting in 2 s (attempt 3)');
    t.mock.timers.tick(2_000);
    assert.deepEqual(retried, [3]);
    s.dispose();
  });

  it('gives a stdio server up at maxCrashes, naming the window; never an HTTP one', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const s = new RestartScheduler(POLICY, () => 0);
    for (let i = 0; i < POLICY.maxCrashes - 1; i++) assert.equal(s.schedule('down', STDIO, () => undefined).kind, 'retry');
    const last = s.schedule('down', STDIO, () => undefined);
    assert.deepEqual(last, { kind: 'give-up', message: 'down. It crashed or failed to start 4 times within 10 s; not restarting again. Fix the server, then use "Restart Server".' });
    const http = new RestartScheduler(POLICY, () => 0);
    for (let i = 0; i < POLICY.maxCrashes * 2; i++) assert.match(JSON.stringify(http.schedule('unreachable', HTTP, () => undefined)), /reconnecting in/);
    s.dispose();
    http.dispose();
  });

  it('a stdio server that crashes soon after each recovery is restarted ever more slowly; after stableMs up, from the start', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let now = 0;
    // A window shorter than the gaps between crashes: only the time up decides.
    const s = new RestartScheduler({ maxCrashes: 3, windowMs: 1_000, baseDelayMs: 1_000, maxDelayMs: 4_000, stableMs: 60_000 }, () => now);
    const messages: string[] = [];
    for (let i = 0; i < 4; i++) {
      const plan = s.schedule('"a" exited', STDIO, () => undefined);
      assert.equal(plan.kind, 'retry');
      messages.push(plan.message);
      now = plan.kind === 'retry' ? plan.retryAt : now;
      t.mock.timers.tick(4_000);
      s.succeeded();
      now += 5_000; // up for 5 s, then it crashes again
    }
    assert.deepEqual(messages.map((m) => /in (\d+ s)/.exec(m)?.[1]), ['1 s', '2 s', '4 s', '4 s']);
    now += 60_000;
    const after = s.schedule('"a" exited', STDIO, () => undefined);
    assert.equal(after.kind === 'retry' && after.message, '"a" exited; restarting in 1 s', 'up for a minute: the delays start over');
    s.dispose();
  });

  it('cancel, reset and dispose leave no retry to run; reset forgets the crashes', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const s = new RestartScheduler(POLICY, () => 0);
    let ran = 0;
    s.schedule('x', STDIO, () => ran++);
    s.cancel();
    s.schedule('x', STDIO, () => ran++);
    s.reset();
    const fresh = s.schedule('x', STDIO, () => ran++);
    assert.equal(fresh.kind === 'retry' && fresh.message, 'x; restarting in 1 s', 'the delays start over after reset');
    s.dispose();
    t.mock.timers.tick(10_000);
    assert.equal(ran, 0);
  });
});

describe('formatDelay', () => {
  it('reads in seconds up to two minutes, then minutes', () => {
    assert.deepEqual([1, 999, 1_000, 119_000, 120_000, 150_000].map(formatDelay), ['1 s', '1 s', '1 s', '119 s', '2 min', '3 min']);
  });
});
