import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { renderTaskDocument, taskUriParts, parseTaskUriPath } from '../../../src/core/view/render.js';
import { chooseModel, lastUserText, samplingSummary, type ModelInfo } from '../../../src/core/sampling/sampling.js';
import { canTransition, isTerminal, TASK_STATUSES } from '../../../src/core/base/taskState.js';
import { TaskTracker, taskModeFor } from '../../../src/core/requestor/tracker.js';
import { isActive, isCancellable, TaskView, type TaskViewItem } from '../../../src/core/view/taskView.js';
import { waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

const REQ = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } };

describe('task states (R-LIFE-1/2)', () => {
  test('terminal statuses and allowed moves', () => {
    assert.deepEqual(TASK_STATUSES.filter(isTerminal), ['completed', 'failed', 'cancelled']);
    for (const from of TASK_STATUSES) for (const to of TASK_STATUSES) assert.equal(canTransition(from, to), !isTerminal(from), `${from} → ${to}`);
  });
});

describe('R-CAP-3/4: when a tool call goes out as a task', () => {
  test('server capability and tool taskSupport decide', () => {
    assert.equal(taskModeFor(false, { execution: { taskSupport: 'required' } }, true), 'plain');
    assert.equal(taskModeFor(true, { execution: { taskSupport: 'required' } }, false), 'task');
    assert.equal(taskModeFor(true, { execution: { taskSupport: 'optional' } }, true), 'task');
    assert.equal(taskModeFor(true, { execution: { taskSupport: 'optional' } }, false), 'plain');
    assert.equal(taskModeFor(true, { execution: { taskSupport: 'forbidden' } }, true), 'plain');
    assert.equal(taskModeFor(true, {}, true), 'plain');
  });
});

describe('TaskView', () => {
  checkLeaks();

  test('coalesces a burst of changes into at most one event per interval, and ends with the final state', async () => {
    const ledger = new TaskLedger({ limits: { maxLiveTasksPerServer: 10_000, operationsPerSecond: 1e9, operationsBurst: 1e9 } });
    const tracker = new TaskTracker({ connectionFor: () => undefined });
    const view = new TaskView(ledger, tracker, { coalesceMs: 50 });
    const scope = ledger.forServer('s', 'S');
    let fired = 0;
    view.onDidChange(() => fired++);
    const ids: string[] = [];
    for (let i = 0; i < 500; i++) ids.push((await scope.createTask({}, i, REQ)).taskId);
    for (const id of ids) scope.setWaitingForUser(id, true, 'waiting');
    assert.ok(fired <= 1, `a synchronous burst of 1,000 changes fired ${fired} events at once`);
    await waitFor(view.onDidChange, () => true, 'the trailing event');
    assert.ok(fired <= 2);
    const c = view.counts();
    assert.equal(c.active, 500);
    assert.equal(c.waiting, 500);
    assert.equal(view.items().length, 500);
    view.dispose();
    tracker.dispose();
    ledger.dispose();
  });

  test('received tasks: state, title, copies', async () => {
    const ledger = new TaskLedger();
    const tracker = new TaskTracker({ connectionFor: () => undefined });
    const view = new TaskView(ledger, tracker, { coalesceMs: 0 });
    const scope = ledger.forServer('srv', 'Server');
    const t = await scope.createTask({}, 1, { method: 'elicitation/create', params: { message: 'Pick a colour', requestedSchema: {} } });
    let item = view.item(`received:srv/${t.taskId}`)!;
    assert.equal(item.title, 'Elicitation: Pick a colour');
    assert.equal(item.state, 'working');
    scope.setWaitingForUser(t.taskId, true);
    item = view.item(`received:srv/${t.taskId}`)!;
    assert.equal(item.state, 'waitingForUser');
    assert.ok(isCancellable(item.state) && isActive(item.state));
    scope.cancel(t.taskId, 'user');
    assert.equal(view.item(`received:srv/${t.taskId}`)!.state, 'cancelled');
    view.dispose();
    tracker.dispose();
    ledger.dispose();
  });
});

describe('result documents', () => {
  const base: TaskViewItem = {
    id: 'sent:demo/abc',
    kind: 'sent',
    key: 'demo/abc',
    direction: 'sent',
    serverId: 'demo',
    serverName: 'demo',
    taskId: 'abc',
    title: 'long_build',
    state: 'completed',
    createdAt: Date.parse('2026-01-01T00:00:00Z'),
    task: { taskId: 'abc', status: 'completed', ttl: 1000, createdAt: '2026-01-01T00:00:00.000Z', lastUpdatedAt: '2026-01-01T00:00:01.000Z', pollInterval: 500 },
  };

  test('Task fields, then text as text and JSON pretty-printed, images and resource links as links', () => {
    const md = renderTaskDocument({
      ...base,
      outcome: {
        kind: 'result',
        result: {
          content: [
            { type: 'text', text: 'Build finished.' },
            { type: 'text', text: '{"artifacts":["a.js"]}' },
            { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
            { type: 'resource_link', uri: 'file:///tmp/out.log', name: 'out.log' },
          ],
        },
      },
    });
    assert.match(md, /^# long_build/);
    assert.match(md, /\| taskId \| abc \|/);
    assert.match(md, /\| pollInterval \| 500 ms \|/);
    assert.match(md, /Build finished\./);
    assert.match(md, /```json\n\{\n {2}"artifacts": \[\n {4}"a\.js"\n {2}\]\n\}\n```/);
    assert.match(md, /\[image \(image\/png, \d+ bytes\)\]\(data:image\/png;base64,iVBORw0KGgo=\)/);
    assert.match(md, /\[out\.log\]\(file:\/\/\/tmp\/out\.log\)/);
  });

  test('an error with its code and message; isError results are flagged', () => {
    assert.match(renderTaskDocument({ ...base, state: 'failed', outcome: { kind: 'error', code: -32603, message: 'boom' } }), /JSON-RPC error \*\*-32603\*\*: boom/);
    assert.match(renderTaskDocument({ ...base, state: 'failed', outcome: { kind: 'result', result: { isError: true, content: [{ type: 'text', text: 'x' }] } } }), /isError: true/);
  });

  test('stable URI parts per task, named after the tool or request', () => {
    assert.deepEqual(taskUriParts({ serverId: 'my server', direction: 'received', taskId: 't/1', title: 'Elicitation: Deploy?' }), {
      authority: 'my%20server',
      path: '/received/t%2F1/Elicitation Deploy (received).md',
    });
    const sent = taskUriParts({ serverId: 'demo', direction: 'sent', taskId: 'abc-123', title: 'confirm_deploy' });
    assert.equal(sent.path, '/sent/abc-123/confirm_deploy result.md');
    assert.deepEqual(parseTaskUriPath(sent.path), { direction: 'sent', taskId: 'abc-123' });
    assert.deepEqual(parseTaskUriPath('/received/t%2F1/Elicitation Deploy (received).md'), { direction: 'received', taskId: 't/1' });
    assert.deepEqual(parseTaskUriPath('/sent/abc.md'), { direction: 'sent', taskId: 'abc' }, 'the older form still resolves');
    assert.equal(parseTaskUriPath('/other/abc.md'), undefined);
  });
});

describe('sampling: model choice and previews', () => {
  const models: ModelInfo[] = [
    { id: 'copilot-gpt-4o', name: 'GPT-4o', family: 'gpt-4o', vendor: 'copilot', maxInputTokens: 128_000 },
    { id: 'copilot-claude', name: 'Claude Sonnet', family: 'claude-sonnet', vendor: 'copilot', maxInputTokens: 200_000 },
    { id: 'small', name: 'Small', family: 'mini', vendor: 'x', maxInputTokens: 8_000 },
  ];
  test('pinned model, then hints, then priorities, else the default', () => {
    assert.equal(chooseModel(models, { hints: [{ name: 'claude' }] }, 'gpt-4o')?.id, 'copilot-gpt-4o');
    assert.equal(chooseModel(models, { hints: [{ name: 'nope' }, { name: 'sonnet' }] })?.id, 'copilot-claude');
    assert.equal(chooseModel(models, { intelligencePriority: 0.9, speedPriority: 0.1 })?.id, 'copilot-claude');
    assert.equal(chooseModel(models, { speedPriority: 0.9 })?.id, 'small');
    assert.equal(chooseModel(models, undefined)?.id, 'copilot-gpt-4o');
    assert.equal(chooseModel([], undefined), undefined);
  });
  test('previews name the system prompt, the messages and maxTokens', () => {
    const p = { systemPrompt: 'You are terse.', maxTokens: 42, messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'Hi there' } }] };
    assert.equal(lastUserText(p), 'Hi there');
    assert.match(samplingSummary(p), /^last: "Hi there" · 1 message · maxTokens 42 · system: "You are terse\."$/);
  });
});
