/**
 * The core's errors without the SDK (src/core/base/protocolErrors.ts) are the SDK's to the SDK and
 * the SDK's are theirs to the core: both directions against the real SDK v2, and over a real
 * (in-memory) JSON-RPC exchange the SDK answers a request handler's thrown core error with its code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as sdk from '@modelcontextprotocol/client';
import { ErrorCode, InvalidParamsError, LimitExceededError, TaskNotFoundError, errorCodeOf, isConnectionClosed } from '../../../src/core/base/errors.js';
import { ProtocolError, RELATED_TASK_META_KEY, SdkError, SdkErrorCode, SdkHttpError } from '../../../src/core/base/protocolErrors.js';

test('the SDK recognises the core errors as its own ProtocolError, and not as its SdkError', () => {
  for (const e of [new ProtocolError(-32001, 'x'), new TaskNotFoundError('t-1'), new InvalidParamsError('bad'), new LimitExceededError('full')]) {
    assert.ok(e instanceof sdk.ProtocolError, e.name);
    assert.ok(sdk.ProtocolError.isInstance(e), e.name);
    assert.ok(!(e instanceof sdk.SdkError), e.name);
  }
  assert.ok(new SdkError(SdkErrorCode.RequestTimeout, 'late') instanceof sdk.SdkError);
  assert.ok(!(new SdkError(SdkErrorCode.RequestTimeout, 'late') instanceof sdk.ProtocolError));
});

test("the core recognises the SDK's errors: ProtocolError (and its subclasses), SdkError, SdkHttpError with its status", () => {
  assert.ok(new sdk.ProtocolError(-32602, 'x') instanceof ProtocolError);
  assert.ok(sdk.ProtocolError.fromError(-32602, 'gone', { uri: 'file:///x' }) instanceof ProtocolError, 'a subclass the SDK makes from a wire error');
  assert.ok(!(new sdk.ProtocolError(-32602, 'x') instanceof SdkError));
  const closed: unknown = new sdk.SdkError(sdk.SdkErrorCode.ConnectionClosed, 'closed');
  assert.ok(closed instanceof SdkError);
  assert.ok(!(closed instanceof SdkHttpError));
  assert.ok(isConnectionClosed(closed));
  assert.equal(errorCodeOf(new sdk.SdkError(sdk.SdkErrorCode.RequestTimeout, 'late')), ErrorCode.RequestTimeout);
  const http: unknown = new sdk.SdkHttpError(sdk.SdkErrorCode.ConnectionClosed, 'HTTP 403', { status: 403, text: 'no' });
  assert.ok(http instanceof SdkError);
  assert.ok(http instanceof SdkHttpError);
  assert.equal(http.status, 403);
  assert.ok(!(new Error('plain') instanceof ProtocolError) && !({ code: -32602 } instanceof ProtocolError));
});

test("the codes and the related-task key are the SDK's values", () => {
  // The core names the codes it reads; each is the SDK's value of that name.
  for (const [name, value] of Object.entries(SdkErrorCode)) assert.equal(value, (sdk.SdkErrorCode as Record<string, string>)[name], name);
  for (const name of ['ParseError', 'InvalidRequest', 'MethodNotFound', 'InvalidParams', 'InternalError'] as const) assert.equal(ErrorCode[name], sdk.ProtocolErrorCode[name], name);
  assert.equal(RELATED_TASK_META_KEY, sdk.RELATED_TASK_META_KEY);
});

test('a request handler that throws a core error is answered by the SDK with its code and message', async () => {
  const [ours, peer] = sdk.InMemoryTransport.createLinkedPair();
  const client = new sdk.Client({ name: 'errors-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler('sampling/createMessage', () => {
    throw new TaskNotFoundError('t-9');
  });
  // The peer plays a server: it answers `initialize`, then puts one request to the client.
  const answered = new Promise<unknown>((resolve) => {
    peer.onmessage = (m) => {
      const msg = m as { id?: unknown; method?: string };
      if (msg.method === 'initialize') void peer.send({ jsonrpc: '2.0', id: msg.id as number, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'peer', version: '1.0.0' } } });
      else if (msg.id === 7) resolve(m);
    };
  });
  await peer.start();
  await client.connect(ours);
  await peer.send({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } });
  const reply = (await answered) as { id?: unknown; error?: { code: number; message: string } };
  await client.close();
  assert.equal(reply.id, 7);
  assert.equal(reply.error?.code, ErrorCode.InvalidParams);
  assert.match(reply.error?.message ?? '', /Task not found: "t-9"/);
});
