/**
 * Connections and bad input: servers that do not exist, refuse, exit during initialize,
 * answer garbage or crash. Each ends in a clear state with a readable reason; nothing throws
 * out of the core, nothing hangs.
 */
import { describe, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import { parseMcpConfig } from '../../../src/core/config/config.js';
import { ServerRegistry } from '../../../src/core/connection/registry.js';
import { connectionsOfThisFile, freePort } from '../../helpers/connections.js';
import { fixture, httpDefinition, MemoryLog, ROOT, ScriptedResponders, stdioDefinition, testGate, waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

const { ledger, track, connect } = connectionsOfThisFile();
// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts);
// after connectionsOfThisFile, whose clean-up after each test must run before the check.
checkLeaks();

describe('connections: bad input gives a clear message and a clear state', () => {
  test('a server command that does not exist', async () => {
    const { c } = connect(stdioDefinition('ghost', 'definitely-not-a-command-mcp-tasks', []));
    await assert.rejects(c.start(), /"ghost" failed to start: .*(ENOENT|not found)/i);
    assert.equal(c.state.kind, 'error');
    assert.match((c.state as { message: string }).message, /ghost/);
  });

  test('an HTTP URL that refuses connections', async () => {
    const port = await freePort();
    const { c } = connect(httpDefinition('refusing', `http://127.0.0.1:${port}/mcp`));
    await assert.rejects(c.start(), /"refusing" failed to start: .*(ECONNREFUSED|fetch failed)/i);
    assert.equal(c.state.kind, 'error');
  });

  test('an HTTP URL that is not a URL', async () => {
    const { c } = connect(httpDefinition('nonsense', 'not a url'));
    await assert.rejects(c.start(), /"url" is not a valid URL/);
    assert.equal(c.state.kind, 'error');
  });

  test('a server that exits during initialize: the reason includes its stderr', async () => {
    const { c, log } = connect(stdioDefinition('quitter', process.execPath, [fixture('brokenServer'), '--exit-on-initialize']));
    await assert.rejects(c.start(), /"quitter" failed to start: .*stderr: fatal: missing configuration file settings\.toml/);
    assert.equal(c.state.kind, 'error');
    assert.ok(log.lines.some((l) => l.includes('[stderr] fatal: missing configuration')), 'stderr went to the server log');
  });

  test('a server that answers garbage fails fast with what it wrote', async () => {
    const { c } = connect(stdioDefinition('chatty', process.execPath, [fixture('brokenServer'), '--garbage']));
    await assert.rejects(c.start(), /"chatty" failed to start: .*(JSON|Unexpected token)/i);
    assert.equal(c.state.kind, 'error');
  });

  test('state changes are observable: starting → running → stopped; JSON-RPC traffic is logged at trace level', async () => {
    const { c, log, states } = connect(stdioDefinition('probe', process.execPath, [fixture('probeServer')]));
    await c.start();
    await c.stop();
    assert.deepEqual(states.map((s) => s.kind), ['starting', 'running', 'stopped']);
    assert.ok(log.lines.some((l) => l.startsWith('trace ▶') && l.includes('"method":"initialize"')));
    assert.ok(log.lines.some((l) => l.startsWith('trace ◀') && l.includes('"protocolVersion":"2025-11-25"')));
  });

  test('a stdio server that crashes is restarted with backoff, then given up on with a clear error', async () => {
    const { c, states } = connect(stdioDefinition('crashy', process.execPath, [fixture('probeServer')]), { baseDelayMs: 20, maxDelayMs: 50, maxCrashes: 3, windowMs: 60_000 });
    await c.start();
    for (let crash = 1; crash <= 3; crash++) {
      const before = states.length;
      await c.client.callTool({ name: 'exit', arguments: { code: 7 } }).catch(() => undefined);
      if (crash < 3) {
        await waitFor(c.onDidChangeState, () => states.slice(before).some((s) => s.kind === 'running'), `restart ${crash}`);
        const restartError = states.slice(before).find((s) => s.kind === 'error') as { message: string; retryAt?: number } | undefined;
        assert.ok(restartError?.retryAt, 'an error state with the time of the next try');
        assert.match(restartError.message, /exited unexpectedly.*restarting in/);
      } else {
        await waitFor(c.onDidChangeState, () => c.state.kind === 'error' && !(c.state as { retryAt?: number }).retryAt, 'giving up');
      }
    }
    assert.match((c.state as { message: string }).message, /crashed or failed to start 3 times .* not restarting again/);
    // A manual restart resets the count.
    await c.restart();
    assert.equal(c.state.kind, 'running');
  });

  test('a crash says how the process ended: an exit code, or the signal that killed it; stderr only when it explains it', async () => {
    const { c, states } = connect(stdioDefinition('ended', process.execPath, [fixture('probeServer')]), { baseDelayMs: 20, maxDelayMs: 50, maxCrashes: 10 });
    await c.start();
    const pid = Number(((await c.client.callTool({ name: 'chatter', arguments: {} })).content[0] as { text: string }).text);
    let before = states.length;
    process.kill(pid, 'SIGKILL');
    await waitFor(c.onDidChangeState, () => states.slice(before).some((s) => s.kind === 'error'), 'the crash');
    const killed = states.slice(before).find((s) => s.kind === 'error') as { message: string };
    assert.match(killed.message, /"ended" exited unexpectedly \(killed by SIGKILL\); restarting in/);
    assert.doesNotMatch(killed.message, /stderr|MaxListeners|Starting default/, 'the chatter is not the reason');
    await waitFor(c.onDidChangeState, () => c.state.kind === 'running', 'the restart');
    before = states.length;
    await c.client.callTool({ name: 'exit', arguments: { code: 7 } }).catch(() => undefined);
    await waitFor(c.onDidChangeState, () => states.slice(before).some((s) => s.kind === 'error'), 'the exit');
    assert.match((states.slice(before).find((s) => s.kind === 'error') as { message: string }).message, /"ended" exited unexpectedly \(exit code 7\); restarting in/);
    await c.stop();
  });

  test('registry: a broken entry does not stop the others; definitions apply without a reload', async () => {
    const { servers, problems } = parseMcpConfig(
      { kind: 'workspace', file: `${ROOT}/.vscode/mcp.json`, folder: ROOT },
      JSON.stringify({ servers: { ok: { command: process.execPath, args: [fixture('probeServer')] }, broken: { command: 7 }, missing: { command: 'no-such-binary-xyz' } } }),
    );
    assert.deepEqual(problems.map((p) => p.key), ['servers.broken.command']);
    const registry = new ServerRegistry({ sides: hostSides(ledger, new ScriptedResponders()), logFor: () => new MemoryLog(), variablesFor: () => ({ env: process.env }) });
    track(registry);
    await registry.setDefinitions(servers);
    assert.equal(registry.get('ok')!.state.kind, 'running');
    assert.equal(registry.get('missing')!.state.kind, 'error');
    // Remove one, keep the other running (same connection object).
    const okBefore = registry.get('ok');
    await registry.setDefinitions(servers.filter((s) => s.name === 'ok'));
    assert.equal(registry.get('missing'), undefined);
    assert.equal(registry.get('ok'), okBefore);
    assert.equal(okBefore!.state.kind, 'running');
  });

  test('registry: a server that may not start (untrusted workspace) is blocked with the reason, and starts once allowed', async () => {
    let trusted = false;
    const gate = testGate(() => (trusted ? true : 'this workspace is not trusted'));
    track(gate);
    const registry = new ServerRegistry({
      sides: hostSides(ledger, new ScriptedResponders()),
      logFor: () => new MemoryLog(),
      variablesFor: () => ({ env: process.env }),
      gate: gate.gate,
    });
    track(registry);
    await registry.setDefinitions([stdioDefinition('ws', process.execPath, [fixture('probeServer')])]);
    assert.deepEqual(registry.get('ws')!.state, { kind: 'blocked', reason: 'this workspace is not trusted' });
    trusted = true;
    await registry.reevaluate();
    assert.equal(registry.get('ws')!.state.kind, 'running');
  });
});

describe('connections: an HTTP server that goes away', () => {
  test('down for longer than the crash window allows, it is tried again (the delay capped) and reconnected when it is back by itself', async () => {
    const { serveProbeHttp } = await import('../../fixtures/probeServer.js');
    const first = await serveProbeHttp();
    const port = Number(new URL(first.url).port);
    const { c, states } = connect(httpDefinition('outage', first.url), { baseDelayMs: 20, maxDelayMs: 80, maxCrashes: 2, windowMs: 60_000 });
    await c.start();
    await first.close();
    // Far more failures than maxCrashes: every one of them schedules another try.
    await waitFor(c.onDidChangeState, () => states.filter((s) => s.kind === 'error').length >= 6, 'six failed reconnects', 20_000);
    for (const s of states.filter((x) => x.kind === 'error')) {
      assert.ok(s.kind === 'error' && s.retryAt !== undefined, `every failure retries: ${s.kind === 'error' ? s.message : ''}`);
      assert.doesNotMatch(s.kind === 'error' ? s.message : '', /not reconnecting again/);
    }
    assert.match((c.state as { message: string }).message, /reconnecting in \d+ s \(attempt \d+\)/);
    const second = await serveProbeHttp(port);
    track({ dispose: () => void second.close() });
    await waitFor(c.onDidChangeState, () => c.state.kind === 'running', 'the reconnect', 20_000);
  });

  test('a stdio server that keeps failing while the user has work on it is restarted for as long as it takes', async () => {
    const { c, states } = connect(stdioDefinition('busy', process.execPath, [fixture('brokenServer'), '--exit-on-initialize']), { baseDelayMs: 20, maxDelayMs: 40, maxCrashes: 2 }, () => true);
    await assert.rejects(c.start());
    await waitFor(c.onDidChangeState, () => states.filter((s) => s.kind === 'error').length >= 5, 'five failed starts', 20_000);
    assert.ok(states.filter((s) => s.kind === 'error').every((s) => s.kind === 'error' && s.retryAt !== undefined));
    await c.stop();
  });

  test('is noticed (error state with the reason), reconnected with backoff when it is back, and tracking can resume', async () => {
    const { serveProbeHttp } = await import('../../fixtures/probeServer.js');
    const first = await serveProbeHttp();
    const port = Number(new URL(first.url).port);
    const { c, states } = connect(httpDefinition('flaky-http', first.url), { baseDelayMs: 50, maxDelayMs: 200, maxCrashes: 50, windowMs: 60_000 });
    await c.start();
    await first.close();
    await waitFor(c.onDidChangeState, () => c.state.kind === 'error', 'the loss to be noticed');
    assert.match((c.state as { message: string }).message, /"flaky-http" is unreachable|connection to "flaky-http" closed|failed to start/);
    assert.ok((c.state as { retryAt?: number }).retryAt, 'a reconnect is scheduled');
    // Unreachable: the cause is named (what the outage toast shows), not undici's "fetch failed".
    const first_ = (c.state as { message: string }).message;
    if (/is unreachable/.test(first_)) assert.match(first_, /is unreachable: nothing listens on .*ECONNREFUSED/);
    const second = await serveProbeHttp(port);
    track({ dispose: () => void second.close() });
    await waitFor(c.onDidChangeState, () => c.state.kind === 'running', 'the reconnect', 20_000);
    assert.ok(states.filter((s) => s.kind === 'running').length >= 2);
    const r = await c.client.callTool({ name: 'client_capabilities', arguments: {} });
    assert.ok(r.content);
  });
});
