/**
 * Which tasks/get failures end a task at once (permanent) and which are asked again (transient):
 * src/core/requestor/pollErrors.ts. Sections: modelcontextprotocol/experimental-ext-tasks
 * specification/draft/tasks.md.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { ErrorCode, ProtocolError as McpError } from '../../../src/core/base/errors.js';
import { permanentPollError, permanentPollErrorMessage } from '../../../src/core/requestor/pollErrors.js';

// What the SDK's Streamable HTTP transport throws for a POST answered with an HTTP error.
const posted = (status: number, body: string) => new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${body}`, { status, statusText: '', text: body });
const rpcBody = (code: number, message: string) => JSON.stringify({ jsonrpc: '2.0', id: 6, error: { code, message } });

describe('tasks/get failures: permanent or transient', () => {
  test('§Streamable HTTP: Routing Headers: HTTP 400 with -32020 HeaderMismatch is permanent, described from the JSON-RPC error (not the raw body)', () => {
    const d = permanentPollError(posted(400, rpcBody(-32020, 'Header mismatch: Mcp-Name does not match params.taskId of tasks/get')));
    assert.equal(d, 'HTTP 400, JSON-RPC -32020 (header mismatch): Header mismatch: Mcp-Name does not match params.taskId of tasks/get');
    assert.equal(
      permanentPollErrorMessage('demo-2026', d!),
      '"demo-2026" refused tasks/get for this task (HTTP 400, JSON-RPC -32020 (header mismatch): Header mismatch: Mcp-Name does not match params.taskId of tasks/get); asking again would get the same answer, so it is no longer polled.',
    );
  });

  test('other HTTP 4xx answers are permanent; a body that is not JSON-RPC is quoted (cut short)', () => {
    assert.equal(permanentPollError(posted(415, 'Unsupported Media Type')), 'HTTP 415: Unsupported Media Type');
    assert.equal(permanentPollError(posted(422, rpcBody(-32099, 'nope'))), 'HTTP 422, JSON-RPC -32099: nope');
    const long = permanentPollError(posted(400, 'x'.repeat(5000)))!;
    assert.ok(long.length < 400 && long.endsWith('…'), long);
  });

  test('HTTP 401/403 (sign-in), 404 (session gone), 408, 429 and 5xx are transient', () => {
    for (const status of [401, 403, 404, 408, 429, 500, 502, 503]) assert.equal(permanentPollError(posted(status, rpcBody(-32603, 'x'))), undefined, String(status));
  });

  test('§Capability Negotiation / JSON-RPC: -32700, -32600, -32601, -32020, -32021 are permanent', () => {
    for (const code of [ErrorCode.ParseError, ErrorCode.InvalidRequest, ErrorCode.MethodNotFound, -32020, -32021]) {
      assert.match(permanentPollError(new McpError(code, 'why'))!, new RegExp(`^JSON-RPC ${code} \\([a-z ]+\\): why$`));
    }
  });

  test('§Task Polling: -32603 internal error, a timeout, a closed connection, other codes, network and validation errors are transient', () => {
    for (const code of [ErrorCode.InternalError, ErrorCode.RequestTimeout, ErrorCode.ConnectionClosed, -32000, -32099, 1]) assert.equal(permanentPollError(new McpError(code, 'x')), undefined, String(code));
    assert.equal(permanentPollError(new TypeError('fetch failed')), undefined);
    assert.equal(permanentPollError(Object.assign(new Error('invalid'), { name: 'ZodError', issues: [] })), undefined);
    assert.equal(permanentPollError('a string'), undefined);
  });
});
