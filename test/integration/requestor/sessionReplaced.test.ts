/**
 * A Streamable HTTP session the server no longer has is replaced at once, with no user action:
 * the official everything server (`@modelcontextprotocol/server-everything`, which answers an
 * unknown session `400 Bad Request: No valid session ID provided`, not the spec's 404) is stopped
 * and started again on the same port while the connection keeps running; the task that was in
 * flight ends lost, naming the restart. And the narrow side of that rule: a 400 that says the
 * request is wrong (a loopback server answering "Parse error") is not a lost session — the session
 * stays kept and no new one is made. Waits are on state, never on sleeps.
 *
 * Run: `node --import tsx --test test/integration/requestor/sessionReplaced.test.ts`
 */
import { test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Tool } from '@modelcontextprotocol/client';
import { McpConnection, type ConnectionState } from '../../../src/core/connection/connection.js';
import { sessionKey, type SavedSession } from '../../../src/core/connection/httpSession.js';
import { statesOf } from '../../../src/core/connection/registry.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker, type SentTaskSnapshot } from '../../../src/core/requestor/tracker.js';
import type { Event } from '../../../src/core/base/event.js';
import { everythingEntry, startEverythingHttp } from '../../helpers/everything.js';
import { MemoryLog, ROOT, ScriptedResponders, httpDefinition, waitFor } from '../../helpers/host.js';
import { MemorySessions } from '../../helpers/memorySessions.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const ENTRY = everythingEntry(ROOT);
/** Failure guard for one wait; every wait normally ends in a second or two. */
const WAIT_MS = 20_000;
const TEST_TIMEOUT_MS = 60_000;

function changedOrPolled(tracker: TaskTracker): Event<unknown> {
  return (listener) => {
    const a = tracker.onDidChange(listener);
    const b = tracker.onDidPoll(listener);
    return { dispose: () => (a.dispose(), b.dispose()) };
  };
}

function until(tracker: TaskTracker, key: string, check: (s: SentTaskSnapshot) => boolean, what: string): Promise<SentTaskSnapshot> {
  const now = () => tracker.get(key);
  return waitFor(changedOrPolled(tracker), () => !!now() && check(now()!), `${what} (now ${now()?.phase} / ${now()?.reason})`, WAIT_MS).then(() => now()!);
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

test('the everything server restarted on the same port while the extension runs: its session is replaced on the next try with no user action, and the task in flight is lost naming the restart', { timeout: TEST_TIMEOUT_MS }, async () => {
  const first = await startEverythingHttp(ENTRY, WAIT_MS);
  let second: { child: ChildProcess } | undefined;
  const port = Number(new URL(first.url).port);
  const sessions = new MemorySessions();
  const def = httpDefinition('everything', first.url);
  const ledger = new TaskLedger();
  // Short delays keep the test quick; the rule under test is the same at the default 1 s … 30 s.
  const connection = new McpConnection(def, { sides: hostSides(ledger, new ScriptedResponders()), log: new MemoryLog(), variables: { env: process.env }, sessions, restart: { baseDelayMs: 100, maxDelayMs: 400 } });
  const tracker = new TaskTracker({ connectionFor: (id) => (id === connection.id ? connection : undefined), minPollIntervalMs: 10, defaultPollIntervalMs: 50 });
  // Wired as the extension wires it: running resumes the server's tasks, anything else but starting pauses them.
  const states = statesOf([connection]);
  const following = tracker.followServers(states);
  const seen: ConnectionState[] = [];
  connection.onDidChangeState((s) => seen.push(s));
  try {
    await connection.start();
    assert.equal(sessions.data.size, 1, 'the 2025 session is kept');
    const keptBefore = [...sessions.data.values()][0] as SavedSession;
    const { tools } = await connection.client.listTools();
    const research = tools.find((t): t is Tool => t.name === 'simulate-research-query');
    assert.ok(research, 'the everything server offers its task tool to a task-capable client');
    const key = await tracker.callTool(connection, research, { topic: 'sessions' });
    await until(tracker, key, (s) => s.phase === 'tracking', 'tracking');

    first.child.kill();
    await exited(first.child);
    // The connection notices on its own, and keeps trying while the port is closed.
    await waitFor(connection.onDidChangeState, () => seen.some((s) => s.kind === 'error' && s.retryAt !== undefined), 'a failed try, retried', WAIT_MS);
    assert.equal((await until(tracker, key, (s) => s.phase === 'paused', 'paused')).task?.status, 'working');

    second = await startEverythingHttp(ENTRY, WAIT_MS, process.execPath, port);
    const backAt = performance.now();
    const fromBack = seen.length;
    await waitFor(connection.onDidChangeState, () => connection.state.kind === 'running', 'running again, with no user action', WAIT_MS);
    const backToRunningMs = performance.now() - backAt;
    const afterBack = seen.slice(fromBack);
    // The try under way when the server came back may still have met the closed port; the next one runs.
    assert.ok(afterBack.filter((s) => s.kind === 'error').length <= 1, `at most one failed try once the server is back: ${JSON.stringify(afterBack)}`);
    assert.equal(connection.continuity.kind, 'new-session');
    assert.equal(connection.continuity.detail, 'it no longer had the session of before, as after a restart: HTTP 400: Bad Request: No valid session ID provided');
    const keptAfter = [...sessions.data.values()][0] as SavedSession;
    assert.ok(keptAfter && keptAfter.sessionId !== keptBefore.sessionId, 'the new session is kept in place of the refused one');

    const lost = await until(tracker, key, (s) => s.phase === 'error' || s.phase === 'expired' || s.phase === 'done', 'lost');
    assert.equal(lost.phase, 'error', `${lost.phase}: ${lost.reason}`);
    assert.match(lost.reason ?? '', /^Lost: "everything" is in a new session \(it no longer had the session of before, as after a restart: HTTP 400: Bad Request: No valid session ID provided\)/);
    // The figure the report quotes: from the server listening again to the connection running.
    console.log(`# server back → running: ${backToRunningMs.toFixed(0)} ms (restart delays 100…400 ms)`);
  } finally {
    following.dispose();
    states.dispose();
    tracker.dispose();
    connection.dispose();
    ledger.dispose();
    first.child.kill();
    second?.child.kill();
  }
});

test('the everything server restarted while the window was closed: the kept session it answers 400 to is replaced at the first start', { timeout: TEST_TIMEOUT_MS }, async () => {
  const first = await startEverythingHttp(ENTRY, WAIT_MS);
  let second: { child: ChildProcess } | undefined;
  const sessions = new MemorySessions();
  const def = httpDefinition('everything', first.url);
  const ledger = new TaskLedger();
  const open = () => new McpConnection(def, { sides: hostSides(ledger, new ScriptedResponders()), log: new MemoryLog(), variables: { env: process.env }, sessions });
  const before = open();
  let after: McpConnection | undefined;
  try {
    await before.start();
    assert.equal(sessions.data.size, 1);
    // The window closes (the session is left open on the server, to be resumed); the server restarts.
    before.dispose();
    first.child.kill();
    await exited(first.child);
    second = await startEverythingHttp(ENTRY, WAIT_MS, process.execPath, Number(new URL(first.url).port));
    after = open();
    await after.start();
    assert.equal(after.state.kind, 'running');
    assert.equal(after.continuity.kind, 'new-session');
    assert.equal(after.continuity.detail, 'it no longer had the session of before, as after a restart: HTTP 400: Bad Request: No valid session ID provided');
    assert.ok((await after.client.listTools()).tools.length > 0, 'the new session serves');
  } finally {
    after?.dispose();
    before.dispose();
    ledger.dispose();
    first.child.kill();
    second?.child.kill();
  }
});

test('a 400 that says the request is wrong (not that the session is unknown) is not a lost session: the session stays kept, no new one is made', { timeout: TEST_TIMEOUT_MS }, async () => {
  const methods: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      try {
        methods.push(String((JSON.parse(body) as { method?: unknown }).method));
      } catch {
        methods.push('?');
      }
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: Invalid JSON' }, id: null }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const def = httpDefinition('fx', url);
  const sessions = new MemorySessions();
  const kept: SavedSession = { sessionId: 'kept-1', protocolVersion: '2025-11-25', capabilities: { tools: {} } };
  sessions.set(sessionKey(def, url), kept);
  const ledger = new TaskLedger();
  const connection = new McpConnection(def, { sides: hostSides(ledger, new ScriptedResponders()), log: new MemoryLog(), variables: { env: process.env }, sessions, restart: { baseDelayMs: 60_000, maxDelayMs: 60_000 } });
  try {
    await assert.rejects(connection.start(), /failed to start: .*Parse error/);
    const state = connection.state;
    assert.equal(state.kind, 'error');
    assert.ok(state.kind === 'error' && state.retryAt !== undefined, 'tried again later, as any failed start');
    assert.deepEqual(sessions.get(sessionKey(def, url)), kept, 'the session is still kept');
    assert.ok(!methods.includes('initialize'), `no new session was started: ${methods.join(', ')}`);
    assert.ok(methods.includes('ping'), `the kept session was offered: ${methods.join(', ')}`);
  } finally {
    connection.dispose();
    ledger.dispose();
    server.closeAllConnections();
    server.close();
  }
});
