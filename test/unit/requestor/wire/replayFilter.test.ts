/**
 * A resumed stream's replay (wire/replayFilter.ts): the SDK takes every response on a resumed
 * stream as the resumed request's, so only the answer to the request the stream was opened for
 * passes; other requests' answers keep their event id and lose their data; requests and
 * notifications pass; events split across chunks are put together first.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replayFilter } from '../../../../src/core/requestor/wire/replayFilter.js';

async function through(requestId: number, chunks: string[]): Promise<string> {
  const encoder = new TextEncoder();
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(encoder.encode(chunk));
      c.close();
    },
  });
  return new Response(source.pipeThrough(replayFilter(requestId))).text();
}

test("another request's answer keeps its event id and loses its data; the stream's own answer, requests and notifications pass", async () => {
  const other = 'id: e1\ndata: {"jsonrpc":"2.0","id":9,"result":{}}\n\n';
  const note = 'id: e2\ndata: {"jsonrpc":"2.0","method":"notifications/tasks/status","params":{}}\n\n';
  const error = 'id: e3\r\ndata: {"jsonrpc":"2.0","id":8,"error":{"code":1,"message":"x"}}\r\n\r\n';
  const own = 'id: e4\ndata: {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"done"}]}}\n\n';
  const text = await through(4, [other + note.slice(0, 20), note.slice(20) + error, own.slice(0, 30), own.slice(30)]);
  assert.equal(text, `id: e1\n\n${note}id: e3\n\n${own}`);
});

test('an event without data, or not JSON, passes as it is (the SDK reports the latter)', async () => {
  assert.equal(await through(1, ['id: p\ndata:\n\n', 'data: nope\n\n']), 'id: p\ndata:\n\ndata: nope\n\n');
});
