/** Bounds against hostile servers: message size on Streamable HTTP, throttled protocol-error logs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageTooLargeError, boundedFetch } from '../../../src/core/connection/boundedFetch.js';

const respond = (body: string, type: string, chunk = 7) => async () =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(c) {
        const bytes = new TextEncoder().encode(body);
        for (let i = 0; i < bytes.length; i += chunk) c.enqueue(bytes.slice(i, i + chunk));
        c.close();
      },
    }),
    { status: 200, headers: { 'content-type': type } },
  );

test('SSE: events up to the limit pass through unchanged, whatever the line endings and chunking', async () => {
  const body = `event: message\ndata: ${'a'.repeat(20)}\n\nevent: message\r\ndata: ${'b'.repeat(20)}\r\n\r\ndata: ${'c'.repeat(20)}\r\r`;
  for (const chunk of [1, 2, 7, 4096]) {
    const res = await boundedFetch(40, respond(body, 'text/event-stream', chunk))('http://x');
    assert.equal(await res.text(), body, `chunks of ${chunk}`);
  }
  // 41 bytes of one event (two lines: "data: " + 35) is one too many, however it is chunked.
  for (const chunk of [1, 3, 4096]) {
    const res = await boundedFetch(40, respond(`data: ${'z'.repeat(20)}\r\ndata: ${'y'.repeat(9)}\r\n\r\n`, 'text/event-stream', chunk))('http://x');
    await assert.rejects(res.text(), MessageTooLargeError, `chunks of ${chunk}`);
  }
});

test('SSE: one event over the limit errors the stream with MessageTooLargeError', async () => {
  const body = `data: ok\n\ndata: ${'x'.repeat(100)}\n\n`;
  const res = await boundedFetch(50, respond(body, 'text/event-stream'))('http://x');
  await assert.rejects(res.text(), (e: unknown) => e instanceof MessageTooLargeError && /larger than the 50 bytes limit/.test(e.message));
});

test('SSE: many events that are small each are fine however long the stream', async () => {
  const body = 'data: {"n":1}\n\n'.repeat(1000);
  const res = await boundedFetch(20, respond(body, 'text/event-stream', 4096))('http://x');
  assert.equal((await res.text()).length, body.length);
});

test('JSON: the body as a whole is bounded', async () => {
  const ok = await boundedFetch(100, respond(JSON.stringify({ a: 'y'.repeat(50) }), 'application/json'))('http://x');
  assert.deepEqual(await ok.json(), { a: 'y'.repeat(50) });
  const big = await boundedFetch(100, respond(JSON.stringify({ a: 'y'.repeat(500) }), 'application/json'))('http://x');
  await assert.rejects(big.json(), MessageTooLargeError);
});

test('JSON: a declared Content-Length over the limit is refused before anything is read', async () => {
  let pulls = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        pulls++;
        c.enqueue(new Uint8Array(64));
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  const res = await boundedFetch(100, async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'content-length': '101' } }))('http://x');
  await assert.rejects(res.json(), MessageTooLargeError);
  assert.equal(pulls, 0, 'not one chunk read');
  assert.equal(cancelled, true, 'the body was cancelled');
});

test('JSON: a declared Content-Length is not trusted — what is read is counted', async () => {
  // Declares 10 bytes, sends 500 (a fetch that does not check the length against the bytes).
  let pulls = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (++pulls > 1000) return c.close();
      c.enqueue(new TextEncoder().encode('x'.repeat(50)));
    },
  });
  const res = await boundedFetch(100, async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json', 'content-length': '10' } }))('http://x');
  await assert.rejects(res.json(), MessageTooLargeError);
  assert.ok(pulls <= 4, `reading stopped at the limit (${pulls} chunks of 50 bytes pulled)`);
});

test('JSON: an answer in many chunks, with or without Content-Length, reaches the SDK whole and with its status and headers', async () => {
  const text = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { a: 'é'.repeat(40) } });
  const res = await boundedFetch(1000, async () => {
    const r = await respond(text, 'application/json; charset=utf-8', 3)();
    return new Response(r.body, { status: 200, statusText: 'OK', headers: { 'content-type': 'application/json; charset=utf-8', 'mcp-session-id': 's1' } });
  })('http://x');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('mcp-session-id'), 's1');
  assert.deepEqual(await res.json(), JSON.parse(text));
});

test('JSON: the answer read is a body like any other — read once (text or json), a second read refused; or read as a stream, bytes or a clone', async () => {
  const text = JSON.stringify({ jsonrpc: '2.0', id: 2, result: { b: 'ü'.repeat(30) } });
  const fetchOnce = () => boundedFetch(1000, respond(text, 'application/json', 5))('http://x');

  const asText = await fetchOnce();
  assert.equal(asText.bodyUsed, false);
  assert.equal(await asText.text(), text);
  assert.equal(asText.bodyUsed, true);
  await assert.rejects(asText.json(), TypeError, 'a second read is refused');
  await assert.rejects(asText.arrayBuffer(), TypeError);
  assert.throws(() => asText.clone(), TypeError);

  const asJson = await fetchOnce();
  assert.deepEqual(await asJson.json(), JSON.parse(text));
  await assert.rejects(asJson.text(), TypeError);

  const asStream = await fetchOnce();
  assert.equal(await new Response(asStream.body).text(), text, 'the body as a stream');
  assert.equal(asStream.bodyUsed, true);
  await assert.rejects(asStream.text(), TypeError);

  const asBytes = await fetchOnce();
  assert.equal(Buffer.from(await asBytes.arrayBuffer()).toString('utf8'), text);

  const cloned = await fetchOnce();
  const copy = cloned.clone();
  assert.equal(await copy.text(), text);
  assert.deepEqual(await cloned.json(), JSON.parse(text), 'the original still reads after its clone did');

  const notJson = await boundedFetch(1000, respond('{"half": ', 'application/json'))('http://x');
  await assert.rejects(notJson.json(), SyntaxError, 'malformed JSON fails as a platform Response does');
});

test('responses without a body are returned as they are', async () => {
  const res = await boundedFetch(10, async () => new Response(null, { status: 202 }))('http://x');
  assert.equal(res.status, 202);
});

test('LogThrottle: a burst per window, then one summary line when the next window starts', async () => {
  const { LogThrottle } = await import('../../../src/core/base/logThrottle.js');
  let now = 0;
  const t = new LogThrottle(3, 1000, () => now);
  const summaries: string[] = [];
  const taken = Array.from({ length: 10 }, () => t.take((s) => summaries.push(s))).filter(Boolean).length;
  assert.equal(taken, 3);
  assert.equal(summaries.length, 0);
  now = 1000;
  assert.equal(t.take((s) => summaries.push(s)), true);
  assert.deepEqual(summaries, ['… 7 more like it in 1 s were not logged']);
});
