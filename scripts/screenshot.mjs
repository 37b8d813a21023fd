#!/usr/bin/env node
// Takes the README's picture of the Tasks view, media/screenshot-tasks.png, from the real product:
// code-server with this extension installed (as `npm run demo` runs it) on examples/demo, and the
// calls made through "MCP Tasks: Run Tool…" as a user makes them, so the view shows tasks in both
// directions — tool calls sent to the demo server, and the sampling and elicitation tasks the
// server sent back, waiting for the user.
//
//   node esbuild.mjs && node scripts/screenshot.mjs [--out media/screenshot-tasks.png]
//
// What it does, step by step:
//  1. code-server on a free loopback port, the extension linked into a fresh extensions dir, the
//     workspace's servers allowed to start (a user setting) and optional tools called plainly (so
//     the server's own questions are not tied to one call: with several calls in flight they are
//     shown under Received rather than under the call — see src/core/view/causal.ts);
//  2. Do Not Disturb on, so no toast covers the view;
//  3. Run Tool… on "demo": long_build (slow, stays working), quick_echo (completes), flaky_job
//     (fails), ask_model (the server asks for a sampling task), collect_profile (an elicitation task);
//  4. waits until the tree shows them, and saves the sidebar and editor area as a PNG.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchChromium } from './lib/chromium.mjs';
import { startCodeServer } from './lib/codeServer.mjs';
import { check, installPageHelpers, mcpTab, openView, runCommand } from './lib/uiBridge.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const workspace = join(root, 'examples', 'demo');
const { values: opts } = parseArgs({ options: { out: { type: 'string', default: join(root, 'media', 'screenshot-tasks.png') } } });
const out = resolve(opts.out);
const failShots = join(root, 'test-results', 'screenshots');
/** The picture's size; the side bar is widened to SIDEBAR so a row shows its arguments and phase. */
const WIDTH = 1280;
const HEIGHT = 460;
const SIDEBAR = 600;
const say = (m) => console.log(`[screenshot] ${m}`);

/** The calls, in order: each field's value in the form's order (undefined keeps the default). */
const CALLS = [
  { tool: 'long_build', fields: ['60', '2000'] },
  { tool: 'quick_echo', fields: ['hello from the README', '200'] },
  { tool: 'flaky_job', fields: [undefined, undefined] },
  { tool: 'ask_model', fields: ['Summarise the build log in one sentence'] },
  { tool: 'collect_profile', fields: [undefined] },
];

/** One bridge check; throws with its failures (a picture of the failure is in test-results/screenshots). */
async function step(page, req) {
  const r = await check(page, { timeoutMs: 20_000, ...req }, failShots);
  if (!r.ok) throw new Error(`${req.name}: ${r.failures.join('; ')}`);
  return r;
}

/** Run Tool… on "demo" → tool → fields → Run, through the quick input as a user does. */
async function runTool(page, { tool, fields }) {
  await step(page, { name: `${tool}-server`, actions: [{ runCommand: 'MCP Tasks: Run Tool…' }], expect: { quickInputTitle: 'pick a server', quickInputFocused: true } });
  await step(page, {
    name: `${tool}-server-pick`,
    actions: [{ type: 'demo' }, { waitFor: { quickInputActiveRow: 'demo' } }, { press: 'Enter' }],
    // The tools listed (not only the step shown): typed while the list still loads, the filter is
    // lost. long_build is the server's first tool (the list draws only the rows in view).
    expect: { quickInputTitle: 'Run Tool on "demo"', quickInputRow: 'long_build', quickInputFocused: true },
  });
  const total = fields.length + 1; // the fields, then the review step
  await step(page, {
    name: `${tool}-tool`,
    actions: [{ type: tool }, { waitFor: { quickInputActiveRow: tool } }, { press: 'Enter' }],
    expect: { quickInputTitle: `(1/${total})`, quickInputFocused: true },
  });
  for (const [i, value] of fields.entries()) {
    const actions = value === undefined ? [{ press: 'Enter' }] : [{ press: ['Control+A', 'Backspace'] }, { type: value }, { press: 'Enter' }];
    await step(page, { name: `${tool}-field-${i + 1}`, actions, expect: { quickInputTitle: `(${i + 2}/${total})`, quickInputFocused: true } });
  }
  await step(page, { name: `${tool}-review`, expect: { quickInputActiveRow: 'Run' } });
  await step(page, { name: `${tool}-run`, actions: [{ press: 'Enter' }], expect: { quickInputVisible: false } });
}

/** Waits until the Markdown preview (a webview: frames in the workbench's frame) shows `text`. */
async function renderedPreview(page, text, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Not the workbench's own frame: the tree row shows the same words.
    for (const frame of page.frames().filter((f) => f !== page.mainFrame())) {
      if (await frame.getByText(text).first().isVisible().catch(() => false)) return;
    }
    if (Date.now() > deadline) throw new Error(`the result document did not render "${text}" within ${timeoutMs} ms`);
    await page.waitForTimeout(250);
  }
}

const runDir = mkdtempSync(join(tmpdir(), 'mcp-tasks-screenshot-'));
let server;
let browser;
let ok = false;
try {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  // Installed, as a user has it (no "[Extension Development Host]" in the title): see scripts/demo.mjs.
  mkdirSync(join(runDir, 'exts'), { recursive: true });
  symlinkSync(root, join(runDir, 'exts', `${manifest.publisher}.${manifest.name}-${manifest.version}`));
  server = await startCodeServer({
    runDir,
    logFile: join(runDir, 'code-server.log'),
    folder: workspace,
    smokeTestDriver: false,
    settings: {
      'mcpTasks.workspaceServers.firstStart': 'allow',
      'mcpTasks.requestor.optionalToolsAsTasks': false,
      'window.commandCenter': false,
      'workbench.layoutControl.enabled': false,
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
    },
  });
  say(`code-server ${server.version} on ${server.base}`);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT } });
  await installPageHelpers(context);
  const page = await context.newPage();
  await page.goto(server.url());
  await mcpTab(page).waitFor({ state: 'visible', timeout: 90_000 });
  await runCommand(page, 'Notifications: Toggle Do Not Disturb Mode', 20_000);
  await openView(page, 30_000);
  await step(page, { name: 'servers-running', actions: [{ openView: true }], expect: { treeRows: ['demo', 'running'] }, timeoutMs: 60_000 });
  for (const call of CALLS) {
    say(`Run Tool… ${call.tool}`);
    await runTool(page, call);
  }
  // The picture: both directions in the tree, the badge and the status bar counting what waits.
  await step(page, {
    name: 'both-directions',
    actions: [{ openView: true }],
    expect: { treeRows: ['long_build', 'quick_echo', 'flaky_job', 'Sampling', 'Elicitation', 'waiting for you'] },
    timeoutMs: 60_000,
  });
  // The other two servers have no tasks: collapsed, they leave the room to "demo".
  for (const name of ['demo-2026-07-28 running', 'demo-2026 running']) await step(page, { name: `collapse-${name}`, actions: [{ clickTreeRow: name }] });
  // The side bar wide enough for a row's arguments and phase: drag its edge (the sash) as a user does.
  const bar = await page.locator('.part.sidebar').boundingBox();
  if (!bar) throw new Error('no side bar');
  await page.mouse.move(bar.x + bar.width + 1, bar.y + bar.height / 2);
  await page.mouse.down();
  await page.mouse.move(bar.x + SIDEBAR, bar.y + bar.height / 2, { steps: 10 });
  await page.mouse.up();
  // The completed call's result document in the editor (a click on a finished row opens it).
  await step(page, { name: 'open-result', actions: [{ clickTreeRow: 'quick_echo' }] });
  await page.locator('.tabs-container .tab', { hasText: 'quick_echo' }).first().waitFor({ state: 'visible', timeout: 30_000 });
  await page.mouse.move(WIDTH - 40, HEIGHT - 80); // no hover, no tooltip
  await renderedPreview(page, 'hello from the README', 60_000);
  await page.waitForTimeout(500); // the preview's fade-in: a picture, not a test, so a pause is fine here
  mkdirSync(dirname(out), { recursive: true });
  await page.screenshot({ path: out, clip: { x: 0, y: 0, width: WIDTH, height: HEIGHT } });
  say(`saved ${out} (${Math.round(statSync(out).size / 1024)} KB)`);
  ok = true;
} catch (err) {
  console.error(`[screenshot] FAILED: ${err?.message ?? err}`);
  console.error(`[screenshot] code-server log: ${join(runDir, 'code-server.log')} (kept)`);
} finally {
  await browser?.close().catch(() => {});
  await server?.stop().catch(() => {});
  if (ok) rmSync(runDir, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
