// The standalone UI smoke: a fresh page with just the development extension (no tests), the
// Tasks view open with the workspace's demo server in it, a screenshot.
import { join } from 'node:path';
import { mcpTab, openView } from '../uiBridge.mjs';

const secs = (t) => `${((Date.now() - t) / 1000).toFixed(1)} s`;

/** Resolves `{ status, time, shot?, reason? }`; `interrupted` ends it early. */
export async function runUiSmoke({ context, bridge, server, root, screenshotsDir, interrupted }) {
  const tSmoke = Date.now();
  const page = await context.newPage();
  bridge.setPage(page);
  const smokeRun = (async () => {
    await page.goto(server.url({ devPath: root }));
    await mcpTab(page).waitFor({ state: 'visible', timeout: 60_000 });
    // The workbench restores the last open container from a cached placeholder first: open the
    // view and wait for its body so the screenshot shows the extension's real contribution.
    await openView(page, 30_000);
    await page.mouse.move(720, 450); // no tooltip in the screenshot
    await page.locator('.part.sidebar .pane-body').first().waitFor({ state: 'visible', timeout: 30_000 });
    // The extension is live: the workspace's demo server is in the tree (not the "no server" welcome).
    await page.locator('.part.sidebar .monaco-list-row', { hasText: 'demo' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await mcpTab(page).waitFor({ state: 'visible', timeout: 10_000 });
    await page.locator('.part.statusbar').waitFor({ state: 'visible', timeout: 10_000 });
    const shot = join(screenshotsDir, 'workbench.png');
    await page.screenshot({ path: shot });
    return shot;
  })();
  const outcome = await Promise.race([smokeRun.then((shot) => ({ kind: 'ok', shot }), (err) => ({ kind: 'error', err })), interrupted]);
  if (outcome.kind === 'ok') return { status: 'passed', time: secs(tSmoke), shot: outcome.shot };
  if (outcome.kind === 'error') {
    await page.screenshot({ path: join(screenshotsDir, 'workbench-failed.png') }).catch(() => {});
    return { status: 'failed', time: secs(tSmoke), reason: String(outcome.err?.message ?? outcome.err).split('\n')[0] };
  }
  return { status: outcome.kind === 'timeout' ? 'timed out' : 'interrupted', time: secs(tSmoke) };
}
