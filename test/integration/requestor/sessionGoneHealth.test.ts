/**
 * A running session the server no longer has is replaced at once when the health check learns it,
 * not after a backoff wait: a real SDK server (the requestor fixture over Streamable HTTP, with no
 * stream of server messages open, so nothing shows the client the restart) is killed and started
 * again on the same port while the connection runs; the next request meets `404 Session not found`,
 * the health check's ping meets it too, and a new session is made on that same try (and a second
 * refusal within 10 s is a lost server, retried with the backoff, not a loop). The restart
 * delays are a minute here: a connection that waited for its backoff would not be running again
 * within the test's waits. Waits are on state, never on sleeps.
 *
 * Run: `node esbuild.mjs && node --import tsx --test test/integration/requestor/sessionGoneHealth.test.ts`
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { McpConnection, type ConnectionState } from '../../../src/core/connection/connection.js';
import type { SavedSession } from '../../../src/core/connection/httpSession.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import { MemoryLog, ScriptedResponders, fixture, httpDefinition, startHttpFixture, waitFor } from '../../helpers/host.js';
import { MemorySessions } from '../../helpers/memorySessions.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const SERVER = fixture('requestorServer');
/** Failure guard for one wait; every wait normally ends within a second or two. */
const WAIT_MS = 20_000;

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

test('an SDK server restarted on the same port with no stream open: the health check meets "Session not found" and a new session is made on the same try, with no backoff wait', { timeout: 60_000 }, async () => {
  const first = await startHttpFixture(SERVER, ['--no-stream'], 'the requestor fixture', WAIT_MS);
  const port = new URL(first.url).port;
  let second: { child: ChildProcess } | undefined;
  const sessions = new MemorySessions();
  const ledger = new TaskLedger();
  const log = new MemoryLog();
  // A minute between tries: only a replacement on the same try brings the connection back within the waits below.
  const connection = new McpConnection(httpDefinition('fixture', first.url), { sides: hostSides(ledger, new ScriptedResponders()), log, variables: { env: process.env }, sessions, restart: { baseDelayMs: 60_000, maxDelayMs: 60_000 } });
  const seen: ConnectionState[] = [];
  connection.onDidChangeState((s) => seen.push(s));
  try {
    await connection.start();
    const before = [...sessions.data.values()][0] as SavedSession | undefined;
    assert.ok(before, 'the 2025 session is kept');
    assert.ok((await connection.client.listTools()).tools.length > 0);

    first.child.kill('SIGKILL');
    await exited(first.child);
    second = await startHttpFixture(SERVER, ['--no-stream', '--port', port], 'the requestor fixture, restarted', WAIT_MS);
    assert.equal(connection.state.kind, 'running', 'nothing showed the connection the restart yet');
    const fromRestart = seen.length;
    const askedAt = performance.now();
    // The user's next request meets the new process, which does not know the session.
    await assert.rejects(connection.client.listTools(), /Session not found|404/);
    await waitFor(connection.onDidChangeState, () => connection.state.kind === 'running' && seen.length > fromRestart, 'running again in a new session', WAIT_MS);
    const replacedMs = performance.now() - askedAt;
    const after = seen.slice(fromRestart);
    assert.deepEqual(
      after.map((s) => s.kind),
      ['starting', 'running'],
      `no failed try and no wait in between: ${JSON.stringify(after)}`,
    );
    assert.equal(connection.continuity.kind, 'new-session');
    assert.equal(connection.continuity.detail, 'it no longer had the session of before, as after a restart: HTTP 404: Session not found');
    const kept = [...sessions.data.values()][0] as SavedSession | undefined;
    assert.ok(kept && kept.sessionId !== before.sessionId, 'the new session is kept in place of the refused one');
    assert.ok((await connection.client.listTools()).tools.length > 0, 'the new session serves');
    assert.ok(log.lines.some((l) => /no longer has its session \(HTTP 404: Session not found\); starting a new one/.test(l)), log.lines.join('\n'));
    console.log(`# refused request → running in a new session: ${replacedMs.toFixed(0)} ms (restart delay 60 s)`);

    // A server that refuses its new session again at once (it forgets every session) is not replaced in a loop: lost, retried with the backoff.
    second.child.kill('SIGKILL');
    await exited(second.child);
    second = await startHttpFixture(SERVER, ['--no-stream', '--port', port], 'the requestor fixture, restarted again', WAIT_MS);
    await assert.rejects(connection.client.listTools(), /Session not found|404/);
    await waitFor(connection.onDidChangeState, () => connection.state.kind === 'error', 'lost, at the second refusal within 10 s', WAIT_MS);
    const state = connection.state as ConnectionState;
    assert.ok(state.kind === 'error' && state.retryAt !== undefined && /refused its session again \(HTTP 404: Session not found\); reconnecting in 60 s/.test(state.message), JSON.stringify(state));
  } finally {
    connection.dispose();
    ledger.dispose();
    first.child.kill();
    second?.child.kill();
  }
});
