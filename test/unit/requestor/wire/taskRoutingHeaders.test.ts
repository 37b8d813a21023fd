/**
 * The Tasks extension's routing headers on Streamable HTTP (requestor/wire/taskRoutingHeaders.ts).
 * Section: modelcontextprotocol/experimental-ext-tasks specification/draft/tasks.md
 * §Streamable HTTP: Routing Headers ("the client MUST set the Mcp-Name header to the value of
 * params.taskId"; Mcp-Method per the standard header conventions).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { encodeHeaderValue, taskRoutingHeaders, withTaskRoutingHeaders } from '../../../../src/core/requestor/wire/taskRoutingHeaders.js';

const META = { _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } } };
const body = (method: string, params: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id: 3, method, params });

function recorder() {
  const seen: Array<{ url: string; headers: Headers; body: unknown }> = [];
  const inner: FetchLike = async (url, init) => {
    seen.push({ url: String(url), headers: new Headers(init?.headers), body: init?.body });
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { seen, fetch: withTaskRoutingHeaders(inner) };
}

describe('Tasks extension routing headers (§Streamable HTTP: Routing Headers)', () => {
  it('tasks/get, tasks/update and tasks/cancel carry Mcp-Name = params.taskId and Mcp-Method = the method; other headers are kept', async () => {
    const { seen, fetch } = recorder();
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      await fetch('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mcp-session-id': 's1', authorization: 'Bearer x' },
        body: body(method, { taskId: '786512e2-9e0d-44bd-8f29-789f320fe840', ...(method === 'tasks/update' ? { inputResponses: {} } : {}), ...META }),
      });
    }
    assert.deepEqual(
      seen.map((s) => [s.headers.get('mcp-name'), s.headers.get('mcp-method')]),
      [
        ['786512e2-9e0d-44bd-8f29-789f320fe840', 'tasks/get'],
        ['786512e2-9e0d-44bd-8f29-789f320fe840', 'tasks/update'],
        ['786512e2-9e0d-44bd-8f29-789f320fe840', 'tasks/cancel'],
      ],
    );
    for (const s of seen) {
      assert.equal(s.headers.get('mcp-session-id'), 's1');
      assert.equal(s.headers.get('authorization'), 'Bearer x');
      assert.equal(s.headers.get('content-type'), 'application/json');
    }
  });

  it('other requests, notifications, GETs and 2025-11-25 tasks/* (no extension capability in _meta) get no routing header', async () => {
    const { seen, fetch } = recorder();
    await fetch('http://127.0.0.1/mcp', { method: 'POST', body: body('tools/call', { name: 'x', arguments: {}, ...META }) });
    await fetch('http://127.0.0.1/mcp', { method: 'POST', body: body('tasks/get', { taskId: 't1' }) }); // 2025-11-25 wire
    await fetch('http://127.0.0.1/mcp', { method: 'POST', body: body('tasks/result', { taskId: 't1', ...META }) });
    await fetch('http://127.0.0.1/mcp', { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tasks', params: { taskId: 't1' } }) });
    await fetch('http://127.0.0.1/mcp', { method: 'POST', body: 'not json tasks/get' });
    await fetch('http://127.0.0.1/mcp', { method: 'GET' });
    assert.equal(seen.length, 6);
    for (const s of seen) assert.equal(s.headers.get('mcp-name'), null, String(s.body));
  });

  it('a taskId that cannot ride as a plain header value is sent as =?base64?…?= (UTF-8), never raw', async () => {
    assert.equal(encodeHeaderValue('task-1'), 'task-1');
    assert.equal(encodeHeaderValue('tâche'), `=?base64?${Buffer.from('tâche').toString('base64')}?=`);
    assert.equal(encodeHeaderValue('a\r\nX-Injected: 1'), `=?base64?${Buffer.from('a\r\nX-Injected: 1').toString('base64')}?=`);
    assert.equal(encodeHeaderValue(' padded '), `=?base64?${Buffer.from(' padded ').toString('base64')}?=`);
    assert.equal(encodeHeaderValue('=?base64?abc?='), `=?base64?${Buffer.from('=?base64?abc?=').toString('base64')}?=`);
    assert.deepEqual(taskRoutingHeaders(body('tasks/cancel', { taskId: 'tâche', ...META })), { 'Mcp-Method': 'tasks/cancel', 'Mcp-Name': `=?base64?${Buffer.from('tâche').toString('base64')}?=` });
    const { seen, fetch } = recorder();
    await fetch('http://127.0.0.1/mcp', { method: 'POST', body: body('tasks/get', { taskId: 'a\nb', ...META }) });
    assert.equal(seen[0].headers.get('mcp-name'), `=?base64?${Buffer.from('a\nb').toString('base64')}?=`);
  });
});
