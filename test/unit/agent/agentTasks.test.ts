/**
 * The logic behind the language-model tools (src/core/agent) on a real TaskTracker against the
 * scripted task server: start returns at once with a task id (R-CAP-3/4), status and progress,
 * bounded result waits (failed tasks return their payload, R-RESULT-1), cancel (R-CANCEL-1), a
 * tool that cannot run as a task runs plainly; and the limits: only running servers, only
 * listed tools, only tasks chat started.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import { Emitter } from '../../../src/core/base/event.js';
import { NULL_LOG, type RequestorConnection } from '../../../src/core/connection/connection.js';
import type { HostClient } from '../../../src/core/connection/hostClient.js';
import { AgentTasks, describeServer } from '../../../src/core/agent/agentTasks.js';
import { AgentInputError, parseAgentInput } from '../../../src/core/agent/inputs.js';
import { MAX_RESULT_CHARS } from '../../../src/core/agent/replies.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';

const TOOLS: Tool[] = [
  { name: 'work', description: 'Long work', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, execution: { taskSupport: 'required' } },
  { name: 'maybe', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } },
  { name: 'now', inputSchema: { type: 'object' }, execution: { taskSupport: 'forbidden' } },
];

/** A running server without task support whose tools/call answers plainly. */
function plainConnection(name: string, answer: string): RequestorConnection {
  const notifications = new Emitter<never>();
  const def = definition(name);
  return {
    id: def.id,
    name: def.name,
    definition: def,
    log: NULL_LOG,
    onDidReceiveNotification: notifications.event,
    state: { kind: 'running', capabilities: {} },
    serverCapabilities: {},
    continuity: { kind: 'first' },
    origin: undefined,
    sides: [],
    // The one call the agent makes of a plain server.
    client: { callTool: async (p: { arguments: { text?: string } }) => ({ content: [{ type: 'text', text: `${answer} ${p.arguments.text ?? ''}`.trim() }] }) } as unknown as HostClient,
  };
}

let disposables: Array<{ dispose(): void }> = [];
afterEach(() => {
  disposables.forEach((d) => d.dispose());
  disposables = [];
});

function setup() {
  const server = new FakeTaskServer();
  server.pollInterval = 10;
  const demo = server.connection(definition('demo'));
  const stopped = server.connection(definition('off'), { kind: 'stopped' });
  const plain = plainConnection('plain', 'answered');
  const connections: RequestorConnection[] = [demo, stopped, plain];
  const tracker = new TaskTracker({ connectionFor: (id) => connections.find((c) => c.id === id), minPollIntervalMs: 10 });
  disposables.push(tracker);
  const agent = new AgentTasks({
    connections: () => connections,
    tracker,
    optionalAsTask: () => true,
    listTools: async (c) => (c === plain ? [{ name: 'echo', inputSchema: { type: 'object' } }] : TOOLS),
  });
  return { server, tracker, agent };
}

const start = (agent: AgentTasks, input: unknown) => agent.startTask(parseAgentInput('mcpTasks_startTask', input));
const result = (agent: AgentTasks, input: unknown) => agent.getTaskResult(parseAgentInput('mcpTasks_getTaskResult', input));

describe('agent tools: listTools', () => {
  test('running servers with each tool\'s task support and how it would run; stopped servers by name only', async () => {
    const { agent } = setup();
    const r = await agent.listTools(parseAgentInput('mcpTasks_listTools', {}));
    const servers = r.servers as Array<{ server: string; tools: Array<{ name: string; taskSupport: string; runsAs: string }> }>;
    assert.deepEqual(servers.map((s) => s.server), ['demo', 'plain']);
    assert.deepEqual(servers[0]!.tools.map((t) => [t.name, t.taskSupport, t.runsAs]), [['work', 'required', 'task'], ['maybe', 'optional', 'task'], ['now', 'forbidden', 'plain']]);
    assert.deepEqual(servers[1]!.tools.map((t) => [t.name, t.taskSupport, t.runsAs]), [['echo', 'none', 'plain']]);
    assert.deepEqual(r.notRunning, ['off (stopped)']);
  });
});

describe('agent tools: start, status, result, cancel', () => {
  test('start answers at once with the task id and a next step; the task is marked started by chat (R-CAP-3)', async () => {
    const { agent, tracker, server } = setup();
    const r = await start(agent, { server: 'demo', tool: 'work', arguments: { n: 1 } });
    assert.equal(r.ranAsTask, true);
    assert.equal(r.status, 'working');
    // The tracker's key (fixed when the call was made; the server's id is `t1`).
    const key = String(r.taskId);
    assert.equal(tracker.get(key)?.task?.taskId, 't1');
    assert.match(String(r.message), /mcpTasks_getTaskResult/);
    assert.equal(tracker.get(key)?.startedBy, 'chat');
    assert.equal(server.count('tools/call'), 1);
    const status = agent.getTaskStatus(parseAgentInput('mcpTasks_getTaskStatus', { taskId: key }));
    assert.equal(status.status, 'working');
    assert.equal(status.resultAvailable, false);
  });

  test('getTaskResult waits for the end and returns the result; the server task id alone is accepted too', async () => {
    const { agent, server } = setup();
    await start(agent, { server: 'demo', tool: 'work' });
    const waiting = result(agent, { taskId: 't1', waitSeconds: 30 });
    server.set('t1', 'completed', { content: [{ type: 'text', text: 'built!' }] });
    const r = await waiting;
    assert.equal(r.status, 'completed');
    assert.equal(r.isError, false);
    assert.equal(r.result, 'built!');
  });

  test('a failed task returns its payload with isError (R-RESULT-1)', async () => {
    const { agent, server } = setup();
    const { taskId: key } = await start(agent, { server: 'demo', tool: 'work' });
    const waiting = result(agent, { taskId: String(key) });
    server.set('t1', 'failed', { content: [{ type: 'text', text: 'compiler exploded' }], isError: true });
    const r = await waiting;
    assert.equal(r.status, 'failed');
    assert.equal(r.isError, true);
    assert.equal(r.result, 'compiler exploded');
  });

  test('a long result is cut to MAX_RESULT_CHARS and says so', async () => {
    const { agent, server } = setup();
    const { taskId: key } = await start(agent, { server: 'demo', tool: 'work' });
    const waiting = result(agent, { taskId: String(key) });
    server.set('t1', 'completed', { content: [{ type: 'text', text: 'x'.repeat(MAX_RESULT_CHARS + 500) }] });
    const text = String((await waiting).result);
    assert.ok(text.startsWith('x'.repeat(MAX_RESULT_CHARS)));
    assert.match(text, /500 more characters not shown/);
  });

  test('waitSeconds 0 answers with the status of a running task at once', async () => {
    const { agent } = setup();
    const { taskId: key } = await start(agent, { server: 'demo', tool: 'work' });
    const r = await result(agent, { taskId: String(key), waitSeconds: 0 });
    assert.equal(r.status, 'working');
    assert.equal(r.result, undefined);
    assert.match(String(r.message), /still working/);
  });

  test('cancel sends tasks/cancel and reports cancelled (R-CANCEL-1); a second cancel says it has ended', async () => {
    const { agent, server } = setup();
    const { taskId: key } = await start(agent, { server: 'demo', tool: 'work' });
    const r = await agent.cancelTask(parseAgentInput('mcpTasks_cancelTask', { taskId: String(key) }));
    assert.equal(server.count('tasks/cancel', 't1'), 1);
    assert.equal(r.status, 'cancelled');
    const again = await agent.cancelTask(parseAgentInput('mcpTasks_cancelTask', { taskId: String(key) }));
    assert.match(String(again.message), /already ended/);
    assert.equal(server.count('tasks/cancel', 't1'), 1);
  });

  test('a tool that cannot run as a task runs plainly and its result comes back at once', async () => {
    const { agent, tracker } = setup();
    const r = await start(agent, { server: 'plain', tool: 'echo', arguments: { text: 'hi' } });
    assert.equal(r.ranAsTask, false);
    assert.equal(r.status, 'completed');
    assert.equal(r.result, 'answered hi');
    assert.match(String(r.message), /cannot run as a task/);
    assert.equal(tracker.snapshot().find((s) => s.serverId === 'plain')?.startedBy, 'chat');
  });
});

describe('agent tools: what the model may not do', () => {
  test('a stopped server is not started; an unknown server or tool is named with what exists', async () => {
    const { agent, server } = setup();
    await assert.rejects(start(agent, { server: 'off', tool: 'work' }), (e: Error) => e instanceof AgentInputError && /not running \(stopped\).*never starts servers/.test(e.message));
    await assert.rejects(start(agent, { server: 'nope', tool: 'work' }), /No MCP server "nope".*demo, off, plain/);
    await assert.rejects(start(agent, { server: 'demo', tool: 'rm_rf' }), /no tool "rm_rf".*work, maybe, now/);
    assert.equal(server.count('tools/call'), 0);
  });

  test('tasks the user started are neither visible to nor cancellable by chat', async () => {
    const { agent, tracker, server } = setup();
    const demo = server.connection(definition('demo'));
    const key = await tracker.callTool(demo, TOOLS[0]!, {});
    assert.equal(tracker.get(key)?.startedBy, undefined);
    assert.throws(() => agent.getTaskStatus(parseAgentInput('mcpTasks_getTaskStatus', { taskId: key })), /was started by chat/);
    await assert.rejects(agent.cancelTask(parseAgentInput('mcpTasks_cancelTask', { taskId: key })), /was started by chat/);
    await assert.rejects(result(agent, { taskId: key }), /was started by chat/);
    assert.equal(server.count('tasks/cancel'), 0);
  });

  test('the start confirmation names the server (with its command line), the tool and the arguments', () => {
    const { agent } = setup();
    const d = agent.describeStart(parseAgentInput('mcpTasks_startTask', { server: 'demo', tool: 'work', arguments: { n: 2 } }));
    assert.deepEqual(d, { server: 'demo', serverDetail: 'node demo', tool: 'work', args: '{\n  "n": 2\n}' });
  });

  test('the confirmation\'s command line or URL is redacted as the tree\'s tooltip is: no literal secret of the definition shows', () => {
    const stdio = { ...definition('secretive'), transport: { type: 'stdio' as const, command: 'node', args: ['s.js', '--token=ghp_literal12345', '--api-key', 'sk-literal-67890', '--mode', 'fast'], env: {} } };
    const http = { ...definition('remote'), transport: { type: 'http' as const, url: 'https://user:hunter2pass@mcp.example/mcp?access_token=tok-literal-4242', headers: {} } };
    const asConnection = (def: typeof stdio | typeof http) => ({ id: def.id, name: def.name, definition: def });
    const line = describeServer(asConnection(stdio));
    assert.equal(line, 'node s.js --token=[redacted] --api-key [redacted] --mode fast');
    const url = describeServer(asConnection(http));
    for (const secret of ['hunter2pass', 'tok-literal-4242']) assert.ok(!url.includes(secret), url);
    assert.match(url, /^https:\/\/user:\[redacted\]@mcp\.example\/mcp/);
  });
});
