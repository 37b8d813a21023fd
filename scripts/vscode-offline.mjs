#!/usr/bin/env node
// Runs the extension-host test suite (dist/test/vscode) inside a real VS Code — code-server
// 4.139.1 = VS Code 1.139.1 — offline, with the workbench in Chromium (npm: @sparticuz/chromium) driven by
// Playwright, then a short UI smoke of the workbench. One code-server start per run.
//
//   node esbuild.mjs && node scripts/vscode-offline.mjs [--grep REGEX] [--keep] [--timeout-min N]
//
// --grep REGEX      only tests whose full title matches (MCP_TASKS_E2E_GREP in the extension host)
// --keep            keep the temporary run folder (user data, extensions, logs) for inspection
// --timeout-min N   hard limit for the run once the toolchain is there (default 25)
// --verbose         also print the workbench's own offline noise (it always goes to automation.log)
// Output: test-results/screenshots/*.png, test-results/vscode-e2e/*.log
//
// The steps live in scripts/lib/e2e/ (fixtures, the suite page, Restricted Mode, the secrets grep,
// the UI smoke); this file is their order, and owns what one run started until it stops it.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureChromium, launchChromium } from './lib/chromium.mjs';
import { startCodeServer } from './lib/codeServer.mjs';
import { packageTestExtension, startDemo2026Http, startDemoHttp, startOAuthFixture } from './lib/e2e/fixtures.mjs';
import { runRestricted } from './lib/e2e/restrictedRun.mjs';
import { grepRunForSecrets } from './lib/e2e/secretsGrep.mjs';
import { afterReloadMatches, logPages, suiteRunner } from './lib/e2e/suitePage.mjs';
import { runUiSmoke } from './lib/e2e/uiSmoke.mjs';
import { startOutageProxy } from './lib/outageProxy.mjs';
import { ensureCodeServer, ToolchainError } from './lib/toolchain.mjs';
import { installPageHelpers, startBridge } from './lib/uiBridge.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const say = (m) => console.log(`[vscode-e2e] ${m}`);

function options() {
  const { values } = parseArgs({
    options: {
      grep: { type: 'string' },
      keep: { type: 'boolean', default: false },
      'timeout-min': { type: 'string', default: '25' },
      verbose: { type: 'boolean', default: false },
    },
  });
  return { grep: values.grep, keep: values.keep, timeoutMin: Number(values['timeout-min']), verbose: values.verbose };
}

function paths() {
  const testsDir = join(ROOT, 'dist', 'test', 'vscode');
  return {
    workspace: join(ROOT, 'examples', 'demo'),
    testsModule: join(testsDir, 'index.js'),
    reloadModule: join(testsDir, 'afterReload.js'),
    restrictedModule: join(testsDir, 'restricted.js'),
    afterReloadSources: join(ROOT, 'test', 'vscode', 'afterReload'),
    resultsDir: join(ROOT, 'test-results', 'vscode-e2e'),
    screenshotsDir: join(ROOT, 'test-results', 'screenshots'),
  };
}

/** What the run needs before it starts: the built bundles and the toolchain; exits 2 without them. */
function checkPreconditions(p) {
  for (const f of [join(ROOT, 'dist', 'start.js'), join(ROOT, 'dist', 'extension.js'), join(ROOT, 'dist', 'demo-server.js'), join(ROOT, 'dist', 'fixtures', 'oauthServer.js'), p.testsModule, p.reloadModule, p.restrictedModule]) {
    if (!existsSync(f)) {
      console.error(`[vscode-e2e] ${f} is missing: run \`node esbuild.mjs\` first (npm run test:vscode does).`);
      process.exit(2);
    }
  }
  if (!existsSync(p.workspace)) mkdirSync(p.workspace, { recursive: true });
  const t = Date.now();
  try {
    ensureCodeServer();
    ensureChromium();
  } catch (err) {
    console.error(`[vscode-e2e] ${err instanceof ToolchainError ? err.message : `could not set up the toolchain (Node 24, code-server, Chromium): ${err?.message ?? err}`}`);
    process.exit(2);
  }
  say(`toolchain ready (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}

/** What a run started, stopped in reverse order: `stopNow` (synchronous, for process exit) and `stop`. */
class Started {
  #items = [];
  add(item) {
    this.#items.push(item);
    return item.value;
  }
  stopNow() {
    for (const i of [...this.#items].reverse()) i.stopNow?.();
  }
  async stop() {
    for (const i of [...this.#items].reverse()) await Promise.resolve(i.stop?.()).catch(() => {});
  }
}

async function main() {
  const opts = options();
  const p = paths();
  const t0 = Date.now();
  checkPreconditions(p);
  mkdirSync(p.resultsDir, { recursive: true });
  mkdirSync(p.screenshotsDir, { recursive: true });
  for (const f of readdirSync(p.screenshotsDir)) if (f.endsWith('-failed.png')) rmSync(join(p.screenshotsDir, f), { force: true });
  const runDir = mkdtempSync(join(tmpdir(), 'mcp-tasks-e2e-'));
  // Tokens and codes the OAuth fixtures issued (see secretsGrep.mjs).
  const secretsFile = join(runDir, 'issued-secrets.txt');
  const started = new Started();

  let interrupt; // resolves the races of the steps on SIGINT/SIGTERM/timeout
  const interrupted = new Promise((r) => (interrupt = r));
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(sig, () => {
      say(`${sig}: stopping…`);
      interrupt({ kind: 'signal', sig });
    });
  }
  // Last resort if the runner dies some other way: never leave a process group behind.
  process.on('exit', () => {
    started.stopNow();
    if (!opts.keep) rmSync(runDir, { recursive: true, force: true });
  });
  setTimeout(() => {
    console.error(`[vscode-e2e] TIMEOUT: the run took more than ${opts.timeoutMin} min; stopping code-server. See ${p.resultsDir}/code-server.log`);
    interrupt({ kind: 'timeout' });
  }, opts.timeoutMin * 60_000).unref();

  let server;
  let suite = { status: 'not run' };
  let smoke = { status: 'not run' };
  let secretsGrep = { status: 'not run' };
  try {
    const bridge = started.add(await startBridge({ screenshotsDir: p.screenshotsDir, log: say }).then((b) => ({ value: b, stop: () => b.close() })));
    // A demo server over HTTP that outlives the window reload (configured in user settings), so the
    // after-reload suite can see tracking resume against a server that still knows the task.
    const demoHttp = started.add(await startDemoHttp(ROOT, join(p.resultsDir, 'demo-http.log')).then((f) => ({ value: f, stopNow: f.stop, stop: f.stop })));
    say(`demo server (HTTP) at ${demoHttp.url}`);
    const demo2026Http = started.add(await startDemo2026Http(ROOT, join(p.resultsDir, 'demo-2026-http.log')).then((f) => ({ value: f, stopNow: f.stop, stop: f.stop })));
    say(`2026-07-28 demo server (HTTP) at ${demo2026Http.url}`);
    // The demo HTTP server behind a proxy a test takes down for a while (an outage), as "demo-outage".
    const outage = started.add(await startOutageProxy(demoHttp.url).then((o) => ({ value: o, stopNow: o.stop, stop: o.stop })));
    say(`outage proxy at ${outage.url} (control ${outage.control})`);
    const oauthFixture = started.add(await startOAuthFixture(ROOT, join(p.resultsDir, 'oauth-fixture.log')).then((f) => ({ value: f, stopNow: f.stop, stop: f.stop })));
    writeFileSync(secretsFile, '');
    // code-server has no language models: a test-only extension provides a deterministic one
    // (test/vscode/fake-lm); api-consumer is a third-party-style user of the extension API.
    const vsixes = [await packageTestExtension(ROOT, runDir, 'fake-lm'), await packageTestExtension(ROOT, runDir, 'api-consumer')];
    server = await startCodeServer({
      vsixes,
      // The demo workspace's own servers start without the first-start question (a user-only
      // setting); the Restricted Mode run proves a workspace's servers never start untrusted.
      settings: {
        'mcpTasks.servers': { 'demo-http': { type: 'http', url: demoHttp.url }, 'demo-2026-http': { type: 'http', url: demo2026Http.url }, 'demo-outage': { type: 'http', url: outage.url } },
        'mcpTasks.workspaceServers.firstStart': 'allow',
      },
      runDir,
      logFile: join(p.resultsDir, 'code-server.log'),
      folder: p.workspace,
      env: {
        MCP_TASKS_E2E_BRIDGE: bridge.url,
        MCP_TASKS_E2E_OAUTH: oauthFixture.url,
        MCP_TASKS_E2E_OUTAGE: outage.control,
        MCP_TASKS_E2E_SECRETS_FILE: secretsFile,
        // Each session adds its activate() to test-results/activation.json under this run (test/vscode/activationRecord.ts).
        MCP_TASKS_E2E_RUN: runDir,
        ...(opts.grep ? { MCP_TASKS_E2E_GREP: opts.grep } : {}),
        ...(process.stdout.isTTY ? { MCP_TASKS_E2E_COLOR: '1' } : {}),
      },
    });
    const codeServer = server;
    started.add({ value: codeServer, stopNow: () => codeServer.killNow(), stop: () => codeServer.stop() });
    say(`code-server ${server.version} on ${server.base} (pgid ${server.pid}), bridge ${bridge.url} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);

    // Playwright's own signal handlers would process.exit(130) before our cleanup and summary:
    // launchChromium turns them off.
    const browser = started.add(await launchChromium().then((b) => ({ value: b, stop: () => b.close() })));
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await installPageHelpers(context);
    logPages(context, join(p.resultsDir, 'pages.log'));
    const runTests = suiteRunner({ context, bridge, interrupted, root: ROOT, resultsDir: p.resultsDir, verbose: opts.verbose, say });

    // 1. The extension-host suite, in a page whose payload loads the extension and the tests.
    suite = await runTests(p.testsModule, 'the extension-host suite', 'automation', server);
    // 1b. The same user data after a window reload: a new extension host must find what the
    //     first one left (sent tasks, fetched results) and resume tracking.
    if (!opts.grep || afterReloadMatches(p.afterReloadSources, opts.grep)) {
      const second = await runTests(p.reloadModule, 'the after-reload suite', 'automation-after-reload', server);
      if (suite.status === 'passed' && second.status !== 'passed') suite = { ...second, status: `${second.status} (after reload)` };
    }
    // 1c. Restricted Mode: a second code-server WITHOUT --disable-workspace-trust opens a folder
    //     whose .vscode/mcp.json and settings.json define servers; nothing may run or be sent.
    if (!opts.grep || new RegExp(opts.grep).test('Restricted Mode')) {
      const track = (srv) => started.add({ value: srv, stopNow: () => srv.killNow() });
      const restricted = await runRestricted({ dir: join(runDir, 'restricted'), resultsDir: p.resultsDir, module: p.restrictedModule, grep: opts.grep, run: runDir, track }, runTests);
      if (suite.status === 'passed' && restricted.status !== 'passed') suite = { ...restricted, status: `${restricted.status} (Restricted Mode)` };
    }
    // 1d. No token or code of the run's sign-ins in any log: code-server's (the extension's output
    //     channels included), the workbench's, the runner's.
    secretsGrep = await grepRunForSecrets({ secretsFile, oauthUrl: oauthFixture.url, runDir, resultsDir: p.resultsDir });
    say(`secrets grep: ${secretsGrep.status}${secretsGrep.detail ? ` (${secretsGrep.detail})` : ''}`);
    // 2. The standalone UI smoke.
    smoke = await runUiSmoke({ context, bridge, server, root: ROOT, screenshotsDir: p.screenshotsDir, interrupted });
    say(`UI smoke ${smoke.status} in ${smoke.time}${smoke.reason ? `: ${smoke.reason}` : ''}${smoke.shot ? ` (${smoke.shot})` : ''}`);
  } catch (err) {
    if (!err?.quiet) console.error(`[vscode-e2e] error: ${err?.stack ?? err}`);
  } finally {
    await started.stop();
    if (opts.keep) say(`run folder kept: ${runDir}`);
    else rmSync(runDir, { recursive: true, force: true });
  }

  const passed = suite.status === 'passed' && smoke.status === 'passed' && !['FOUND', 'BROKEN'].includes(secretsGrep.status);
  console.log(
    `\n[vscode-e2e] ${passed ? 'PASSED' : 'FAILED'}: extension-host suite ${suite.status}, UI smoke ${smoke.status}, secrets grep ${secretsGrep.status} ` +
      `(VS Code ${server?.version ? `via code-server ${server.version}` : 'not started'}, total ${((Date.now() - t0) / 1000).toFixed(1)} s). ` +
      `Logs: ${p.resultsDir}${passed ? '' : `/code-server.log`}`,
  );
  const interruptedBy = [suite.status, smoke.status].includes('interrupted');
  process.exit(passed ? 0 : interruptedBy ? 130 : 1);
}

await main();
