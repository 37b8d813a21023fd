/**
 * `Mcp-Param-*` headers (2026-07-28, SEP-2243) on the product's own calls: the tracker calls a tool
 * by name, and the SDK mirrors its `x-mcp-header` parameters from the `tools/list` it keeps. Every
 * way the product calls a tool lists the tools on that connection first (Run Tool, the chat tools,
 * the API), so the list is at hand; a call sent when it is not (a call queued across a reconnect)
 * is refused by a server that needs the header, and the SDK lists again and repeats it once. A
 * tool whose header declarations are invalid is not in the list the UI offers.
 *
 * The server: a stateless 2026-07-28 server over plain HTTP, written out here (no SDK), that
 * refuses a `tools/call` carrying `region` without `Mcp-Param-Region` (HTTP 400, -32020).
 */
import { after, before, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { MemoryLog, ScriptedResponders, httpDefinition, textOf, waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const REVISION = '2026-07-28';
const HEADER_MISMATCH = -32020;

const TOOLS = [
  { name: 'weather', description: 'by region', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] } },
  // An empty header name: an invalid declaration (the SDK leaves the tool out of tools/list).
  { name: 'broken', description: 'invalid header', inputSchema: { type: 'object', properties: { q: { type: 'string', 'x-mcp-header': '' } } } },
];

let server: Server;
let url: string;
const seen = { lists: 0, calls: [] as Array<{ region?: string; header?: string; refused: boolean }> };

before(async () => {
  server = createServer((req, res) => void answer(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') return void res.writeHead(405).end();
  let body = '';
  for await (const chunk of req) body += chunk;
  const msg = JSON.parse(body) as { id?: number; method: string; params?: { name?: string; arguments?: { region?: string } } };
  const reply = (result: Record<string, unknown>) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { resultType: 'complete', ...result } }));
  if (msg.id === undefined) return void res.writeHead(202).end();
  switch (msg.method) {
    case 'server/discover':
      return reply({ supportedVersions: [REVISION], capabilities: { tools: {} }, serverInfo: { name: 'headers', version: '1' }, ttlMs: 0, cacheScope: 'private' });
    case 'tools/list':
      seen.lists++;
      return reply({ tools: TOOLS, ttlMs: 0, cacheScope: 'private' });
    case 'tools/call': {
      const region = msg.params?.arguments?.region;
      const header = req.headers['mcp-param-region'] as string | undefined;
      const refused = region !== undefined && header === undefined;
      seen.calls.push({ region, header, refused });
      if (refused) {
        return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: HEADER_MISMATCH, message: 'Mcp-Param-Region is missing' } }));
      }
      return reply({ content: [{ type: 'text', text: `region header ${header ?? '(none)'}` }] });
    }
    default:
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }));
  }
}

async function connect() {
  const ledger = new TaskLedger();
  const connection = new McpConnection(httpDefinition('headers', url), { sides: hostSides(ledger, new ScriptedResponders()), log: new MemoryLog(), variables: { env: process.env } });
  await connection.start();
  assert.equal(connection.state.kind === 'running' && connection.state.protocolVersion, REVISION);
  const tracker = new TaskTracker({ connectionFor: () => connection });
  const result = async (key: string) => {
    await waitFor(tracker.onDidChange, () => tracker.get(key)?.phase === 'done', 'the call done');
    const o = tracker.get(key)!.outcome;
    assert.equal(o?.kind, 'result', JSON.stringify(o));
    return textOf(o?.kind === 'result' ? o.result : undefined);
  };
  return { connection, tracker, result, dispose: () => (tracker.dispose(), connection.dispose(), ledger.dispose()) };
}

test('a call the tracker sends after the tools were listed carries Mcp-Param-Region', async () => {
  const h = await connect();
  try {
    const tools = (await h.connection.client.listTools()).tools;
    const weather = tools.find((t) => t.name === 'weather')!;
    const key = await h.tracker.callTool(h.connection, weather, { region: 'us-west1' });
    assert.equal(await h.result(key), 'region header us-west1');
    assert.equal(seen.calls.at(-1)?.refused, false);
  } finally {
    h.dispose();
  }
});

test('a call sent before any list on this connection is refused once, then repeated with the header after the SDK lists again', async () => {
  const h = await connect();
  try {
    const lists = seen.lists;
    const key = await h.tracker.callTool(h.connection, { name: 'weather' }, { region: 'Zürich' });
    assert.equal(await h.result(key), 'region header =?base64?WsO8cmljaA==?=', 'non-ASCII in Base64, as the spec says');
    assert.deepEqual(seen.calls.slice(-2).map((c) => c.refused), [true, false]);
    assert.equal(seen.lists, lists + 1);
  } finally {
    h.dispose();
  }
});

test('a tool with an invalid header declaration is not in the list the UI offers', async () => {
  const h = await connect();
  try {
    const names = (await h.connection.client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(names, ['weather']);
  } finally {
    h.dispose();
  }
});
