// Elicitation through the real quick input, driven like a user would (UI bridge of the offline
// runner): the demo server's `collect_profile` form (every field kind of the 2025-11-25 schema
// subset, as a task-augmented elicitation that waits in the background until "Respond…"), its
// Decline / Escape answers, several prompts at once, and cancelling a task whose form is open.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import type { McpConnection } from '../../../src/core/connection/connection';
import type { TaskViewItem } from '../../../src/core/view/taskView';
import { uiBridgeOrSkip, type BridgeAction, type UiBridge } from '../bridge';
import { until, apiWithServersRunning, cleanUpAfterEachTest } from '../util';
import { openWithRespond } from '../respond';

let api: McpTasksApi;
let demo: McpConnection;

suiteSetup(async function () {
  this.timeout(90_000);
  api = await apiWithServersRunning('demo');
  demo = api.registry.get('demo')!;
});

const PROFILE_STEPS = 13; // 12 fields + the review step

/** Starts `collect_profile` (optional task support → a task; its elicitation is a client task). */
async function startProfile(message: string): Promise<{ key: string; sent: () => TaskViewItem | undefined; received: () => TaskViewItem | undefined }> {
  const key = await api.tracker.callTool(demo, { name: 'collect_profile', execution: { taskSupport: 'optional' } }, { message });
  const received = () => api.view.items().find((i) => i.direction === 'received' && i.serverId === 'demo' && i.title === `Elicitation: ${message}`);
  await until(api, () => received()?.state === 'waitingForUser' && api.prompts.waitingIds.includes(received()!.id), `the elicitation "${message}" to wait for the user`);
  return { key, sent: () => api.view.item(`sent:${key}`), received };
}

/** "MCP Tasks: Respond…", pick the request by its title, and wait for the first form step. */
function respond(ui: UiBridge, name: string, message: string): Promise<unknown> {
  return openWithRespond(ui, name, { row: message, filter: message, expect: { quickInputTitle: `"demo" asks: ${message} (1/${PROFILE_STEPS})`, quickInputFocused: true } });
}

/** Step n of the form is on screen and has the keyboard focus (keys pressed earlier may be lost). */
const step = (n: number, total = PROFILE_STEPS) => ({ quickInputTitle: `(${n}/${total})`, quickInputFocused: true });

/** The tool's result: the demo server reports what it received. */
function serverSaw(item: TaskViewItem | undefined): { action: string; content: Record<string, unknown> | null } {
  assert.ok(item?.outcome?.kind === 'result', `a tool result: ${JSON.stringify(item?.outcome)}`);
  return (item.outcome.result as { structuredContent: { action: string; content: Record<string, unknown> | null } }).structuredContent;
}

suite('Elicitation through the quick input', () => {
  cleanUpAfterEachTest(() => api);

  test('the full collect_profile form: formats, ranges, defaults, enums, multi-select, Back, skip, review, Accept', async function () {
    this.timeout(180_000);
    const ui = uiBridgeOrSkip(this);
    const message = 'Profile for the full form test';
    const p = await startProfile(message);
    // A task-augmented request waits in the background: nothing pops up, the view shows it waiting.
    await ui.assert({
      name: 'profile-waiting',
      actions: [{ openView: true }],
      expect: { quickInputVisible: false, treeRows: [`Elicitation: ${message}`, 'waiting for you'], activityBarBadge: '1' },
      screenshot: true,
    });
    await respond(ui, 'profile', message);

    // 1 Full name (2–60 characters): too short first.
    await ui.assert({ name: 'profile-name-short', actions: [{ type: 'A' }], expect: { ...step(1), quickInputMessage: 'between 2 and 60 characters', quickInputSeverity: 'error' } });
    await ui.assert({ name: 'profile-name', actions: [{ type: 'da Lovelace' }, { press: 'Enter' }], expect: step(2) });
    // 2 Email: an invalid address shows the validation message and Enter does not advance —
    // what is typed after that Enter still lands in the email box.
    await ui.assert({
      name: 'profile-email-invalid',
      actions: [{ type: 'ada@' }],
      expect: { ...step(2), quickInputMessage: 'valid email', quickInputSeverity: 'error' },
      screenshot: true,
    });
    await ui.assert({
      name: 'profile-email-enter-blocked',
      actions: [{ press: 'Enter' }, { type: 'example.org' }],
      expect: { ...step(2), quickInputValue: 'ada@example.org', quickInputSeverity: '' },
    });
    // 3 Homepage (uri, default prefilled), then Back to the email (kept), and forward again.
    await ui.assert({ name: 'profile-homepage', actions: [{ press: 'Enter' }], expect: { ...step(3), quickInputValue: 'https://example.com' } });
    await ui.assert({ name: 'profile-back', actions: [{ click: '.quick-input-widget .codicon-quick-input-back' }], expect: { ...step(2), quickInputValue: 'ada@example.org' } });
    await ui.assert({ name: 'profile-forward', actions: [{ press: 'Enter' }], expect: { ...step(3), quickInputValue: 'https://example.com' } });
    // 4 Birthday (date): an impossible date is refused; 5 Next meeting (optional) left empty = skipped.
    await ui.assert({ name: 'profile-birthday', actions: [{ press: 'Enter' }, { waitFor: step(4) }, { type: '1815-02-30' }], expect: { quickInputMessage: 'valid date', quickInputSeverity: 'error' } });
    await ui.assert({
      name: 'profile-next-meeting',
      actions: [{ press: ['Control+A', 'Backspace'] }, { type: '1815-12-10' }, { press: 'Enter' }],
      expect: { ...step(5), quickInputPlaceholder: 'Leave empty to skip', quickInputValue: '' },
    });
    // 6 Age (integer 13–120): out of range, then a decimal, then fixed.
    await ui.assert({ name: 'profile-age-range', actions: [{ press: 'Enter' }, { waitFor: step(6) }, { type: '7' }], expect: { quickInputMessage: '13', quickInputSeverity: 'error' } });
    await ui.assert({ name: 'profile-age-decimal', actions: [{ press: ['Control+A', 'Backspace'] }, { type: '36.5' }], expect: { quickInputSeverity: 'error' } });
    // 7 Rating (number, default 4.5 prefilled).
    await ui.assert({ name: 'profile-rating', actions: [{ press: ['Control+A', 'Backspace'] }, { type: '36' }, { press: 'Enter' }], expect: { ...step(7), quickInputValue: '4.5' } });
    // 8 Newsletter (boolean, default No is the active row).
    await ui.assert({ name: 'profile-newsletter', actions: [{ press: 'Enter' }], expect: { ...step(8), quickInputRow: 'Yes', quickInputActiveRow: 'No' }, screenshot: true });
    // 9 Role (titled enum, default Developer active): options show their titles.
    await ui.assert({
      name: 'profile-role',
      actions: [{ type: 'Yes' }, { press: 'Enter' }],
      expect: { ...step(9), quickInputRow: 'Product manager', quickInputActiveRow: 'Developer' },
      screenshot: true,
    });
    // 10 Editor (legacy enum + enumNames, optional): Skip.
    await ui.assert({ name: 'profile-editor', actions: [{ type: 'Operations' }, { press: 'Enter' }], expect: { ...step(10), quickInputRow: 'Visual Studio Code' } });
    // 11 Languages (multi-select 1–3, default typescript checked): Space toggles rust on.
    await ui.assert({ name: 'profile-languages', actions: [{ type: 'Skip' }, { press: 'Enter' }], expect: { ...step(11), quickInputChecked: ['typescript'] }, screenshot: true });
    await ui.assert({ name: 'profile-languages-toggle', actions: [{ press: ['ArrowDown', 'ArrowDown', 'ArrowDown', 'Space'] }], expect: { quickInputChecked: ['typescript', 'rust'] }, screenshot: true });
    // 12 Interests (optional multi-select): nothing checked = skipped.
    await ui.assert({ name: 'profile-interests', actions: [{ press: 'Enter' }], expect: { ...step(12), quickInputChecked: [], quickInputRow: 'Long-running tasks' } });
    // 13 Review: the answers, Accept first.
    const review = await ui.assert({
      name: 'profile-review',
      actions: [{ press: 'Enter' }],
      expect: { ...step(13), quickInputRow: 'Accept', quickInputActiveRow: 'Accept' },
      screenshot: true,
    });
    const rows = review.state.quickInput.rows.join('\n');
    for (const shown of ['Ada Lovelace', 'ada@example.org', '1815-12-10', '36', '4.5', 'Operations', 'typescript, rust']) assert.ok(rows.includes(shown), `review shows ${shown}:\n${rows}`);
    assert.match(rows, /Next meeting.*\(skipped\)/);
    assert.match(rows, /Subscribe to the newsletter.*Yes/);
    await ui.assert({ name: 'profile-accept', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false, activityBarBadge: '' } });

    await until(api, () => !!p.sent()?.outcome, 'collect_profile to finish with its result');
    assert.equal(p.received()?.state, 'completed');
    const saw = serverSaw(p.sent());
    assert.equal(saw.action, 'accept');
    assert.deepEqual(saw.content, {
      name: 'Ada Lovelace',
      email: 'ada@example.org',
      homepage: 'https://example.com',
      birthday: '1815-12-10',
      age: 36,
      rating: 4.5,
      newsletter: true,
      role: 'ops',
      languages: ['typescript', 'rust'],
    });
  });

  test('Decline on the review step: the server sees "decline"', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const message = 'Profile to decline';
    const p = await startProfile(message);
    await respond(ui, 'decline', message);
    // Required fields typed, every other step keeps its default (one request: wait for each step;
    // on a quick pick, also for its focused row, which Enter picks).
    const focused: Record<number, string> = { 8: 'No', 9: 'Developer', 10: 'Visual Studio Code' };
    const actions: BridgeAction[] = [{ type: 'Grace Hopper' }, { press: 'Enter' }, { waitFor: step(2) }, { type: 'grace@example.org' }];
    for (let n = 3; n <= PROFILE_STEPS; n++) {
      actions.push({ press: 'Enter' }, { waitFor: { ...step(n), ...(focused[n] ? { quickInputActiveRow: focused[n] } : {}) } });
    }
    await ui.assert({ name: 'decline-review', actions, expect: { quickInputRow: 'Decline', quickInputActiveRow: 'Accept' }, timeoutMs: 20_000 });
    await ui.assert({ name: 'decline-choose', actions: [{ type: 'Decline' }, { press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => !!p.sent()?.outcome, 'collect_profile to finish');
    const saw = serverSaw(p.sent());
    assert.equal(saw.action, 'decline');
    assert.equal(saw.content, null);
  });

  test('Escape closes the form without answering; "Cancel" on its notification answers "cancel" (and withdraws it)', async function () {
    this.timeout(90_000);
    const ui = uiBridgeOrSkip(this);
    const message = 'Profile to escape';
    const p = await startProfile(message);
    await respond(ui, 'escape', message);
    await ui.assert({ name: 'escape-press', actions: [{ type: 'Someone' }, { press: 'Enter' }, { waitFor: step(2) }, { press: 'Escape' }], expect: { quickInputVisible: false } });
    // Not an answer: the request waits again (the server still sees its task working).
    await until(api, () => api.prompts.waitingIds.includes(p.received()!.id), 'the closed form to wait again');
    assert.equal(p.received()?.state, 'waitingForUser');
    assert.equal(p.sent()?.outcome, undefined, 'nothing was answered');
    await ui.assert({ name: 'escape-notification', actions: [{ showNotifications: true }], expect: { notification: 'closed unanswered' }, screenshot: true });
    await ui.assert({
      name: 'escape-cancel-request',
      actions: [{ click: '.notifications-center .monaco-list-row:has-text("closed unanswered") .monaco-button:has-text("Cancel")' }],
      expect: { activityBarBadge: '', noNotification: 'closed unanswered' },
    });
    await until(api, () => !!p.sent()?.outcome, 'collect_profile to finish');
    assert.equal(serverSaw(p.sent()).action, 'cancel');
    assert.equal(p.received()?.state, 'completed');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  test('with prompts.open "immediately", every request opens by itself in turn — plain and task-augmented alike; Escape puts one back to wait', async function () {
    this.timeout(150_000);
    const ui = uiBridgeOrSkip(this);
    const config = vscode.workspace.getConfiguration('mcpTasks');
    await config.update('prompts.open', 'immediately', vscode.ConfigurationTarget.Global);
    try {
      const deploy = (service: string) =>
        api.tracker.callTool(demo, { name: 'confirm_deploy', execution: { taskSupport: 'required' } }, { service, version: '1.0.0', prepareMs: 0 });
      const result = (key: string) => {
        const o = api.view.item(`sent:${key}`)?.outcome;
        return o?.kind === 'result' ? JSON.stringify(o.result) : '';
      };
      // Two plain elicitations (confirm_deploy asks through tasks/result): the first is shown at
      // once, the second waits its turn in the queue.
      const alpha = await deploy('alpha');
      await ui.assert({ name: 'queue-alpha', expect: { quickInputTitle: 'Deploy alpha@1.0.0', quickInputRow: 'Production' }, timeoutMs: 30_000 });
      const alphaPrompt = api.prompts.activeId;
      assert.ok(alphaPrompt, 'the alpha prompt is on screen');
      const beta = await deploy('beta');
      await until(api, () => api.prompts.queuedIds.length === 1, 'the beta prompt to be queued behind alpha');
      // A task-augmented elicitation meanwhile: the same rule, so it queues behind beta.
      const message = 'Profile in the queue';
      await api.tracker.callTool(demo, { name: 'collect_profile', execution: { taskSupport: 'optional' } }, { message });
      await until(api, () => api.prompts.queuedIds.length === 2, 'the task-augmented prompt to be queued too');
      // Three calls, each waiting on its request (the status bar redraws on coalesced view events).
      await until(api, () => api.statusBarText() === '$(sync~spin) 3 $(bell-dot) 3', `the status bar to count three requests waiting (it reads ${JSON.stringify(api.statusBarText())})`);
      const r = await ui.assert({ name: 'queue-three', actions: [{ openView: true }], expect: { quickInputTitle: 'Deploy alpha@1.0.0', mcpStatusText: '3' }, screenshot: true });
      assert.equal(api.prompts.activeId, alphaPrompt, 'still the alpha prompt on screen');
      assert.ok(r.state.statusBar.mcpTasks?.icons.includes('bell-dot'), `the status bar shows something waiting: ${JSON.stringify(r.state.statusBar.mcpTasks)}`);

      // Escape closes alpha unanswered (it waits again); beta comes up, and is accepted.
      await ui.assert({ name: 'queue-beta', actions: [{ press: 'Escape' }], expect: { quickInputTitle: 'Deploy beta@1.0.0?', quickInputActiveRow: 'Staging' } });
      assert.deepEqual(api.prompts.waitingIds, [alphaPrompt]);
      await ui.assert({
        name: 'queue-beta-answer',
        // The view was opened above (focus went to the side bar): type into the form's own box.
        actions: [{ click: '.quick-input-widget .quick-input-box input' }, { type: 'Production' }, { press: 'Enter' }, { waitFor: { quickInputTitle: '(2/3)', quickInputActiveRow: 'No' } }, { type: 'Yes' }, { press: 'Enter' }],
        expect: { quickInputTitle: '(3/3)', quickInputActiveRow: 'Accept' },
      });
      // Then the task-augmented form opens by itself.
      await ui.assert({ name: 'queue-profile', actions: [{ press: 'Enter' }], expect: { quickInputTitle: `"demo" asks: ${message} (1/${PROFILE_STEPS})` } });
      await until(api, () => !!api.view.item(`sent:${beta}`)?.outcome, 'beta to finish');
      assert.match(result(beta), /Deployed beta@1\.0\.0 to production/);
      // Alpha still waits: answered "cancel" only by the explicit Cancel Request.
      assert.equal(result(alpha), '');
      assert.ok(api.prompts.cancelWaiting(alphaPrompt!));
      await until(api, () => !!api.view.item(`sent:${alpha}`)?.outcome, 'alpha to finish');
      assert.match(result(alpha), /alpha@1\.0\.0 cancelled by the user/);
    } finally {
      await config.update('prompts.open', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('cancelling a task whose form is on screen closes the form (tree inline "Cancel Task"), and the server sees the task cancelled', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    const message = 'Profile to cancel while open';
    const p = await startProfile(message);
    await respond(ui, 'cancel-open', message);
    await ui.assert({ name: 'cancel-open-typing', actions: [{ type: 'Half typed' }, { openView: true }], expect: { quickInputValue: 'Half typed', treeRows: [`Elicitation: ${message} waiting for you`] } });
    // The form ignores focus moving to the tree: hover the task's row and click its Cancel action.
    await ui.assert({
      name: 'cancel-open-click',
      // The waiting row (a nested request shows no elapsed time): not an older row with the same title.
      actions: [{ clickTreeRowAction: { row: `Elicitation: ${message} waiting for you`, action: 'Cancel Task' } }],
      expect: { quickInputVisible: false },
      // Finding the nested row may take several pages of scrolling in a long tree.
      timeoutMs: 60_000,
      screenshot: true,
    });
    await until(api, () => p.received()?.state === 'cancelled', 'the received task to be cancelled');
    assert.equal(api.prompts.activeId, undefined, 'no prompt on screen');
    await until(api, () => !!p.sent()?.outcome, 'collect_profile to end');
    // The server polled its client task, saw it cancelled, and failed its own task.
    assert.equal(p.sent()!.state, 'failed');
    assert.match(JSON.stringify(p.sent()!.outcome), /was cancelled/);
    await ui.assert({ name: 'cancel-open-tree', expect: { treeRows: [`Elicitation: ${message}`, 'cancelled'] }, screenshot: true });
  });
});
