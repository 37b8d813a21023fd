/** What a server said on stderr, kept to explain its end (connection/serverOutput.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServerLog } from '../../../src/core/base/log.js';
import { exitSummary, MAX_STDERR_LINE_CHARS, ServerOutput, unexpectedClose } from '../../../src/core/connection/serverOutput.js';

function recordingLog(): ServerLog & { readonly lines: string[] } {
  const lines: string[] = [];
  const log = (l: string) => void lines.push(l);
  return { lines, trace: log, debug: log, info: log, warn: log, error: log, traceEnabled: false };
}

describe('ServerOutput', () => {
  it('logs every stderr line and quotes the last three of the last few seconds, without runtime warnings', () => {
    let now = 0;
    const log = recordingLog();
    const out = new ServerOutput(log, () => now);
    out.stderrLine('starting banner');
    now = 60_000;
    out.stderrLine('(node:42) ExperimentalWarning: something');
    for (const l of ['one', 'two', 'three', 'four']) out.stderrLine(l);
    out.stderrLine('');
    assert.equal(out.stderrSummary(), ' (stderr: two | three | four)');
    assert.deepEqual(log.lines, ['[stderr] starting banner', '[stderr] (node:42) ExperimentalWarning: something', '[stderr] one', '[stderr] two', '[stderr] three', '[stderr] four']);
  });

  it('says nothing of lines older than a few seconds, nor after a reset', () => {
    let now = 0;
    const out = new ServerOutput(recordingLog(), () => now);
    out.stderrLine('long ago');
    now = 10_000;
    assert.equal(out.stderrSummary(), '');
    out.stderrLine('recent');
    assert.equal(out.stderrSummary(), ' (stderr: recent)');
    out.reset();
    assert.equal(out.stderrSummary(), '');
  });

  it('keeps a long line to 400 characters in the summary', () => {
    const out = new ServerOutput(recordingLog(), () => 0);
    out.stderrLine('x'.repeat(1_000));
    assert.equal(out.stderrSummary(), ` (stderr: ${'x'.repeat(400)})`);
  });

  it(`logs a line of 100 kB cut at ${MAX_STDERR_LINE_CHARS} characters, saying how much was left out`, () => {
    const log = recordingLog();
    const out = new ServerOutput(log, () => 0);
    out.stderrLine(`Tool name exceeds maximum length: ${'n'.repeat(100_000)}`);
    assert.equal(log.lines.length, 1);
    assert.ok(log.lines[0]!.length < MAX_STDERR_LINE_CHARS + 100, `${log.lines[0]!.length} characters`);
    assert.match(log.lines[0]!, /^\[stderr\] Tool name exceeds maximum length: n+… \(98,034 more characters\)$/);
  });

  it('has no exit to tell for a transport that is not a process it started', () => {
    assert.equal(exitSummary(undefined), undefined);
  });

  it('explains an unexpected close: a process exited (its stderr quoted, the next one starts anew); a connection closed', () => {
    const out = new ServerOutput(recordingLog(), () => 0);
    out.stderrLine('out of memory');
    assert.deepEqual(unexpectedClose({ name: 'a', stdio: true }, undefined, out), {
      logLine: 'connection closed unexpectedly (stderr: out of memory)',
      reason: '"a" exited unexpectedly (stderr: out of memory)',
      processEnded: 'the old one ended',
    });
    assert.deepEqual(unexpectedClose({ name: 'h', stdio: false }, undefined, out), {
      logLine: 'connection closed unexpectedly (stderr: out of memory)',
      reason: 'The connection to "h" closed',
    });
  });
});
