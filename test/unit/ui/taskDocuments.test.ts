/**
 * Other extensions run in the same extension host: they can open any document URI and run any
 * command with any argument. A task's document (the user's answers, the model's output) opens only
 * through a URI this window made, a request's document cannot be named by counting, and a command
 * that changes a task acts on an id from elsewhere only once the user confirmed it.
 */
import '../../helpers/vscodeStub.js';
import { shownMessages, registeredCommands, Uri } from '../../helpers/vscodeClasses.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SentTaskViewItem, TaskViewItem } from '../../../src/core/view/taskView.js';
import { TaskDocumentProvider, taskTextUri, taskUri } from '../../../src/ui/documents/resultDocuments.js';
import { RequestDocuments } from '../../../src/ui/documents/requestDocuments.js';
import { registerCommands, type CommandDeps } from '../../../src/ui/commands/commands.js';
import { Commands } from '../../../src/ui/commands/commandIds.js';
import { checkLeaks } from '../../helpers/leaks.js';

const received: TaskViewItem = { id: 'received:demo/9f1c', kind: 'received', direction: 'received', serverId: 'demo', serverName: 'demo', taskId: '9f1c', title: 'Deployment details', state: 'completed', createdAt: 1, outcome: { kind: 'result', result: { action: 'accept', content: { password: 'hunter2' } } } };
const sent: SentTaskViewItem = { id: 'sent:demo/call-abc-1', kind: 'sent', key: 'demo/call-abc-1', direction: 'sent', serverId: 'demo', serverName: 'demo', taskId: 'call-abc-1', title: 'deploy', state: 'working', createdAt: 2 };

const fakeView = (items: TaskViewItem[]) => ({ items: () => items, item: (id: string) => items.find((i) => i.id === id), onDidChange: () => ({ dispose() {} }) });

describe('task and request documents', () => {
  checkLeaks();

  test("a task's document is served only under the URI this window made for it", () => {
    const docs = new TaskDocumentProvider(fakeView([received, sent]) as never);
    const mine = taskUri(received) as unknown as Uri;
    assert.match(docs.provideTextDocumentContent(mine as never), /hunter2/, 'the Tasks view opens it');
    // What the API's listTasks hands out, and what another extension can guess from it.
    const bare = [Uri.from({ scheme: 'mcp-task', authority: 'demo', path: '/received/9f1c' }), mine.with({ query: '' })];
    for (const uri of bare) assert.match(docs.provideTextDocumentContent(uri as never), /Task not found/, uri.toString());
    const otherToken = (taskUri(sent) as unknown as Uri).query;
    assert.notEqual(otherToken, mine.query);
    assert.match(docs.provideTextDocumentContent(mine.with({ query: otherToken }) as never), /Task not found/, "another task's token");
    docs.dispose();
  });

  test("a large result's plain-text views are served under this window's token only; its document does not render it", () => {
    const text = JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ({ row: i, label: i === 0 ? 'first row' : i === 39_999 ? 'last row' : `row ${i}` })));
    const big: TaskViewItem = { ...received, id: 'sent:demo/big', kind: 'sent', key: 'demo/big', direction: 'sent', taskId: 'big', title: 'big_tool', outcome: { kind: 'result', result: { content: [{ type: 'text', text }] } } };
    const docs = new TaskDocumentProvider(fakeView([big]) as never);
    const head = taskTextUri(big, 'head') as unknown as Uri;
    assert.match(head.path, /^\/sent\/big\/head\/big_tool result \(first part\)\.txt$/);
    const shown = docs.provideTextDocumentContent(head as never);
    assert.ok(shown.includes('first row') && !shown.includes('last row') && shown.length < 300_000, `${shown.length}`);
    assert.ok(docs.provideTextDocumentContent(taskTextUri(big, 'full') as never).includes('last row'));
    assert.match(docs.provideTextDocumentContent(head.with({ query: '' }) as never), /Task not found/);
    const otherTask = taskTextUri({ ...big, taskId: 'big2' }, 'head') as unknown as Uri;
    assert.match(docs.provideTextDocumentContent(head.with({ query: otherTask.query }) as never), /Task not found/, "another task's token");
    assert.match(docs.provideTextDocumentContent(taskUri(big) as never), /too large to show rendered/);
    docs.dispose();
  });

  test("a request's document has a random name, not a sequence number", () => {
    const requests = new RequestDocuments();
    const a = requests.add('Sampling request from demo', 'secret prompt');
    const b = requests.add('Sampling request from demo', 'secret prompt');
    assert.match(a.uri.path, /^\/[A-Za-z0-9_-]{22}\/Sampling request from demo\.md$/);
    assert.notEqual(a.uri.path, b.uri.path);
    assert.match(requests.provideTextDocumentContent(Uri.from({ scheme: 'mcp-tasks-request', path: '/1/Sampling request from demo.md' }) as never), /Request not found/);
    requests.dispose();
  });

  test('Cancel with a task id from another extension asks first (a dismissed dialog does nothing); a row of the Tasks tree acts at once', async () => {
    const cancelled: string[] = [];
    const row = { kind: 'task', id: sent.id };
    const deps = {
      view: fakeView([sent]),
      actions: { cancel: async (item: TaskViewItem) => (cancelled.push(item.kind === 'sent' ? item.key : item.id), { kind: 'cancelled' }) },
      madeByTree: (node: object) => node === row,
    } as unknown as CommandDeps;
    const subs = registerCommands(deps);
    try {
      const cancel = registeredCommands.get(Commands.cancelTask)!;
      shownMessages.length = 0;
      await cancel(sent.id);
      await cancel({ kind: 'task', id: sent.id });
      assert.deepEqual(cancelled, [], 'nothing cancelled without the user');
      assert.equal(shownMessages.length, 2);
      assert.match(shownMessages[0]!.message, /Cancel Task: "deploy" on "demo"\?/);
      assert.equal((shownMessages[0]!.options as { modal?: boolean }).modal, true);
      await cancel(row);
      assert.deepEqual(cancelled, ['demo/call-abc-1'], 'the tree row the user clicked');
    } finally {
      for (const s of subs) s.dispose();
    }
  });

  test("the confirmation quotes the server's and the workspace's text: a title, name or id cannot start a line of its own", async () => {
    const forged: TaskViewItem = { ...sent, id: 'sent:demo/x', taskId: 'x\nVerified', title: 'deploy"\n\nVerified by your organisation', serverName: 'demo\u202Eevil' };
    const deps = { view: fakeView([forged]), actions: { cancel: async () => ({ kind: 'cancelled' }) }, madeByTree: () => false } as unknown as CommandDeps;
    const subs = registerCommands(deps);
    try {
      shownMessages.length = 0;
      await registeredCommands.get(Commands.cancelTask)!(forged.id);
      const shown = shownMessages[0]!;
      assert.equal(shown.message, 'Cancel Task: "deploy\\"\\n\\nVerified by your organisation" on "demo\\u202Eevil"?');
      assert.doesNotMatch(shown.message, /[\n\u202E]/);
      assert.match(String((shown.options as { detail?: string }).detail), /Task id: "x\\nVerified"$/);
    } finally {
      for (const s of subs) s.dispose();
    }
  });
});
