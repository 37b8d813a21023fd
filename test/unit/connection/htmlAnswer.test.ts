import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HtmlAnswerError, refuseHtml } from '../../../src/core/connection/htmlAnswer.js';

const html = async (): Promise<Response> => new Response('<html>Not found</html>', { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' } });

test('an HTML answer of the MCP endpoint is refused with one sentence; OAuth discovery probes through the same fetch are not', async () => {
  const endpoint = new URL('http://127.0.0.1:3999/mcp');
  const f = refuseHtml(html, false, endpoint);
  await assert.rejects(f('http://127.0.0.1:3999/mcp'), (e: unknown) => e instanceof HtmlAnswerError && /answered with an HTML page \(HTTP 404\)/.test(e.message));
  // The SDK probes several well-known URLs; a 404 page there is an answer it moves past.
  assert.equal((await f('http://127.0.0.1:3999/.well-known/oauth-authorization-server')).status, 404);
  assert.equal((await f('http://auth.example/.well-known/openid-configuration')).status, 404);
  // Legacy SSE: the POST endpoint the stream names is another path of the same origin.
  const sse = refuseHtml(html, true, new URL('http://127.0.0.1:3999/sse'));
  await assert.rejects(sse('http://127.0.0.1:3999/messages?sessionId=1'), HtmlAnswerError);
  assert.equal((await sse('http://127.0.0.1:3999/token')).status, 404);
});
