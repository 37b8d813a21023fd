/**
 * The one sentence a malformed request is answered with (paramIssues.ts), from the SDK's real
 * schemas: the field and what was expected, on one short line whatever the server sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/core';
import { invalidParams, paramsSentence, sdkValidationIssues } from '../../../src/core/base/paramIssues.js';

function sentence(schema: typeof CreateMessageRequestSchema | typeof ElicitRequestSchema, request: Record<string, unknown>): string {
  const parsed = schema.safeParse(request);
  assert.ok(!parsed.success, 'the request is malformed');
  const e = invalidParams(String(request.method), parsed.error, request);
  assert.equal(e.code, -32602);
  return e.message;
}

test('missing, wrong-typed, nested and union fields are named with what was expected', () => {
  const s = (params: Record<string, unknown>) => sentence(CreateMessageRequestSchema, { method: 'sampling/createMessage', params });
  assert.equal(s({ maxTokens: 1 }), 'sampling/createMessage: params.messages is required (expected an array)');
  assert.equal(s({ messages: {}, maxTokens: 1 }), 'sampling/createMessage: params.messages must be an array, not an object');
  assert.equal(s({ messages: [], maxTokens: 1.5 }), 'sampling/createMessage: params.maxTokens must be an integer, not a fractional number');
  assert.equal(s({ messages: [{ role: 'user', content: { type: 'text', text: null } }], maxTokens: 1 }), 'sampling/createMessage: params.messages[0].content.text must be a string, not null');
  const e = (params: Record<string, unknown>) => sentence(ElicitRequestSchema, { method: 'elicitation/create', params });
  // A form (no mode) is not taken for a URL elicitation missing its url.
  assert.equal(e({ message: 1, requestedSchema: { type: 'object', properties: {} } }), 'elicitation/create: params.message must be a string, not a number');
  assert.match(e({ mode: 'url', message: 'm', elicitationId: 'e' }), /^elicitation\/create: params\.url is required \(expected a string\)$/);
});

test('server text in the path is quoted, on one line and short', () => {
  const key = `evil\n${'k'.repeat(500)}`;
  const request = { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: { [key]: 5 } } } };
  const text = sentence(ElicitRequestSchema, request);
  assert.ok(!/[\r\n]/.test(text), text);
  assert.ok(text.length < 300, `${text.length}: ${text}`);
  assert.match(text, /^elicitation\/create: params\.requestedSchema\.properties\["evil\\nkkkk/);
});

test('the SDK’s own validation error (zod text as its message) gives the same sentence; other errors are left alone', () => {
  const request = { method: 'sampling/createMessage', params: { maxTokens: 1 } };
  const parsed = CreateMessageRequestSchema.safeParse(request);
  assert.ok(!parsed.success);
  const issues = sdkValidationIssues(new Error(`Invalid sampling request: ${String(parsed.error)}`));
  assert.ok(issues);
  assert.equal(paramsSentence('sampling/createMessage', issues, request), 'sampling/createMessage: params.messages is required (expected an array)');
  assert.ok(sdkValidationIssues(new Error(String(parsed.error))), 'the bare zod text too');
  assert.equal(sdkValidationIssues(new Error('User rejected the request')), undefined);
  assert.equal(sdkValidationIssues(new Error('The model said: [1, 2]')), undefined);
  assert.equal(paramsSentence('tasks/get', [], {}), 'tasks/get: the params are invalid');
});
