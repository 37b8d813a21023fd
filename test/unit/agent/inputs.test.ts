/**
 * The language-model tools' inputs: zod errors written for the model, the result wait capped,
 * and the JSON schemas in package.json (what the model sees) in step with the zod schemas.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentToolNames, MAX_RESULT_WAIT_SECONDS, parseAgentInput } from '../../../src/core/agent/inputs.js';
import { AgentInputSchemas } from '../../../src/core/agent/agentInputSchemas.js';
import { ROOT } from '../../helpers/host.js';

describe('agent tool inputs', () => {
  test('missing and mistyped fields are named, each once', () => {
    assert.throws(() => parseAgentInput('mcpTasks_startTask', {}), { message: 'Invalid input for mcpTasks_startTask: "server" is required; "tool" is required.' });
    assert.throws(() => parseAgentInput('mcpTasks_startTask', undefined), /"server" is required/);
    assert.throws(() => parseAgentInput('mcpTasks_startTask', { server: 3, tool: 'x' }), /"server" must be a string/);
    assert.throws(() => parseAgentInput('mcpTasks_startTask', { server: 'a', tool: 'b', arguments: [1] }), /"arguments" must be a JSON object/);
    assert.throws(() => parseAgentInput('mcpTasks_cancelTask', { taskId: '  ' }), /"taskId" must not be empty/);
    assert.throws(() => parseAgentInput('mcpTasks_getTaskResult', { taskId: 'a', waitSeconds: -1 }), /"waitSeconds" must be 0 or more/);
  });

  test('waitSeconds defaults to 30 and is capped at MAX_RESULT_WAIT_SECONDS', () => {
    assert.equal(parseAgentInput('mcpTasks_getTaskResult', { taskId: 'a' }).waitSeconds, 30);
    assert.equal(parseAgentInput('mcpTasks_getTaskResult', { taskId: 'a', waitSeconds: 3600 }).waitSeconds, MAX_RESULT_WAIT_SECONDS);
  });

  test('package.json declares each tool with the same fields and required fields as its zod schema', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      contributes: { languageModelTools: Array<{ name: string; modelDescription: string; inputSchema: { properties: Record<string, unknown>; required?: string[] } }> };
    };
    const declared = pkg.contributes.languageModelTools;
    assert.deepEqual(declared.map((t) => t.name).sort(), Object.values(AgentToolNames).sort());
    for (const t of declared) {
      const shape = AgentInputSchemas[t.name as keyof typeof AgentInputSchemas].shape as Record<string, { isOptional(): boolean }>;
      assert.deepEqual(Object.keys(t.inputSchema.properties).sort(), Object.keys(shape).sort(), t.name);
      const required = Object.keys(shape).filter((k) => !shape[k]!.isOptional());
      assert.deepEqual([...(t.inputSchema.required ?? [])].sort(), required.sort(), t.name);
      assert.ok(t.modelDescription.length > 80, `${t.name} has a model description`);
    }
  });
});
