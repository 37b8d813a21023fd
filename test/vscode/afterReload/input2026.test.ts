// After the window reload: the 2026-07-28 task left waiting for input (beforeReload/rev2026.test.ts)
// is still input_required on the server; the new window finds it, presents its inputRequests
// again, and the answer given through Respond… goes back with tasks/update, so the task completes.
import * as assert from 'node:assert/strict';
import { uiBridgeOrSkip } from '../bridge';
import { openWithRespond } from '../respond';
import { extensionApi, until } from '../util';

suite('after a window reload (2026-07-28)', () => {
  test("a 2026-07-28 task's input request left unanswered before the reload is answered after it; the task completes", async function () {
    this.timeout(150_000);
    const ui = uiBridgeOrSkip(this);
    const { api } = await extensionApi();
    const find = () => api.view.items().find((i) => i.direction === 'sent' && i.serverId === 'demo-2026-http' && i.title === 'ext_ask_name');
    assert.ok(find(), `the task is listed after the reload: ${api.view.items().map((i) => `${i.serverId}/${i.title}`).join(', ')}`);
    const taskId = find()!.taskId;
    // Its own request: the stdio question of stdioQuestion.test.ts may be waiting already.
    await until(api, () => find()?.task?.status === 'input_required' && api.view.waitingForUser().some((i) => i.serverId === 'demo-2026-http'), 'its input request to wait again', 60_000);
    const form = { quickInputTitle: '"demo-2026-http" asks: Please enter your name.', quickInputFocused: true };
    // With the stdio question waiting too, Respond… asks which: this one is picked by its own text.
    if (api.prompts.activeId === undefined) await openWithRespond(ui, 'reload2026', { row: 'Please enter your name', filter: 'Please enter your name', expect: form, screenshot: true });
    await ui.assert({ name: 'reload2026-form', expect: form });
    await ui.assert({ name: 'reload2026-name', actions: [{ type: 'Grace' }, { press: 'Enter' }], expect: { quickInputActiveRow: 'Accept' } });
    await ui.assert({ name: 'reload2026-accept', actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
    await until(api, () => find()?.state === 'completed' && !!find()?.outcome, 'the task to complete', 60_000);
    assert.equal(find()!.taskId, taskId, 'the same task');
    const o = find()!.outcome!;
    assert.ok(o.kind === 'result' && JSON.stringify(o.result).includes('Hello, Grace!'), JSON.stringify(o));
  });
});
