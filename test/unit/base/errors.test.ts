// An SDK McpError re-wrapped by the SDK on this side shows its prefix once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, ProtocolError, errorMessage, withSingleMcpPrefix, withoutMcpPrefix } from '../../../src/core/base/errors.js';
import { errorOutcome } from '../../../src/core/base/taskOutcome.js';

// A server on MCP SDK v1 that relays an error it got puts "MCP error <code>: " in front twice on the wire.
const doubled = new ProtocolError(ErrorCode.InvalidParams, 'MCP error -32602: MCP error -32602: Task not found');

test('errorMessage keeps one "MCP error <code>:" prefix', () => {
  assert.equal(errorMessage(doubled), 'MCP error -32602: Task not found');
  assert.equal(withSingleMcpPrefix('MCP error -1: MCP error -1: MCP error -1: x'), 'MCP error -1: x');
  assert.equal(withSingleMcpPrefix('MCP error -1: MCP error -2: x'), 'MCP error -1: MCP error -2: x', 'different codes are left alone');
  assert.equal(errorMessage(new Error('plain')), 'plain');
});

test('an error outcome keeps the code beside a message without prefix', () => {
  assert.deepEqual(errorOutcome(doubled), { kind: 'error', code: -32602, message: 'Task not found', data: undefined });
  assert.equal(withoutMcpPrefix('Task not found'), 'Task not found');
});
