// Issue 17, point 10: an SDK McpError re-wrapped by the SDK on this side shows its prefix once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, McpError, errorMessage, withSingleMcpPrefix, withoutMcpPrefix } from '../../../src/core/base/errors.js';
import { errorOutcome } from '../../../src/core/base/taskOutcome.js';

// What the SDK client makes of a server's McpError: the wire message already carries the prefix.
const doubled = new McpError(ErrorCode.InvalidParams, new McpError(ErrorCode.InvalidParams, 'Task not found').message);

test('the doubled prefix as the SDK produces it', () => {
  assert.equal(doubled.message, 'MCP error -32602: MCP error -32602: Task not found');
});

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
