// Text a server controls is never rendered as a link or Markdown that can run
// a command. The demo server's `collect_profile` sends a task-augmented elicitation whose message
// is the text we give it; that message reaches a notification ("MCP server "demo" asks: …"), the
// Tasks tree and the row's Markdown tooltip. A hostile message with a `command:` link, an HTML
// anchor and an autolink must show as that text there, with no link and no HTML in the DOM.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../../src/extension';
import type { McpConnection } from '../../../src/core/connection/connection';
import { uiBridgeOrSkip } from '../bridge';
import { until, apiWithServersRunning, cleanUpAfterEachTest } from '../util';

let api: McpTasksApi;

suiteSetup(async function () {
  this.timeout(90_000);
  api = await apiWithServersRunning('demo');
});

/**
 * What VS Code would turn into links or markup if it rendered the text. 60 characters: the task's
 * title (shown in the tree and its tooltip) keeps an elicitation message up to that length whole.
 */
const LINK = '[x](command:foo)';
const ANCHOR = '<a href="command:foo">a</a>';
const AUTOLINK = '<command:foo>';
const HOSTILE = `H ${LINK} ${ANCHOR} ${AUTOLINK}`;

/** Text as the user sees it: zero-width spaces (used to break link syntax) are invisible. */
const visible = (s: string) => s.replace(/\u200b/g, '');

suite('Server text never becomes a link', () => {
  cleanUpAfterEachTest(() => api);

  test('a notification and a tree tooltip show [x](command:…), HTML and autolinks as text, with no link', async function () {
    this.timeout(120_000);
    const ui = uiBridgeOrSkip(this);
    // Control: the same link in a raw notification is a link, and the bridge sees it (the test can fail).
    await vscode.commands.executeCommand('notifications.clearAll');
    void vscode.window.showInformationMessage(`Control ${LINK}`);
    const c = await ui.assert({ name: 'security-control', expect: { notification: 'Control' } });
    assert.ok(c.state.notificationLinks.some((href) => href.includes('command:foo')), `control: a raw notification renders the link: ${JSON.stringify(c.state)}`);
    await vscode.commands.executeCommand('notifications.clearAll');

    await api.tracker.callTool(currentDemo(), { name: 'collect_profile', execution: { taskSupport: 'optional' } }, { message: HOSTILE });
    const received = () => api.view.items().find((i) => i.direction === 'received' && i.serverId === 'demo' && i.title === `Elicitation: ${HOSTILE}`);
    assert.equal(HOSTILE.length, 60);
    await until(api, () => received()?.state === 'waitingForUser', 'the hostile elicitation to wait for the user');

    // The notification: the message as written, no link in it.
    const n = await ui.assert({ name: 'security-notification', expect: { notification: 'asks: H [x]' }, screenshot: true });
    const message = n.state.notificationMessages.map(visible).find((m) => m.includes('asks: H [x]'));
    assert.ok(message, `a notification with the message: ${JSON.stringify(n.state.notificationMessages)}`);
    for (const part of [LINK, ANCHOR, AUTOLINK]) assert.ok(message.includes(part), `the notification shows ${part} as text: ${message}`);
    // The one link is the extension's own Respond, to this very request; nothing of the server's text links.
    const respond = `command:mcpTasks.respond?${encodeURIComponent(JSON.stringify([received()?.id]))}`;
    assert.deepEqual(
      n.state.notificationLinks.filter((href) => /command:/i.test(href) && href !== respond),
      [],
      `no link in the notification but Respond (${respond}): ${JSON.stringify(n.state.notificationLinks)}`,
    );

    // The tree row's tooltip (Markdown): the same text, no link, no HTML element. The request is
    // cancelled first: an active row is redrawn every second (its elapsed time), which closes a
    // tooltip before the hover delay has passed; a finished row keeps still.
    await ui.pressKeys('Escape');
    const item = received()!;
    api.ledger.tasksOf(item.serverId)?.cancel(item.taskId, 'cancelled by the test');
    await until(api, () => received()?.state === 'cancelled', 'the hostile elicitation to be cancelled');
    // The tool call fails with it; once nothing is active, no row of the tree is redrawn any more.
    await until(api, () => api.statusBarText() === '', 'no active task');
    // The view shown, the row hovered once VS Code has fetched every change the tree told it: a redraw
    // between the mouse arriving and the hover delay would close the tooltip before it shows.
    await ui.assert({ name: 'security-view', actions: [{ openView: true }], expect: { treeRows: ['Elicitation: H [x]'] } });
    await until(api, () => api.treeState().viewVisible === true && api.treeState().unfetched === undefined && api.treeState().pending === false, 'the Tasks tree to hold every change it was told', 30_000, [api.onDidFetchTree]);
    const h = await ui.assert({ name: 'security-tooltip', actions: [{ hoverTreeRow: 'Elicitation: H [x]' }], expect: { hoverText: 'Elicitation: H [x]' }, screenshot: true, timeoutMs: 8_000 });
    const tip = visible(h.state.hover.text);
    for (const part of [LINK, ANCHOR, AUTOLINK]) assert.ok(tip.includes(part), `the tooltip shows ${part} as text: ${tip}`);
    assert.deepEqual(h.state.hover.links.filter((href) => /command:/i.test(href)), [], `no command link in the tooltip: ${JSON.stringify(h.state.hover.links)}`);
    assert.deepEqual(h.state.hover.html.filter((t) => ['a', 'b', 'img', 'script'].includes(t)), [], `no HTML element in the tooltip: ${JSON.stringify(h.state.hover.html)}`);
  });
});

/** The demo connection now: a suite before this one may have re-created it (mcp.json deleted and restored). */
function currentDemo(): McpConnection {
  const demo = api.registry.get('demo');
  assert.ok(demo, 'demo is configured');
  return demo;
}
