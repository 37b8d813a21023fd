// The extension API (api/mcp-tasks.d.ts) used by another extension in the real VS Code:
// test/vscode/api-consumer (installed as a .vsix by the offline runner) creates tasks with
// priorities on the demo server with `mcpTasks.requestor.maxConcurrentTasksPerServer` = 1, so
// they queue (shown as queued in the tree), cancels a queued one (never sent), gets a failed
// payload and watches its tasks change.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import { uiBridge } from '../bridge';
import { until, apiWithServersRunning, cleanUpAfterEachTest } from '../util';

const CONSUMER_ID = 'mcp-tasks-test.api-consumer';
const LIMIT = 'requestor.maxConcurrentTasksPerServer';

interface Consumer {
  queueUp(server: string): Promise<Record<string, { uri: string; state: string; priority: string }>>;
  watched(): Array<{ kind: string; uri: string; state: string }>;
  whenWatched(check: (changes: Array<{ kind: string; uri: string; state: string }>) => boolean, ms: number): Promise<Array<{ kind: string; uri: string; state: string }>>;
  finish(): Promise<{
    cancelled: { state: string; message?: string };
    results: Record<string, { status: string; result?: { content?: Array<{ text?: string }>; isError?: boolean }; message?: string }>;
    startOrder: string[];
    states: Record<string, string[]>;
    progress: Record<string, number>;
    forbidden?: { name: string; kind: string; message: string };
    listedByOther: Array<{ uri: string; mine: boolean }>;
    invalid?: { name: string; kind: string; message: string };
    final: Record<string, string>;
  }>;
}

let api: McpTasksApi;

suiteSetup(async function () {
  this.timeout(90_000);
  api = await apiWithServersRunning('demo');
});

suite('Extension API: a consumer extension', () => {
  cleanUpAfterEachTest(() => api);

  test('API consumer: priorities queue behind the per-server limit, a queued task is cancelled unsent, a failed payload arrives, changes are watched', async function () {
    this.timeout(180_000);
    assert.equal(api.version, 1);
    const consumerExt = vscode.extensions.getExtension<Consumer>(CONSUMER_ID);
    if (!consumerExt) {
      // Only the offline runner installs the consumer (test/vscode/api-consumer).
      console.log(`      (skipped: ${CONSUMER_ID} is not installed)`);
      this.skip();
    }
    const config = () => vscode.workspace.getConfiguration('mcpTasks');
    await config().update(LIMIT, 1, vscode.ConfigurationTarget.Global);
    try {
      assert.equal(config().get(LIMIT), 1);
      const consumer = await consumerExt.activate();
      const created = await consumer.queueUp('demo');
      assert.match(created.blocker!.uri, /^mcp-task:\/\/demo\/sent\/[0-9a-f-]{36}$/);
      assert.notEqual(created.blocker!.state, 'queued', 'the first task goes out at once');
      for (const label of ['low', 'urgent', 'doomed', 'failing']) assert.equal(created[label]!.state, 'queued', `${label} waits behind the limit`);
      assert.deepEqual(
        ['low', 'urgent', 'doomed', 'failing'].map((l) => created[l]!.priority),
        ['low', 'urgent', 'high', 'high'],
      );
      // The tree shows them queued (own state, icon and contextValue).
      await until(api, () => api.view.items().filter((i) => i.state === 'queued').length === 4, 'four queued tasks in the view');
      const queuedItem = api.view.items().find((i) => i.state === 'queued')!;
      assert.match(queuedItem.id, /^sent:/);
      const ui = uiBridge();
      if (ui) {
        await ui.assert({
          name: 'api-consumer-queued',
          actions: [{ openView: true }],
          expect: { treeRows: ['long_build', 'queued: Queued (urgent priority)', 'queued: Queued (low priority)'] },
          screenshot: true,
        });
      }

      const report = await consumer.finish();
      // The queued high-priority task was cancelled without reaching the server.
      assert.equal(report.cancelled.state, 'cancelled');
      assert.match(report.cancelled.message ?? '', /never reached the server/);
      assert.deepEqual(report.results.doomed, { status: 'cancelled', message: 'Cancelled while queued: it never reached the server.' });
      assert.deepEqual(report.states.doomed, ['queued', 'cancelled']);
      const doomedItem = api.tracker.snapshot().find((s) => s.toolName === 'quick_echo' && s.cancelledInQueue);
      assert.ok(doomedItem, 'the tracker keeps it as cancelled in the queue');
      assert.equal(doomedItem.task, undefined, 'the server never named it');
      // Urgent first, then high (the failing one), then low.
      assert.deepEqual(report.startOrder, ['urgent', 'failing', 'low']);
      assert.equal(report.results.blocker!.status, 'cancelled', 'the blocker was cancelled through tasks/cancel');
      assert.ok((report.progress.blocker ?? 0) > 0, 'progress reached the consumer');
      assert.equal(report.results.urgent!.status, 'completed');
      assert.match(report.results.urgent!.result?.content?.[0]?.text ?? '', /urgent/);
      assert.equal(report.results.low!.status, 'completed');
      // The failed payload: the tool's isError result.
      assert.equal(report.results.failing!.status, 'failed');
      assert.equal(report.results.failing!.result?.isError, true);
      assert.match(report.results.failing!.result?.content?.[0]?.text ?? '', /consumer test failure/);
      assert.deepEqual(report.final, { blocker: 'cancelled', low: 'completed', urgent: 'completed', doomed: 'cancelled', failing: 'failed' });
      // Handles are capabilities: another API object sees the task listed only.
      assert.equal(report.forbidden?.name, 'McpTasksApiError');
      assert.equal(report.forbidden?.kind, 'forbidden');
      assert.deepEqual(report.listedByOther.map((s) => s.mine), [false]);
      // Input is validated.
      assert.equal(report.invalid?.kind, 'invalid_input');
      assert.match(report.invalid?.message ?? '', /request\.priority/);
      // The watcher saw every task added and finish.
      const watched = await consumer.whenWatched(
        (ws) => ['completed', 'failed', 'cancelled'].every((st) => ws.some((w) => w.state === st)) && ws.filter((w) => w.kind === 'added').length === 5 && ws.filter((w) => w.state === 'completed').length >= 2,
        30_000,
      );
      assert.equal(new Set(watched.filter((w) => w.kind === 'added').map((w) => w.uri)).size, 5);
      for (const label of Object.keys(created)) assert.ok(watched.some((w) => w.uri === created[label]!.uri && w.kind === 'updated'), `${label} changes were watched`);
      if (ui) await ui.assert({ name: 'api-consumer-finished', actions: [{ openView: true }], expect: { treeRows: ['flaky_job', 'failed'] }, screenshot: true });
    } finally {
      await config().update(LIMIT, undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
