/** The fetch a Streamable HTTP connection sends with (node:http, bounded), against a real loopback server and the platform's fetch. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { MessageTooLargeError } from '../../../src/core/connection/boundedFetch.js';
import { nodeHttpFetch } from '../../../src/core/connection/httpFetch.js';
import { describeStartFailure } from '../../../src/core/connection/startErrors.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/** A loopback server answering with `handler`; what it was sent is kept in `seen`, the sockets it accepted counted. */
async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void) {
  const seen: Seen[] = [];
  const closed: string[] = [];
  let sockets = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, res, body);
    });
    res.on('close', () => closed.push(req.url!));
  });
  server.on('connection', () => sockets++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    seen,
    closed,
    sockets: () => sockets,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const JSON_ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}';

test('a JSON POST: the server sees what the platform fetch sends, and the answer reads as the platform fetch reads it', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200, 'Fine', [['Content-Type', 'application/json'], ['Mcp-Session-Id', 'abc'], ['Set-Cookie', 'a=1'], ['Set-Cookie', 'b=2']]);
    res.end(JSON_ANSWER);
  });
  try {
    const fetchLike = nodeHttpFetch();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'é' } });
    const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2026-07-28' });
    const ours = await fetchLike(new URL(`${s.base}/mcp?x=1`), { method: 'POST', headers, body });
    const theirs = await fetch(new URL(`${s.base}/mcp?x=1`), { method: 'POST', headers, body });
    for (const res of [ours, theirs]) {
      assert.equal(res.status, 200);
      assert.equal(res.ok, true);
      assert.equal(res.statusText, 'Fine');
      assert.equal(res.headers.get('mcp-session-id'), 'abc');
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.deepEqual(res.headers.getSetCookie(), ['a=1', 'b=2']);
      assert.deepEqual(await res.json(), JSON.parse(JSON_ANSWER));
      assert.equal(res.bodyUsed, true);
      await assert.rejects(res.text(), TypeError, 'a body is read once');
    }
    const [a, b] = s.seen;
    assert.equal(a!.method, 'POST');
    assert.equal(a!.url, '/mcp?x=1');
    assert.equal(a!.body, body);
    assert.equal(a!.headers['content-length'], String(Buffer.byteLength(body)));
    for (const name of ['content-type', 'accept', 'mcp-protocol-version']) assert.equal(a!.headers[name], b!.headers[name], name);
  } finally {
    await s.close();
  }
});

test('headers given as a record or as pairs: names in any case, a repeated name joined as a Headers list joins it', async () => {
  const s = await serve((_req, res) => res.writeHead(204).end());
  try {
    const f = nodeHttpFetch();
    await f(`${s.base}/a`, { method: 'post', headers: { 'X-One': '1', 'x-one': '2', Accept: 'text/plain' }, body: 'x' });
    await f(`${s.base}/b`, { method: 'POST', headers: [['X-Two', 'a'], ['x-two', 'b']], body: new TextEncoder().encode('yz') });
    assert.equal(s.seen[0]!.method, 'POST');
    assert.equal(s.seen[0]!.headers['x-one'], '1, 2');
    assert.equal(s.seen[0]!.headers.accept, 'text/plain');
    assert.equal(s.seen[1]!.headers['x-two'], 'a, b');
    assert.equal(s.seen[1]!.body, 'yz');
    assert.equal(s.seen[1]!.headers['content-length'], '2');
  } finally {
    await s.close();
  }
});

test('requests one after another reuse one kept-alive connection', async () => {
  const s = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  try {
    const f = nodeHttpFetch();
    for (let i = 0; i < 5; i++) assert.deepEqual(await (await f(`${s.base}/mcp`, { method: 'POST', body: '{}' })).json(), {});
    assert.equal(s.sockets(), 1);
  } finally {
    await s.close();
  }
});

test('an event stream is handed on as it arrives, and aborting the request ends it on both sides', async () => {
  let write: ((text: string) => void) | undefined;
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    write = (t) => res.write(t);
    write('event: message\ndata: {"n":1}\n\n');
  });
  try {
    const abort = new AbortController();
    const res = await nodeHttpFetch()(`${s.base}/mcp`, { method: 'GET', headers: { accept: 'text/event-stream' }, signal: abort.signal });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
    assert.equal(text, 'event: message\ndata: {"n":1}\n\n', 'the first event, while the server still holds the stream open');
    write!('data: {"n":2}\n\n');
    text = '';
    while (!text.includes('\n\n')) text += (await reader.read()).value ?? '';
    assert.equal(text, 'data: {"n":2}\n\n');
    abort.abort(new Error('stop'));
    await assert.rejects(async () => {
      for (;;) if ((await reader.read()).done) return;
    });
    await waitFor(() => s.closed.includes('/mcp'), 'the server saw the stream closed');
  } finally {
    await s.close();
  }
});

test('an aborted request rejects with its signal\'s reason; one aborted before it is made is never sent', async () => {
  const s = await serve(() => undefined);
  try {
    const before = new AbortController();
    before.abort(new Error('before'));
    await assert.rejects(nodeHttpFetch()(`${s.base}/x`, { method: 'POST', body: '{}', signal: before.signal }), /before/);
    const during = new AbortController();
    const pending = nodeHttpFetch()(`${s.base}/y`, { method: 'POST', body: '{}', signal: during.signal });
    await waitFor(() => s.seen.length === 1, 'the request arrived');
    during.abort(new Error('during'));
    await assert.rejects(pending, /during/);
    assert.deepEqual(s.seen.map((x) => x.url), ['/y']);
    await waitFor(() => s.closed.includes('/y'), 'the server saw the request closed');
  } finally {
    await s.close();
  }
});

test('nothing listening: "fetch failed" with Node\'s error as its cause, which names the port as for the platform fetch', async () => {
  const s = await serve(() => undefined);
  const url = `${s.base}/mcp`;
  await s.close();
  const ours = await nodeHttpFetch()(url, { method: 'POST', body: '{}' }).then(() => assert.fail('resolved'), (e: unknown) => e);
  const theirs = await fetch(url, { method: 'POST', body: '{}' }).then(() => assert.fail('resolved'), (e: unknown) => e);
  assert.ok(ours instanceof TypeError);
  assert.equal(ours.message, 'fetch failed');
  assert.equal((ours.cause as NodeJS.ErrnoException).code, 'ECONNREFUSED');
  assert.deepEqual(describeStartFailure(ours, { url }), describeStartFailure(theirs, { url }));
  assert.match(describeStartFailure(ours, { url })!.message, /nothing listens on 127\.0\.0\.1:\d+ \(connection refused, ECONNREFUSED\)/);
});

test('a server that closes the connection in the middle of its answer: "fetch failed" with ECONNRESET as its cause', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"jsonrpc":');
    setImmediate(() => res.socket!.destroy());
  });
  try {
    const e = await nodeHttpFetch()(`${s.base}/mcp`, { method: 'POST', body: '{}' }).then(() => assert.fail('resolved'), (x: unknown) => x);
    assert.ok(e instanceof TypeError, String(e));
    assert.equal((e.cause as NodeJS.ErrnoException).code, 'ECONNRESET');
    assert.match(describeStartFailure(e, { url: s.base })!.message, /closed the connection \(ECONNRESET\)/);
  } finally {
    await s.close();
  }
});

test('a redirect: handed back as it came when asked ("manual", as the SDK asks), refused for "error", followed by the platform fetch otherwise', async () => {
  const s = await serve((req, res) => {
    if (req.url === '/old') res.writeHead(307, { location: '/new' }).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ at: req.url }));
  });
  try {
    const f = nodeHttpFetch();
    const manual = await f(`${s.base}/old`, { method: 'POST', body: '{"a":1}', redirect: 'manual' });
    assert.equal(manual.status, 307);
    assert.equal(manual.headers.get('location'), '/new');
    await assert.rejects(f(`${s.base}/old`, { method: 'POST', body: '{"a":1}', redirect: 'error' }), TypeError);
    const followed = await f(`${s.base}/old`, { method: 'POST', body: '{"a":1}' });
    assert.deepEqual(await followed.json(), { at: '/new' });
    assert.deepEqual(
      s.seen.map((x) => `${x.method} ${x.url} ${x.body}`),
      ['POST /old {"a":1}', 'POST /old {"a":1}', 'POST /old {"a":1}', 'POST /old {"a":1}', 'POST /new {"a":1}'],
      'the followed request is sent again by the platform fetch, which keeps the body on a 307',
    );
  } finally {
    await s.close();
  }
});

test('what it does not send itself goes to the fallback: a form body, a URL that is not http(s)', async () => {
  const asked: string[] = [];
  const fallback = async (url: string | URL, init?: RequestInit) => {
    asked.push(`${String(url)} ${init?.body instanceof URLSearchParams ? 'form' : String(init?.body)}`);
    return new Response('{}', { headers: { 'content-type': 'application/json' } });
  };
  const f = nodeHttpFetch(100, fallback);
  await f('http://127.0.0.1:1/token', { method: 'POST', body: new URLSearchParams({ grant_type: 'x' }) });
  await f('data:text/plain,hi');
  await f('not a url');
  // A server elsewhere: the platform's fetch pools its connections and TLS sessions, and serves VS Code's proxies.
  await f('https://mcp.example.invalid/mcp', { method: 'POST', body: '{}' });
  await f(new URL('http://10.0.0.1:8080/mcp'), { method: 'POST', body: '{}' });
  assert.deepEqual(asked, ['http://127.0.0.1:1/token form', 'data:text/plain,hi undefined', 'not a url undefined', 'https://mcp.example.invalid/mcp {}', 'http://10.0.0.1:8080/mcp {}']);
});

test('a request that cannot keep its connection open (as under VS Code\'s proxy support) is sent, and the platform\'s fetch serves the rest', async () => {
  const s = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  const agent = http.globalAgent as http.Agent & { keepAlive: boolean };
  const asked: string[] = [];
  const fallback = async (url: string | URL) => {
    asked.push(String(url));
    return new Response('{"from":"fallback"}', { headers: { 'content-type': 'application/json' } });
  };
  agent.keepAlive = false;
  try {
    const f = nodeHttpFetch(1000, fallback);
    assert.deepEqual(await (await f(`${s.base}/one`, { method: 'POST', body: '{}' })).json(), {});
    assert.deepEqual(await (await f(`${s.base}/two`, { method: 'POST', body: '{}' })).json(), { from: 'fallback' });
    assert.deepEqual(s.seen.map((x) => `${x.url} ${x.headers.connection}`), ['/one close']);
    assert.deepEqual(asked, [`${s.base}/two`]);
    agent.keepAlive = true;
    const other = nodeHttpFetch(1000, fallback);
    assert.deepEqual(await (await other(`${s.base}/three`, { method: 'POST', body: '{}' })).json(), {}, 'another connection\'s fetch tells for itself');
    assert.equal(s.seen.length, 2);
  } finally {
    agent.keepAlive = true;
    await s.close();
  }
});

test('a compressed answer is read uncompressed, as the platform fetch reads it', async () => {
  const s = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(JSON_ANSWER)));
  try {
    assert.deepEqual(await (await nodeHttpFetch()(`${s.base}/mcp`, { method: 'POST', body: '{}' })).json(), JSON.parse(JSON_ANSWER));
  } finally {
    await s.close();
  }
});

test('answers with no body (204, 202 with none) read as empty', async () => {
  const s = await serve((req, res) => (req.url === '/a' ? res.writeHead(204).end() : res.writeHead(202, { 'content-length': '0' }).end()));
  try {
    for (const path of ['/a', '/b']) {
      const res = await nodeHttpFetch()(`${s.base}${path}`, { method: 'POST', body: '{}' });
      assert.equal(await res.text(), '', path);
    }
  } finally {
    await s.close();
  }
});

test('bounds: a JSON answer over the limit, declared or not, and one SSE event over it fail with MessageTooLargeError; what fits is whole', async () => {
  const big = JSON.stringify({ a: 'y'.repeat(500) });
  const s = await serve((req, res) => {
    if (req.url === '/declared') res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(big.length) }).end(big);
    else if (req.url === '/chunked') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(big.slice(0, 200));
      res.end(big.slice(200));
    } else if (req.url === '/sse') res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`data: ok\n\ndata: ${'x'.repeat(200)}\n\n`);
    else if (req.url === '/other') res.writeHead(200, { 'content-type': 'text/plain' }).end('z'.repeat(200));
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"fits":true}');
  });
  try {
    const f = nodeHttpFetch(100);
    for (const path of ['/declared', '/chunked', '/sse', '/other']) await assert.rejects((await f(`${s.base}${path}`, { method: 'POST', body: '{}' })).text(), MessageTooLargeError, path);
    assert.deepEqual(await (await f(`${s.base}/fits`, { method: 'POST', body: '{}' })).json(), { fits: true });
  } finally {
    await s.close();
  }
});

test('a status no Response can hold fails the request with that status named, as a network failure does', async () => {
  const s = await serve((_req, res) => res.writeHead(999).end('{}'));
  try {
    const e = await nodeHttpFetch()(`${s.base}/mcp`, { method: 'POST', body: '{}' }).then(() => assert.fail('resolved'), (x: unknown) => x);
    assert.ok(e instanceof TypeError);
    assert.match(String((e.cause as Error).message), /HTTP status 999/);
  } finally {
    await s.close();
  }
});

test('a header value Node cannot send is refused with an error naming the header, and nothing is sent', async () => {
  const s = await serve(() => undefined);
  try {
    await assert.rejects(nodeHttpFetch()(`${s.base}/mcp`, { method: 'POST', headers: { authorization: 'Bearer a\nb' }, body: '{}' }), /authorization/);
    assert.equal(s.seen.length, 0);
  } finally {
    await s.close();
  }
});

/** A throwaway self-signed certificate for 127.0.0.1 (P-256, valid to 2126), made for this test only; no one trusts it. */
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBkDCCATagAwIBAgIUX8wSod/0bE554h8u5O5TFl1qEtEwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyOTA3MDcwNFoYDzIxMjYxMTA1
MDcwNzA0WjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAQ5KFuFv8fqKQMPM7a1srHtjUD+Rm+ES0cXyOZjPiXrQcdvvvAgtCg4
eUG0N3njuaRHvs3d38C9k2lU4i8GU2D/o2QwYjAdBgNVHQ4EFgQUO6I+vmpvgkBa
h63c6Lea8GnKzMswHwYDVR0jBBgwFoAUO6I+vmpvgkBah63c6Lea8GnKzMswDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0gAMEUC
IEI3jpJcMCVn3m+p0RXWr5rw1UpgG3zdE4ql4rR3n9CvAiEA24WJjo28jkPQtNc0
9Dt0srU6n8o+nDCzUZAKaRPw3Hs=
-----END CERTIFICATE-----`;
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgqBouCKG+37tdaQbA
6HZOlJEPFDA8Zd/JIZAVgQcI36ihRANCAAQ5KFuFv8fqKQMPM7a1srHtjUD+Rm+E
S0cXyOZjPiXrQcdvvvAgtCg4eUG0N3njuaRHvs3d38C9k2lU4i8GU2D/
-----END PRIVATE KEY-----`;

test('https: an untrusted certificate fails as with the platform fetch (a TLS cause naming the port); a trusted one answers', async () => {
  const server = https.createServer({ cert: TEST_CERT, key: TEST_KEY }, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON_ANSWER));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const agent = https.globalAgent as https.Agent & { options: https.AgentOptions };
  const ca = agent.options.ca;
  try {
    const ours = await nodeHttpFetch()(url, { method: 'POST', body: '{}' }).then(() => assert.fail('resolved'), (e: unknown) => e);
    const theirs = await fetch(url, { method: 'POST', body: '{}' }).then(() => assert.fail('resolved'), (e: unknown) => e);
    assert.ok(ours instanceof TypeError);
    const failure = describeStartFailure(ours, { url });
    assert.equal(failure?.kind, 'tls');
    assert.deepEqual(failure, describeStartFailure(theirs, { url }));
    // Trusted (as a CA the user's machine trusts would be): the same request is answered over TLS.
    agent.options.ca = TEST_CERT;
    agent.destroy();
    assert.deepEqual(await (await nodeHttpFetch()(url, { method: 'POST', body: '{}' })).json(), JSON.parse(JSON_ANSWER));
  } finally {
    agent.options.ca = ca;
    agent.destroy();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

/** Resolves once `check()` holds; fails naming `what` if it does not within 5 s. */
async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`${what}: not within 5 s`);
    await new Promise((r) => setImmediate(r));
  }
}
