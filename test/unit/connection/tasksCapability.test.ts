/**
 * The Tasks extension as a server declares it (connection/tasksCapability.ts: read once per
 * capabilities object) and as this host then declares it on every request of a 2026-07-28 session
 * (hostClient.ts `_outboundMetaEnvelope`, made once per session), on a real SDK v2 server in process.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasTaskServerCapabilityV2, TASKS_EXTENSION_ID_V2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { StreamableHTTPClientTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { HostClient } from '../../../src/core/connection/hostClient.js';
import { declaresTasksExtension } from '../../../src/core/connection/tasksCapability.js';

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

describe('the Tasks extension a server declares', () => {
  it('answers as the extension\'s own guard, for each capabilities object (asked again, the same answer)', () => {
    const shapes: unknown[] = [
      { extensions: { [TASKS_EXTENSION_ID_V2]: {} } },
      { extensions: { [TASKS_EXTENSION_ID_V2]: {}, other: { a: 1 } } },
      { tools: {} },
      { extensions: { other: {} } },
      // Not JSON inside the envelope: the guard refuses the whole of it.
      { extensions: { [TASKS_EXTENSION_ID_V2]: {}, other: undefined } },
      { extensions: { [TASKS_EXTENSION_ID_V2]: () => undefined } },
      undefined,
      null,
    ];
    for (const caps of shapes) {
      const expected = hasTaskServerCapabilityV2(caps);
      assert.equal(declaresTasksExtension(caps), expected, JSON.stringify(caps));
      assert.equal(declaresTasksExtension(caps), expected, `asked again: ${JSON.stringify(caps)}`);
    }
    assert.equal(declaresTasksExtension({ extensions: { [TASKS_EXTENSION_ID_V2]: {} } }), true);
    assert.equal(declaresTasksExtension({ tools: {} }), false);
  });

  it('two capabilities objects each get their own answer (a session of a server without it after one with it)', () => {
    const withIt = { extensions: { [TASKS_EXTENSION_ID_V2]: {} } };
    const without = { extensions: {} };
    assert.equal(declaresTasksExtension(withIt), true);
    assert.equal(declaresTasksExtension(without), false);
    assert.equal(declaresTasksExtension(withIt), true);
  });
});

/** A HostClient pinned to 2026-07-28 on an SDK v2 server in process (its web-standard handler as the fetch); what it sends is kept. */
async function session(declares: boolean) {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 's', version: '1' }, { capabilities: { tools: {}, ...(declares ? { extensions: { [TASKS_EXTENSION_ID_V2]: {} } } : {}) } });
      server.registerTool('echo', {}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
      return server;
    },
    { legacy: 'reject' },
  );
  const transport = new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), { fetch: (url, init) => handler.fetch(new Request(url, init)) });
  const sent: JSONRPCMessage[] = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    sent.push(...(Array.isArray(message) ? message : [message]));
    return send(message, options);
  };
  const client = new HostClient({ name: 'host', version: '1' }, { versionNegotiation: { pin: '2026-07-28' } });
  await client.connect(transport);
  return { client, sent, close: async () => { await client.close(); await handler.close?.(); } };
}

function declaredExtensions(message: JSONRPCMessage): Record<string, unknown> | undefined {
  const meta = (message as { params?: { _meta?: Record<string, { extensions?: Record<string, unknown> }> } }).params?._meta;
  return meta?.[CLIENT_CAPABILITIES]?.extensions;
}

/** The host's own capabilities (sampling, elicitation) in 2026-07-28 words: no 2025 `tasks` field (hostClient.ts `envelopeOf2026`). */
function assertCapabilitiesOf2026(message: JSONRPCMessage): void {
  const declared = (message as { params: { _meta: Record<string, Record<string, unknown>> } }).params._meta[CLIENT_CAPABILITIES];
  assert.ok(declared, JSON.stringify(message));
  assert.equal(declared.tasks, undefined, `2025-11-25 vocabulary in a 2026-07-28 envelope: ${JSON.stringify(declared)}`);
  assert.deepEqual(declared.sampling, {});
  assert.deepEqual(declared.elicitation, { form: {}, url: {} });
}

describe('the Tasks extension this host declares on each request (2026-07-28 session)', () => {
  it('to a server that declares it: on every request, with the rest of the SDK\'s envelope, each request its own _meta', async () => {
    const s = await session(true);
    try {
      s.sent.length = 0;
      await s.client.callTool({ name: 'echo', arguments: {} });
      await s.client.callTool({ name: 'echo', arguments: {} }, { onprogress: () => undefined });
      await s.client.listTools();
      const requests = s.sent.filter((m) => 'method' in m && 'id' in m);
      assert.equal(requests.length >= 3, true, `requests sent: ${requests.length}`);
      for (const m of requests) {
        assert.deepEqual(declaredExtensions(m), { [TASKS_EXTENSION_ID_V2]: {} }, JSON.stringify(m));
        const meta = (m as { params: { _meta: Record<string, unknown> } }).params._meta;
        assert.equal(meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
        assert.deepEqual(meta['io.modelcontextprotocol/clientInfo'], { name: 'host', version: '1' });
        assertCapabilitiesOf2026(m);
      }
      // The progress token went on the one request that asked for progress, and only there.
      const tokens = requests.map((m) => (m as { params: { _meta: Record<string, unknown> } }).params._meta.progressToken);
      assert.equal(tokens.filter((t) => t !== undefined).length, 1);
      // The kept envelope is never handed out to be changed: each request's _meta is an object of its own.
      const metas = requests.map((m) => (m as { params: { _meta: object } }).params._meta);
      assert.equal(new Set(metas).size, metas.length);
    } finally {
      await s.close();
    }
  });

  it('to a server that does not: never', async () => {
    const s = await session(false);
    try {
      s.sent.length = 0;
      await s.client.callTool({ name: 'echo', arguments: {} });
      await s.client.callTool({ name: 'echo', arguments: {} });
      const requests = s.sent.filter((m) => 'method' in m && 'id' in m);
      assert.equal(requests.length, 2);
      for (const m of requests) {
        assert.equal(declaredExtensions(m), undefined, JSON.stringify(m));
        assertCapabilitiesOf2026(m);
      }
    } finally {
      await s.close();
    }
  });
});
