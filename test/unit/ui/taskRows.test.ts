/**
 * What a task's row says (src/ui/view/tasksTree.ts, `vscode` stubbed): thirty runs of one tool told
 * apart by their arguments, a finished row's outcome instead of its last working message, clocks
 * that stop when the call ends, and a call waiting for input with its request nested under it and
 * opened by a click on the call's row.
 */
import '../../helpers/vscodeStub.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { DisposableStore } from '../../../src/core/base/lifecycle.js';
import type { ServerRegistry } from '../../../src/core/connection/registry.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker } from '../../../src/core/requestor/tracker.js';
import { OpenRequests } from '../../../src/core/view/openRequests.js';
import { distinguishingArguments, knownArguments, outcomeLine, shortArguments } from '../../../src/core/view/rowText.js';
import { TaskView, type SentTaskViewItem, type TaskViewItem } from '../../../src/core/view/taskView.js';
import { Commands } from '../../../src/ui/commands/commandIds.js';
import { taskDescription, taskPickRow, taskTooltip, taskTreeItem } from '../../../src/ui/view/taskPresentation.js';
import { TasksTreeProvider, type TasksNode } from '../../../src/ui/view/tasksTree.js';
import { FakeTaskServer, definition } from '../../helpers/fakeTaskServer.js';
import { FakeTreeView } from '../../helpers/fakeTreeView.js';
import { waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const sent = (over: Partial<SentTaskViewItem>): SentTaskViewItem => ({
  id: 'sent:s/t1',
  kind: 'sent',
  key: 's/t1',
  direction: 'sent',
  serverId: 's',
  serverName: 'everything',
  taskId: 't1',
  title: 'simulate-research-query',
  state: 'working',
  createdAt: T0,
  ...over,
});

describe('a task row tells what it is', () => {
  test('its arguments in a few words first in its description (the rows of one tool told apart)', () => {
    assert.equal(taskDescription(sent({ argsSummary: '{"topic":"quantum computing","ambiguous":true}' }), T0 + 4_000), 'topic: quantum computing, ambiguous: true · 4s · working');
    assert.equal(taskDescription(sent({ argsSummary: '{}' }), T0 + 4_000), '4s · working');
    assert.equal(taskDescription(sent({ argsSummary: '{"n":1}', startedBy: 'chat' }), T0 + 4_000), 'by chat · n: 1 · 4s · working');
    assert.equal(shortArguments('{"text":"a very long text that goes on and on and on and on","n":1}'), 'text: a very long text that goes on and on and …');
    // One style, whole or cut off when stored (summarize cuts a long summary at 120 characters).
    assert.equal(shortArguments('{"text":"cut off when stored…'), 'text: cut off when stored…');
    assert.equal(shortArguments('{"duration":10,"message":"0123456789 and so on…'), 'duration: 10, message: 0123456789 and so on…');
    assert.equal(shortArguments('{"n":1,"opts":{"a":[1,2…'), 'n: 1, opts: {"a":[1,2…');
    assert.equal(shortArguments('{"q":"a \\"quoted\\" \\u00e9 word\\u00…'), 'q: a "quoted" é word…', 'escapes decoded, one cut in half left out');
    const request: TaskViewItem = { ...sent({ argsSummary: '{"a":1}' }), kind: 'request', direction: 'received', mode: 'plain', title: 'Sampling', method: 'sampling/createMessage' };
    assert.equal(taskDescription(request, T0 + 4_000), '4s · working', 'a received request has no arguments of ours');
  });

  test('thirty calls of one long-named tool: what tells each apart comes before the tool name', () => {
    const calls = Array.from({ length: 30 }, (_, n) => ({ id: `c${n}`, argsSummary: JSON.stringify({ duration: 10, steps: n + 1, message: 'same' }) }));
    const d = distinguishingArguments(calls);
    assert.equal(d.size, 30);
    assert.equal(d.get('c0'), 'steps: 1');
    assert.equal(d.get('c29'), 'steps: 30');
    assert.equal(new Set(d.values()).size, 30, 'no two alike');
    // A key present in some calls only, and a cut summary, read in the same style.
    const mixed = distinguishingArguments([
      { id: 'a', argsSummary: '{"x":1}' },
      { id: 'b', argsSummary: '{"x":1,"y":"extra"}' },
      { id: 'c', argsSummary: `{"x":1,"long":"${'9'.repeat(20)}…` },
    ]);
    assert.deepEqual([...mixed], [['b', 'y: extra'], ['c', `long: ${'9'.repeat(20)}…`]]);
    assert.equal(distinguishingArguments([{ id: 'a', argsSummary: '{"x":1}' }]).size, 0, 'a tool called once keeps its name alone');
    assert.equal(distinguishingArguments([{ id: 'a', argsSummary: '{"x":1}' }, { id: 'b', argsSummary: '{"x":1}' }]).size, 0, 'identical calls: nothing tells them apart');
    // The row: those arguments first, the tool name after; the description no longer repeats them.
    const row = taskTreeItem(sent({ title: 'trigger-long-running-operation', argsSummary: '{"duration":10,"steps":7}', state: 'completed', endedAt: T0 + 2_000 }), false, 'steps: 7');
    assert.equal(row.label, 'steps: 7 · trigger-long-running-operation');
    assert.equal(row.description, '2s · completed');
  });

  test('a call whose request waits for the user reads "waiting for you", not its phase and the SDK\'s round', () => {
    const asking = sent({ state: 'sending', mode: 'task', progress: { progress: 0, message: 'asks for input (round 1)' } });
    assert.equal(taskDescription(asking, T0 + 3_000), '3s · sending: asks for input (round 1)', 'alone, as it is');
    const row = taskTreeItem(asking, false, undefined, true) as vscode.TreeItem & { command?: { command: string } };
    assert.equal(row.description, 'waiting for you');
    assert.equal(row.command?.command, Commands.respond, 'a click opens the request under it');
  });

  test('Run Again after a reload: only what the stored summary holds whole and unredacted is filled in', () => {
    assert.deepEqual(knownArguments('{"duration":10,"apiKey":"[redacted]","auth":"Bearer [redacted]","opts":{"a":1}}'), { duration: 10, opts: { a: 1 } });
    assert.deepEqual(knownArguments('{"steps":3,"message":"cut off when sto…'), { steps: 3 });
    assert.deepEqual(knownArguments(undefined), {});
  });

  test('as a quick pick row: the server\'s words draw no icon and break no line', () => {
    const forged = sent({ title: '$(pass-filled) Verified by your organisation\nrun me', serverName: 'srv $(shield)', taskId: 'id\u202Eevil', state: 'working' });
    const row = taskPickRow(forged, 'sent');
    assert.equal(row.label, '$(sync~spin) \\$(pass-filled) Verified by your organisation\\u000Arun me', 'only our own state icon is drawn');
    assert.equal(row.description, 'srv \\$(shield) · sent · working');
    assert.match(row.detail, /· id\\u202Eevil$/);
  });

  test('finished: its outcome, not the last status or progress message it showed while working', () => {
    const done = sent({
      state: 'completed',
      detail: 'Generating report...',
      progress: { progress: 3, total: 4, message: 'Synthesizing findings' },
      task: { taskId: 't1', status: 'completed', statusMessage: 'Generating report...', createdAt: new Date(T0).toISOString(), lastUpdatedAt: new Date(T0 + 4_000).toISOString(), ttl: null },
      outcome: { kind: 'result', result: { content: [{ type: 'text', text: '# Research Report: quantum\n\n## Parameters' }] } },
    });
    const d = taskDescription(done, T0 + 600_000);
    assert.equal(d, '4s · completed: Research Report: quantum');
    assert.doesNotMatch(d, /Generating|75%/);
    // Failed: the error; cancelled: this host's note.
    assert.equal(outcomeLine({ ...done, state: 'failed', outcome: { kind: 'error', code: -32603, message: 'boom' } }), 'boom');
    assert.equal(outcomeLine({ ...done, state: 'cancelled', outcome: undefined, detail: 'Cancelled by the user' }), 'Cancelled by the user');
    assert.equal(outcomeLine({ ...done, state: 'completed', outcome: undefined }), undefined, 'no result yet: no text that is not its outcome');
    // While it works, its progress message as before.
    assert.match(taskDescription({ ...done, state: 'working', outcome: undefined, task: undefined }, T0 + 2_000), /75% · working: Synthesizing findings/);
  });

  test('a plain call\'s clock stops when it ends; while it runs it is "running"', () => {
    const plain = sent({ mode: 'plain', state: 'completed', endedAt: T0 + 82_000 });
    assert.equal(taskDescription(plain, T0 + 191_000), '1m 22s · completed');
    assert.equal(taskDescription({ ...plain, state: 'running', endedAt: undefined }, T0 + 5_000), '5s · running');
  });

  test('a lost task: its clock stops where it was found lost (not "2s", its last update); its tooltip says what its row says', () => {
    const working = { taskId: 't1', status: 'working' as const, createdAt: new Date(T0).toISOString(), lastUpdatedAt: new Date(T0 + 2_000).toISOString(), ttl: null };
    const lost = sent({ state: 'error', task: working, endedAt: T0 + 96_000, detail: 'Lost: "everything" runs as a new process' });
    assert.equal(taskDescription(lost, T0 + 26 * 60_000), '1m 36s · error: Lost: "everything" runs as a new process');
    const tip = (taskTooltip(lost) as vscode.MarkdownString).value;
    assert.match(tip, /\| status \| error \|/, tip);
    assert.doesNotMatch(tip, /\| status \| working \|/);
    assert.match(tip, /\| last status from the server \| working \|/);
    assert.match(tip, new RegExp(`\\| ended \\| ${new Date(T0 + 96_000).toISOString()} \\|`));
    // Expired alike; a task still working has one status, the server's.
    assert.equal(taskDescription({ ...lost, state: 'expired', detail: 'It outlived its ttl' }, T0 + 26 * 60_000), '1m 36s · expired: It outlived its ttl');
    const live = (taskTooltip(sent({ task: working })) as vscode.MarkdownString).value;
    assert.match(live, /\| status \| working \|/);
    assert.doesNotMatch(live, /last status from the server|\| ended/);
  });
});

describe('a call waiting for input: its request is under it, and a click on it opens that request', () => {
  checkLeaks();

  test('the plain request naming the task is nested under the task row; the task row responds', async () => {
    const server = new FakeTaskServer();
    server.pollInterval = 10;
    const connection = server.connection(definition('srv'));
    const noEvent = () => ({ dispose() {} });
    const registry = { connections: [connection], get: (id: string) => (id === connection.id ? connection : undefined), onDidChangeState: noEvent, onDidChangeConnections: noEvent } as unknown as ServerRegistry;
    const ledger = new TaskLedger();
    const tracker = new TaskTracker({ connectionFor: (id) => (id === connection.id ? connection : undefined), minPollIntervalMs: 10 });
    const requests = new OpenRequests();
    const view = new TaskView(ledger, tracker, { coalesceMs: 0, requests });
    const provider = new TasksTreeProvider(registry, view);
    provider.setVisible(true);
    const screen = new FakeTreeView<TasksNode>(provider);
    const controller = new AbortController();
    /** The request's context store (a responder's context owns one; the test does here). */
    const store = new DisposableStore();
    try {
      const key = await tracker.callTool(connection, { name: 'research', execution: { taskSupport: 'required' } }, { topic: 'quantum' });
      server.set('t1', 'input_required');
      await waitFor(view.onDidChange, () => view.item(`sent:${key}`)?.state === 'inputRequired', 'input required');
      void requests
        .serve(
          { serverId: 'srv', serverName: 'srv', definition: connection.definition, signal: controller.signal, store, relatedTaskId: 't1', owner: { kind: 'plain', relatedTaskId: 't1' }, setWaitingForUser: () => undefined },
          'elicitation/create',
          { message: 'Which interpretation?', requestedSchema: { type: 'object', properties: {} } },
          (ctx) => {
            ctx.setWaitingForUser(true);
            return new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('withdrawn')), { once: true }));
          },
        )
        .catch(() => undefined);
      await waitFor(view.onDidChange, () => view.childrenOf(`sent:${key}`).length === 1, 'the request under the task');
      const rows = screen.rows();
      const at = rows.findIndex((r) => r.includes('research topic: quantum'));
      assert.ok(at >= 0, rows.join('\n'));
      assert.match(rows[at + 1]!, /^\s+Elicitation: Which interpretation\? waiting for you/, rows.join('\n'));
      assert.ok(rows[at + 1]!.search(/\S/) > rows[at]!.search(/\S/), `nested: ${rows.join('\n')}`);
      const row = provider.getTreeItem(provider.nodeForTask(`sent:${key}`)) as vscode.TreeItem & { command?: { command: string; arguments: unknown[] } };
      assert.equal(row.command?.command, Commands.respond, 'a click on the call row responds');
      assert.deepEqual(row.command?.arguments, [{ kind: 'task', id: `sent:${key}` }]);
      assert.match(String(row.contextValue), /\brespondable\b/);
    } finally {
      controller.abort();
      store.dispose();
      screen.dispose();
      provider.dispose();
      view.dispose();
      requests.dispose();
      tracker.dispose();
      ledger.dispose();
    }
  });
});
