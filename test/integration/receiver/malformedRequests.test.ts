/**
 * R-ERR-1: a malformed request from a server is answered -32602 (Invalid params) with one sentence
 * naming the method, the field and what was expected — never -32603, never the validator's JSON
 * list of issues — on both revisions, against real servers over stdio:
 *
 * - 2025-11-25 (the probe fixture, an SDK server sending raw requests): every `tasks/*` request the
 *   host serves as a receiver (tasks/get, tasks/result, tasks/list, tasks/cancel), and
 *   `sampling/createMessage` / `elicitation/create`, plain and task-augmented, each with a field
 *   missing and a field of the wrong type. The answer is read back as the server received it.
 * - 2026-07-28 (the inputRequests2026 fixture, an SDK v2 server): a server asks only inside a
 *   result (`input_required`), so there is no wire answer to a malformed request — the call it came
 *   in (sent by the tracker, which drives its rounds) fails locally with the same -32602 and the
 *   same sentence; and a Tasks-extension task's
 *   `inputRequests` (answered with tasks/update) go through `respondToInput`, which says the same.
 *   The host serves no `tasks/*` as a receiver on this revision (tasks/update is the server's).
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, makeHost, stdioDefinition, textOf } from '../../helpers/host.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { checkLeaks } from '../../helpers/leaks.js';
import { closingLink } from '../../helpers/callLinks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

type Host = ReturnType<typeof makeHost>;
interface Case {
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** The field the sentence must name, as it names it. */
  readonly field: string;
  readonly missing: boolean;
}

const MESSAGES = [{ role: 'user', content: { type: 'text', text: 'hi' } }];
const FORM = { type: 'object', properties: { name: { type: 'string' } } };

/** Sampling and elicitation with a field missing and a field of the wrong type; `task` makes each a create. */
function promptCases(task?: Record<string, unknown>): Case[] {
  const t = task ? { task } : {};
  return [
    { method: 'sampling/createMessage', params: { maxTokens: 5, ...t }, field: 'params.messages', missing: true },
    { method: 'sampling/createMessage', params: { messages: 'hi', maxTokens: 5, ...t }, field: 'params.messages', missing: false },
    { method: 'sampling/createMessage', params: { messages: MESSAGES, ...t }, field: 'params.maxTokens', missing: true },
    { method: 'sampling/createMessage', params: { messages: MESSAGES, maxTokens: 'many', ...t }, field: 'params.maxTokens', missing: false },
    { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 7 } }], maxTokens: 5, ...t }, field: 'params.messages[0].content.text', missing: false },
    { method: 'elicitation/create', params: { requestedSchema: FORM, ...t }, field: 'params.message', missing: true },
    { method: 'elicitation/create', params: { message: 42, requestedSchema: FORM, ...t }, field: 'params.message', missing: false },
    { method: 'elicitation/create', params: { message: 'Who?', requestedSchema: 'a form', ...t }, field: 'params.requestedSchema', missing: false },
  ];
}

const TASK_CASES: Case[] = [
  { method: 'tasks/get', params: {}, field: 'params.taskId', missing: true },
  { method: 'tasks/get', params: { taskId: 42 }, field: 'params.taskId', missing: false },
  { method: 'tasks/result', params: {}, field: 'params.taskId', missing: true },
  { method: 'tasks/result', params: { taskId: ['a'] }, field: 'params.taskId', missing: false },
  { method: 'tasks/list', params: { cursor: 17 }, field: 'params.cursor', missing: false },
  { method: 'tasks/cancel', params: {}, field: 'params.taskId', missing: true },
  { method: 'tasks/cancel', params: { taskId: null }, field: 'params.taskId', missing: false },
];

/** The checks on one answer: -32602, one readable sentence that names the method and the field. */
function assertOneSentence(c: Case, error: { code?: number; message?: string } | undefined, label: string): void {
  assert.ok(error, `${label}: must fail`);
  assert.equal(error.code, -32602, `${label}: ${error.message}`);
  // The probe's (2025) SDK puts "MCP error -32602: " in front of what came on the wire.
  const text = String(error.message).replace(/^MCP error -32602: /, '');
  assert.ok(text.startsWith(`${c.method}: ${c.field} `), `${label}: names the method and the field: ${text}`);
  assert.match(text, c.missing ? /is required \(expected / : / must be /, `${label}: says what was expected: ${text}`);
  assert.ok(!/[\r\n]/.test(text), `${label}: one line: ${JSON.stringify(text)}`);
  assert.ok(!/\[\s*\{|\{\s*"|"code"|invalid_type|invalid_union/.test(text), `${label}: no validator dump: ${text}`);
  assert.ok(text.length < 160, `${label}: one short sentence (${text.length} characters): ${text}`);
}

describe('R-ERR-1: malformed server requests get -32602 and one sentence', () => {
  const hosts: Host[] = [];
  const start = async (name: string, script: string) => {
    const h = makeHost(stdioDefinition(name, process.execPath, [fixture(script)]), { operationsPerSecond: 10_000, operationsBurst: 10_000 });
    hosts.push(h);
    await h.connection.start();
    return h;
  };
  // Each test's host is disposed after it (before the leak check, which is outside this describe).
  afterEach(() => {
    for (const h of hosts.splice(0)) h.dispose();
  });

  test('2025-11-25: every tasks/* request the host serves, and sampling/elicitation plain and task-augmented, missing and wrong-typed fields', { timeout: 60_000 }, async () => {
    const h = await start('probe-2025', 'probeServer');
    assert.equal(h.connection.state.kind === 'running' && h.connection.state.protocolVersion, '2025-11-25');
    const cases = [...TASK_CASES, ...promptCases(), ...promptCases({ ttl: 60_000 })];
    const r = await h.connection.client.callTool({ name: 'probe', arguments: { steps: cases.map(({ method, params }) => ({ method, params })) } }, { timeout: 60_000 });
    const answers = JSON.parse(textOf(r)) as Array<{ result?: unknown; error?: { code: number; message: string } }>;
    assert.equal(answers.length, cases.length);
    for (const [i, c] of cases.entries()) assertOneSentence(c, answers[i]!.error, `${c.method} ${JSON.stringify(c.params)}`);
    assert.equal(h.tasks.snapshot().length, 0, 'no task was made of a malformed create');
    assert.equal(h.responders.calls.length, 0, 'no malformed request reached a responder');
  });

  test('2026-07-28: malformed input requests fail the call with -32602 and one sentence, inline (input_required) and inside a task (respondToInput)', { timeout: 60_000 }, async () => {
    const h = await start('input-2026', 'inputRequests2026');
    assert.equal(h.connection.state.kind === 'running' && h.connection.state.protocolVersion, '2026-07-28');
    // The call's owner (the tracker's sent call) drives its rounds; the call's outcome is what the host said.
    const tracker = new TaskTracker({ connectionFor: () => h.connection, minPollIntervalMs: 10 });
    const ask = async (requests: Record<string, unknown>) => tracker.get(await tracker.callTool(h.connection, { name: 'ask' }, { requests }))!.outcome;
    try {
      for (const c of [...promptCases(), ...promptCases({ ttl: 60_000 })]) {
        const label = `input_required ${c.method} ${JSON.stringify(c.params)}`;
        const outcome = await ask({ q: { method: c.method, params: c.params } });
        assert.equal(outcome?.kind, 'error', `${label}: answered ${JSON.stringify(outcome)}`);
        assertOneSentence(c, outcome.kind === 'error' ? outcome : undefined, label);
      }
      // The connection stays healthy: a well-formed request of the same call is answered.
      const ok = await ask({ q: { method: 'sampling/createMessage', params: { messages: MESSAGES, maxTokens: 5 } } });
      assert.match(ok?.kind === 'result' ? textOf(ok.result) : JSON.stringify(ok), /echo: hi/);
    } finally {
      tracker.dispose();
    }
    for (const c of promptCases()) {
      const label = `task inputRequests ${c.method} ${JSON.stringify(c.params)}`;
      const call = { key: () => 'k', serverId: h.connection.id, serverName: h.connection.name, taskId: () => 't', ...closingLink(), maxQuestions: () => 100 };
      const error = await h.receiver.respondToInput({ method: c.method, params: c.params }, call, 'q', new AbortController().signal).then(
        (r) => assert.fail(`${label}: answered ${JSON.stringify(r)}`),
        (e: { code?: number; message?: string }) => e,
      );
      assertOneSentence(c, error, label);
    }
    assert.equal(h.responders.calls.length, 1, 'no malformed request reached a responder (only the well-formed one)');
  });
});
