// The second extension-host session (after a window reload, same workspace storage): sent tasks
// and fetched results survived; tracking resumed where the server still knows the task — the HTTP
// server in its kept session, the stdio server in the same process, which the server host kept
// running through the reload (no second initialize), so its task completes with its result.
import * as assert from 'node:assert/strict';
import { extensionApi, until } from '../util';

suite('after a window reload', () => {
  test('a fetched result is still there and viewable', async function () {
    this.timeout(60_000);
    const { api } = await extensionApi();
    const echo = api.view.items().find((i) => i.direction === 'sent' && i.title === 'quick_echo' && i.serverId === 'demo');
    assert.ok(echo, `quick_echo is listed: ${api.view.items().map((i) => `${i.serverId}/${i.title}`).join(', ')}`);
    assert.equal(echo.state, 'completed');
    assert.ok(echo.outcome?.kind === 'result' && JSON.stringify(echo.outcome.result).includes('kept across reloads'));
  });

  test('tracking resumes on a server that still knows the task, which then completes with its result', async function () {
    this.timeout(90_000);
    const { api } = await extensionApi();
    const find = () => api.view.items().find((i) => i.direction === 'sent' && i.title === 'long_build' && i.serverId === 'demo-http');
    assert.ok(find(), 'the HTTP task is listed after the reload');
    // The demo HTTP server keeps tasks per session: the task survives because the session of the
    // window before is taken up again (not a new one).
    await until(api, () => api.registry.get('demo-http')?.state.kind === 'running', 'demo-http to run');
    assert.equal(api.registry.get('demo-http')!.continuity.kind, 'resumed');
    await until(api, () => find()?.state === 'completed' && !!find()?.outcome, 'the HTTP long_build to complete after the reload', 60_000);
    const o = find()!.outcome!;
    assert.ok(o.kind === 'result' && JSON.stringify(o.result).length > 10);
  });

  test('a stdio task started before the reload completes after it with its result: the server host kept its process and session', async function () {
    this.timeout(90_000);
    // This extension host started after the reload.
    const windowStartedAt = Date.now() - process.uptime() * 1000;
    const { api } = await extensionApi();
    const find = () => api.view.items().find((i) => i.direction === 'sent' && i.title === 'long_build' && i.serverId === 'demo');
    assert.ok(find(), 'the stdio task is listed after the reload');
    await until(api, () => api.registry.get('demo')?.state.kind === 'running', 'demo to run');
    assert.equal(api.registry.get('demo')!.continuity.kind, 'resumed', 'reattached to the same process and session');
    await until(api, () => find()?.state === 'completed' || find()?.state === 'error' || find()?.state === 'expired', 'the stdio long_build to end', 60_000);
    assert.equal(find()!.state, 'completed', find()!.detail);
    const o = find()!.outcome;
    assert.ok(o?.kind === 'result' && JSON.stringify(o.result).length > 10, 'with its result');
    const finishedAt = api.tracker.get(find()!.id.replace(/^sent:/, ''))?.finishedAt ?? 0;
    assert.ok(finishedAt > windowStartedAt, `it finished after the reload (${finishedAt - windowStartedAt} ms into this window)`);
  });
});
