/**
 * A server that fails to start says why in words a user can act on
 * (not "fetch failed", not a "protocol error"), is retried with the crash backoff, and
 * `"type": "sse"` speaks the legacy HTTP+SSE transport (a real SDK `SSEServerTransport`); an
 * HTTP server that answers HTML fails with one clear sentence, not the page.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectionsOfThisFile, freePort, fromMcpJson } from '../../helpers/connections.js';
import { stdioDefinition, waitFor } from '../../helpers/host.js';
import { serveLegacySse } from '../../fixtures/sseServing.js';
import { checkLeaks } from '../../helpers/leaks.js';

const { track, connect } = connectionsOfThisFile();
// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts);
// after connectionsOfThisFile, whose clean-up after each test must run before the check.
checkLeaks();

describe('start failures name their real cause', () => {
  test('ECONNREFUSED: "nothing listens on 127.0.0.1:<port>", not "fetch failed"', async () => {
    const port = await freePort();
    const { c } = connect(fromMcpJson('refusing', { type: 'http', url: `http://127.0.0.1:${port}/mcp` }), { maxCrashes: 100 });
    const err = await c.start().then(
      () => assert.fail('started'),
      (e: Error) => e,
    );
    assert.match(err.message, new RegExp(`"refusing" failed to start: nothing listens on 127\\.0\\.0\\.1:${port}`));
    assert.doesNotMatch(err.message, /fetch failed/);
  });

  test('ENOENT on spawn: "… not found: is it on PATH?"; the log does not call it a protocol error', async () => {
    const { c, log } = connect(stdioDefinition('ghost', 'definitely-not-a-command-mcp-tasks', []), { maxCrashes: 100 });
    await assert.rejects(c.start(), /"ghost" failed to start: the program "definitely-not-a-command-mcp-tasks" was not found: is it on PATH\?/);
    assert.ok(!log.lines.some((l) => /protocol error/.test(l)), `no "protocol error" in the log: ${log.lines.join('\n')}`);
    assert.ok(log.lines.some((l) => /cannot start the program/.test(l)));
  });

  test('a failed start is retried with the crash backoff, then gives up', async () => {
    const { c, states } = connect(stdioDefinition('ghost2', 'definitely-not-a-command-mcp-tasks', []), { baseDelayMs: 20, maxDelayMs: 40, maxCrashes: 3 });
    await assert.rejects(c.start());
    const first = c.state;
    assert.equal(first.kind, 'error');
    assert.ok(first.kind === 'error' && first.retryAt !== undefined, 'a retry is scheduled');
    assert.match(first.kind === 'error' ? first.message : '', /restarting in 1 s/);
    await waitFor(c.onDidChangeState, () => c.state.kind === 'error' && c.state.retryAt === undefined, 'giving up after 3 failures');
    assert.deepEqual(
      states.filter((s) => s.kind === 'starting').map((s) => (s as { attempt: number }).attempt),
      [1, 2, 3],
    );
    assert.match((c.state as { message: string }).message, /3 times within 300 s; not restarting again/);
  });
});

describe('"type": "sse" speaks legacy HTTP+SSE', () => {
  test('an SDK SSEServerTransport server: connects and answers a tool call', async () => {
    const sse = await serveLegacySse();
    track({ dispose: () => void sse.close() });
    const def = fromMcpJson('legacy', { type: 'sse', url: sse.url });
    assert.equal(def.transport.type === 'http' && def.transport.legacySse, true);
    const { c, log } = connect(def);
    await c.start();
    assert.equal(c.state.kind, 'running');
    assert.equal(c.state.kind === 'running' && c.state.serverInfo?.name, 'legacy-sse');
    const result = await c.client.request({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }, CallToolResultSchema);
    assert.deepEqual(result.content, [{ type: 'text', text: 'echo: hi' }]);
    assert.ok(log.lines.some((l) => l.includes('legacy HTTP+SSE')));
    await c.stop();
  });

  test('the same server as "type": "http" fails with a clear sentence, not the HTML page', async () => {
    const sse = await serveLegacySse();
    track({ dispose: () => void sse.close() });
    const { c } = connect(fromMcpJson('wrong-type', { type: 'http', url: sse.url }), { maxCrashes: 100 });
    const err = await c.start().then(
      () => assert.fail('started'),
      (e: Error) => e,
    );
    assert.match(err.message, /answered with an HTML page \(HTTP 404\), not MCP: check the URL; if it is a legacy HTTP\+SSE server .*set "type": "sse"/);
    assert.doesNotMatch(err.message, /<html|<pre>|Cannot POST/i);
  });
});
