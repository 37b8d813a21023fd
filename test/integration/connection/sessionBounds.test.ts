/**
 * What a 2025 server's Streamable HTTP session puts into workspace state is bounded
 * (connection/httpSession.ts `storableSession`): a real SDK server over loopback whose
 * capabilities carry a 3 MB blob and whose instructions are 1 MB long. The kept record stays under
 * `MAX_STORED_SESSION_CHARS`, the next window still resumes the session (same server state, the
 * capabilities the host reads), and a session kept whole by an earlier version is cut down when read.
 */
import { test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { MAX_STORED_SESSION_CHARS, sessionKey, type SavedSession, type SessionStore } from '../../../src/core/connection/httpSession.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { serveStreamableHttp } from '../../fixtures/httpServing.js';
import { MemoryLog, ScriptedResponders, httpDefinition } from '../../helpers/host.js';
import { MemorySessions } from '../../helpers/memorySessions.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const BLOB = 'x'.repeat(3 * 1024 * 1024);
const INSTRUCTIONS = 'Read me. '.repeat(120_000);

/** A server that says far too much of itself in its handshake. */
function talkativeServer(): McpServer {
  const mcp = new McpServer(
    { name: 'talkative', version: '1.0.0', title: 'T'.repeat(10_000) } as never,
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }, experimental: { blob: { data: BLOB, chunks: [BLOB.slice(0, 1000)] } } },
      instructions: INSTRUCTIONS,
      taskStore: new InMemoryTaskStore(),
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );
  mcp.registerTool('echo', { description: 'Echo.', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  return mcp;
}

function windowOn(url: string, sessions: SessionStore) {
  const ledger = new TaskLedger();
  const log = new MemoryLog();
  const connection = new McpConnection(httpDefinition('talk', url), { sides: hostSides(ledger, new ScriptedResponders()), log, variables: { env: {} }, sessions, initializeTimeoutMs: 20_000 });
  return {
    connection,
    log,
    close() {
      connection.dispose();
      ledger.dispose();
    },
  };
}

test('a server with megabytes of capabilities and instructions: its kept session stays under the bound, and the next window resumes it', { timeout: 60_000 }, async () => {
  const server = await serveStreamableHttp({ strictSessions: true, connect: (t) => talkativeServer().connect(t) });
  const sessions = new MemorySessions();
  const key = sessionKey(httpDefinition('talk', server.url), server.url);
  const first = windowOn(server.url, sessions);
  let second: ReturnType<typeof windowOn> | undefined;
  try {
    await first.connection.start();
    assert.equal((first.connection.serverCapabilities?.experimental as { blob?: { data?: string } } | undefined)?.blob?.data?.length, BLOB.length, 'the server did say it all');
    const kept = sessions.data.get(key) as SavedSession | undefined;
    assert.ok(kept, 'the session is kept');
    const size = JSON.stringify(kept).length;
    assert.ok(size <= MAX_STORED_SESSION_CHARS, `kept session takes ${size} characters`);
    assert.equal(kept.instructions, undefined, 'no instructions kept');
    assert.deepEqual(kept.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } }, 'the flags the host reads are kept');
    assert.deepEqual(kept.capabilities.experimental, { blob: {} }, 'the blob is not');
    assert.equal(kept.serverInfo?.title?.length, 128);
    first.close();

    second = windowOn(server.url, sessions);
    await second.connection.start();
    assert.equal(second.connection.continuity.kind, 'resumed', 'the session is resumed');
    assert.ok(second.connection.serverCapabilities?.tasks?.requests?.tools?.call, 'tools/call as tasks still known after the resume');
    const tools = await second.connection.client.listTools();
    assert.ok(tools.tools.some((t) => t.name === 'echo'));
    second.close();
    second = undefined;

    // A session kept whole by an earlier version (megabytes): cut down when read, and still resumed.
    sessions.data.set(key, { ...(sessions.data.get(key) as SavedSession), capabilities: { tools: {}, experimental: { blob: { data: BLOB } } }, instructions: INSTRUCTIONS });
    second = windowOn(server.url, sessions);
    await second.connection.start();
    assert.equal(second.connection.continuity.kind, 'resumed');
    const rewritten = JSON.stringify(sessions.data.get(key));
    assert.ok(rewritten.length <= MAX_STORED_SESSION_CHARS, `rewritten: ${rewritten.length} characters`);
  } finally {
    first.close();
    second?.close();
    await server.close();
  }
});
