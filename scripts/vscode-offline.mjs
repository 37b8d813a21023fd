#!/usr/bin/env node
// Runs the extension-host test suite (dist/test/vscode) inside a real VS Code — code-server
// 4.139.1 = VS Code 1.139.1 — offline, with the workbench in Chromium (npm: @sparticuz/chromium) driven by
// Playwright, then a short UI smoke of the workbench. One code-server start per run.
//
//   node esbuild.mjs && node scripts/vscode-offline.mjs [--grep REGEX] [--keep] [--timeout-min N]
//
// --grep REGEX      only tests whose full title matches (MCP_TASKS_E2E_GREP in the extension host)
// --keep            keep the temporary run folder (user data, extensions, logs) for inspection
// --timeout-min N   hard limit for the run once the toolchain is there (default 8)
// --verbose         also print the workbench's own offline noise (it always goes to automation.log)
// Output: test-results/screenshots/*.png, test-results/vscode-e2e/*.log
import { execFile, spawn } from 'node:child_process';
import { appendFileSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, parseArgs } from 'node:util';
import { ensureChromium, launchChromium } from './lib/chromium.mjs';
import { startCodeServer } from './lib/codeServer.mjs';
import { ensureCodeServer, ToolchainError } from './lib/toolchain.mjs';
import { installPageHelpers, mcpTab, openView, startBridge } from './lib/uiBridge.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    grep: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'timeout-min': { type: 'string', default: '25' },
    verbose: { type: 'boolean', default: false },
  },
});
const timeoutMs = Number(opts['timeout-min']) * 60_000;
const t0 = Date.now();
const secs = (t = t0) => `${((Date.now() - t) / 1000).toFixed(1)} s`;
const say = (m) => console.log(`[vscode-e2e] ${m}`);

/**
 * Workbench log lines that an offline code-server always prints (marketplace lookups that
 * cannot resolve, connection set-up chatter): kept out of stdout, still in automation.log.
 */
const WORKBENCH_NOISE =
  /ENOTFOUND|EAI_AGAIN|^Resolv(ing|ed) connection token|^Creating a socket|^\[reconnection-grace-time\]|^Updating additional builtin extensions cache|^\[Service Worker\]|^\[AgentHost|^\[AccountPolicyGate\]|Timed out waiting for authentication provider|^Creation of workbench contribution/;

const workspace = join(root, 'examples', 'demo');
const testsModule = join(root, 'dist', 'test', 'vscode', 'index.js');
const reloadModule = join(root, 'dist', 'test', 'vscode', 'afterReload.js');
const restrictedModule = join(root, 'dist', 'test', 'vscode', 'restricted.js');
const resultsDir = join(root, 'test-results', 'vscode-e2e');
const screenshotsDir = join(root, 'test-results', 'screenshots');

/**
 * Starts a fixture server of dist/ (`script`, `args`) as a process of the runner; resolves with its
 * URL once its stderr says it listens (logged to `logFile`), with `stop()`.
 */
function startFixture(label, script, args, logFile) {
  return new Promise((resolveStart, rejectStart) => {
    const child = spawn(process.execPath, [join(root, 'dist', ...script), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    const log = createWriteStream(logFile);
    let buf = '';
    const timer = setTimeout(() => rejectStart(new Error(`${label} did not start within 20 s`)), 20_000);
    child.stderr.on('data', (d) => {
      log.write(d);
      buf += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolveStart({ url: m[1], stop: () => child.exitCode === null && child.kill('SIGTERM') });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      rejectStart(new Error(`${label} exited (${code})`));
    });
  });
}

/** `dist/demo-server.js --http --port 0` (tasks shared by its sessions). */
function startDemoHttp(logFile) {
  return startFixture('the demo HTTP server', ['demo-server.js'], ['--http', '--port', '0', '--shared-tasks'], logFile);
}

/**
 * `dist/demo-server.js --revision 2026-07-28 --http --port 0`: MCP 2026-07-28 over stateless HTTP,
 * its tasks kept by the process, so a task waiting for input outlives the window reload.
 */
function startDemo2026Http(logFile) {
  return startFixture('the 2026-07-28 demo HTTP server', ['demo-server.js'], ['--revision', '2026-07-28', '--http', '--port', '0'], logFile);
}

/**
 * Packages a test-only extension folder of test/vscode (fake-lm: a `vscode.lm` provider;
 * api-consumer: a user of the extension API) into `dir` with @vscode/vsce (offline); returns the .vsix path.
 */
function packageFakeLm(dir, name = 'fake-lm') {
  const packagePath = join(dir, `${name}.vsix`);
  const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  return new Promise((resolvePackage, rejectPackage) => {
    execFile(
      process.execPath,
      [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', packagePath],
      { cwd: join(root, 'test', 'vscode', name), timeout: 60_000 },
      (err, _stdout, stderr) => (err ? rejectPackage(new Error(`packaging test/vscode/${name} failed: ${err.message}\n${stderr}`)) : resolvePackage(packagePath)),
    );
  });
}

/** An HTTP server that answers nothing useful and appends every request it gets (method, url, headers) to `logFile`. */
function startRecorder(logFile) {
  return new Promise((resolveStart) => {
    writeFileSync(logFile, '');
    const srv = createServer((req, res) => {
      appendFileSync(logFile, JSON.stringify({ method: req.method, url: req.url, headers: req.headers }) + '\n');
      req.resume();
      res.writeHead(500, { 'content-type': 'text/plain' }).end('recorder');
    });
    srv.listen(0, '127.0.0.1', () => resolveStart({ url: `http://127.0.0.1:${srv.address().port}`, stop: () => srv.close() }));
  });
}

/**
 * Runs test/vscode/restricted/ in a fresh code-server with workspace trust enabled, on a folder
 * that would spawn a marker-writing program and send a planted secret to a recording server if
 * anything of it ran. The tests check both stayed untouched (and, as a control, that they do
 * notice when the fixtures are started directly).
 */
let restrictedServer; // killed by the 'exit' handler too
async function runRestricted(runTests) {
  const dir = join(runDir, 'restricted');
  const ws = join(dir, 'ws');
  const markers = join(dir, 'markers');
  const requestLog = join(dir, 'requests.jsonl');
  for (const d of [join(ws, '.vscode'), markers]) mkdirSync(d, { recursive: true });
  const recorder = await startRecorder(requestLog);
  const marker = (name) => ({ type: 'stdio', command: process.execPath, args: ['-e', "require('fs').writeFileSync(process.argv[1], 'spawned')", join(markers, name)] });
  const http = (path, header) => ({ type: 'http', url: `${recorder.url}/${path}`, headers: { [header]: 'Bearer ${env:MCP_TASKS_E2E_PLANTED}' } });
  writeFileSync(join(ws, '.vscode', 'mcp.json'), JSON.stringify({ servers: { 'ws-stdio': marker('ws-stdio'), 'ws-http': http('ws-http', 'Authorization') } }, null, 2));
  writeFileSync(
    join(ws, '.vscode', 'settings.json'),
    JSON.stringify(
      {
        'mcpTasks.servers': { 'settings-stdio': marker('settings-stdio'), 'settings-http': http('settings-http', 'X-Api-Key') },
        'mcpTasks.workspaceServers.firstStart': 'allow',
        'editor.tabSize': 3, // a harmless setting: proves VS Code read this file
        // Limits and consent are the user's: neither applies from a workspace.
        'mcpTasks.requestor.ttlMs': 1234567,
        'mcpTasks.receiver.operationsPerSecond': 100000,
        'mcpTasks.sampling.modelByServer': { 'ws-http': 'some-other-model' },
      },
      null,
      2,
    ),
  );
  let srv;
  try {
    srv = restrictedServer = await startCodeServer({
      runDir: join(dir, 'server'),
      logFile: join(resultsDir, 'code-server-restricted.log'),
      folder: ws,
      disableWorkspaceTrust: false,
      // No trust dialog at startup: the folder simply stays in Restricted Mode.
      settings: { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.untrustedFiles': 'open' },
      env: {
        MCP_TASKS_E2E_PLANTED: 'planted-secret-4f1c9a',
        MCP_TASKS_E2E_RESTRICTED: JSON.stringify({ markers, requestLog, secret: 'planted-secret-4f1c9a' }),
        ...(opts.grep ? { MCP_TASKS_E2E_GREP: opts.grep } : {}),
        ...(process.stdout.isTTY ? { MCP_TASKS_E2E_COLOR: '1' } : {}),
      },
    });
    return await runTests(restrictedModule, 'the Restricted Mode suite', 'automation-restricted', srv);
  } finally {
    await srv?.stop().catch(() => {});
    recorder.stop();
  }
}

/**
 * Every page the browser context opens (the workbench's windows and what `vscode.env.openExternal`
 * opens) and every navigation of one, with its URL, to `logFile`: shows whether an external open
 * reached the browser at all.
 */
function logPages(context, logFile) {
  writeFileSync(logFile, '');
  const t = Date.now();
  const line = (m) => appendFileSync(logFile, `${((Date.now() - t) / 1000).toFixed(1).padStart(7)}s ${m}\n`);
  let n = 0;
  context.on('page', (p) => {
    const id = ++n;
    line(`page ${id} opened ${p.url()}`);
    p.on('framenavigated', (f) => f === p.mainFrame() && line(`page ${id} at ${f.url().replace(/([?&](code|state|code_challenge)=)[^&]+/g, '$1…')}`));
    p.on('popup', (q) => line(`page ${id} popup ${q.url()}`));
    p.on('close', () => line(`page ${id} closed`));
  });
}

/**
 * The OAuth-protected demo MCP server (dist/fixtures/oauthServer.js, with its Approve/Deny page)
 * as a process of the runner: it outlives the window reload, so the after-reload suite can check
 * that a signed-in server connects again without asking.
 */
function startOAuthFixture(logFile) {
  return startFixture('the OAuth fixture', ['fixtures', 'oauthServer.js'], ['--http', '--consent-page'], logFile);
}

/** Whether `grep` matches a test of the after-reload suite ("<suite> <test>", titles read from its sources). */
function afterReloadMatches(grep) {
  const re = new RegExp(grep);
  const dir = join(root, 'test', 'vscode', 'afterReload');
  const titles = (src, kind) => [...src.matchAll(new RegExp(`\\b${kind}\\(\\s*(['"\`])(.*?)\\1`, 'g'))].map((m) => m[2]);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.test.ts'))
    .some((f) => {
      const src = readFileSync(join(dir, f), 'utf8');
      return titles(src, 'suite').some((su) => re.test(su) || titles(src, 'test').some((t) => re.test(`${su} ${t}`)));
    });
}

/** Every file below `dir` (the run's user data, logs and extensions; test-results). */
function filesBelow(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

/**
 * Greps every file of the run (code-server's user data with the extension host's logs and output
 * channels, the workbench logs the page handed over, the runner's logs) for every token, refresh
 * token and code the OAuth fixtures issued (the runner's fixture process, and what the tests' own
 * fixtures reported in MCP_TASKS_E2E_SECRETS_FILE). Only names files, never the values.
 */
async function grepRunForSecrets() {
  const values = new Set(readFileSync(secretsFile, 'utf8').split('\n').filter((v) => v.length >= 8));
  try {
    const res = await fetch(new URL('/control/secrets', oauthFixture.url), { method: 'POST' });
    for (const v of (await res.json()).secrets) if (v.length >= 8) values.add(v);
  } catch (err) {
    return { status: 'BROKEN', detail: `could not read the OAuth fixture's secrets: ${err?.message ?? err}` };
  }
  if (values.size === 0) return { status: 'nothing to look for' };
  // A control: a planted value in a log file of the run must be found, or the grep proves nothing.
  const canary = `canary-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  const canaryFile = join(runDir, 'ud', 'logs', 'canary.log');
  mkdirSync(dirname(canaryFile), { recursive: true });
  writeFileSync(canaryFile, `a log line holding ${canary}\n`);
  const needles = [...values].map((v) => Buffer.from(v));
  const files = [...filesBelow(runDir), ...filesBelow(resultsDir)].filter((f) => f !== secretsFile && !f.endsWith('.png') && !f.endsWith('.vsix'));
  const hits = [];
  let canaryFound = false;
  for (const f of files) {
    let buf;
    try {
      buf = readFileSync(f);
    } catch {
      continue;
    }
    if (f === canaryFile) canaryFound = buf.includes(Buffer.from(canary));
    const n = needles.filter((v) => buf.includes(v)).length;
    if (n) hits.push(`${f}: ${n} value(s)`);
  }
  rmSync(canaryFile, { force: true });
  if (!canaryFound) return { status: 'BROKEN', detail: 'the control value planted in the run\'s logs was not found' };
  if (hits.length) {
    for (const h of hits) console.error(`[vscode-e2e] a token or code of the run is in ${h}`);
    return { status: 'FOUND', detail: hits.join('; ') };
  }
  return { status: 'clean', detail: `${values.size} tokens/codes, ${files.length} files` };
}

// ---- preconditions -------------------------------------------------------------------------
for (const f of [join(root, 'dist', 'extension.js'), join(root, 'dist', 'demo-server.js'), join(root, 'dist', 'fixtures', 'oauthServer.js'), testsModule, reloadModule, restrictedModule]) {
  if (!existsSync(f)) {
    console.error(`[vscode-e2e] ${f} is missing: run \`node esbuild.mjs\` first (npm run test:vscode does).`);
    process.exit(2);
  }
}
if (!existsSync(workspace)) mkdirSync(workspace, { recursive: true });

const tToolchain = Date.now();
try {
  ensureCodeServer();
  ensureChromium();
} catch (err) {
  console.error(`[vscode-e2e] ${err instanceof ToolchainError ? err.message : `could not set up the toolchain (Node 24, code-server, Chromium): ${err?.message ?? err}`}`);
  process.exit(2);
}
say(`toolchain ready (${secs(tToolchain)})`);

// ---- run -----------------------------------------------------------------------------------
mkdirSync(resultsDir, { recursive: true });
mkdirSync(screenshotsDir, { recursive: true });
for (const f of readdirSync(screenshotsDir)) if (f.endsWith('-failed.png')) rmSync(join(screenshotsDir, f), { force: true });
const runDir = mkdtempSync(join(tmpdir(), 'mcp-tasks-e2e-'));
let server;
let browser;
let bridge;
let demoHttp;
let demo2026Http;
let oauthFixture;
const secretsFile = join(runDir, 'issued-secrets.txt'); // tokens and codes the OAuth fixtures issued (see grepRunForSecrets)
let secretsGrep = { status: 'not run' };
let interrupt; // resolves the race below on SIGINT/SIGTERM/timeout
const interrupted = new Promise((r) => (interrupt = r));

const onSignal = (sig) => {
  say(`${sig}: stopping…`);
  interrupt({ kind: 'signal', sig });
};
process.once('SIGINT', () => onSignal('SIGINT'));
process.once('SIGTERM', () => onSignal('SIGTERM'));
process.once('SIGHUP', () => onSignal('SIGHUP'));
// Last resort if the runner dies some other way: never leave the process group behind.
process.on('exit', () => {
  server?.killNow();
  restrictedServer?.killNow();
  demoHttp?.stop();
  demo2026Http?.stop();
  oauthFixture?.stop();
  if (!opts.keep) rmSync(runDir, { recursive: true, force: true });
});
const hardTimer = setTimeout(() => {
  console.error(`[vscode-e2e] TIMEOUT: the run took more than ${opts['timeout-min']} min; stopping code-server. See ${resultsDir}/code-server.log`);
  interrupt({ kind: 'timeout' });
}, timeoutMs);
hardTimer.unref();

let suite = { status: 'not run' };
let smoke = { status: 'not run' };
try {
  bridge = await startBridge({ screenshotsDir, log: say });
  // A demo server over HTTP that outlives the window reload (configured in user settings), so the
  // after-reload suite can see tracking resume against a server that still knows the task.
  demoHttp = await startDemoHttp(join(resultsDir, 'demo-http.log'));
  say(`demo server (HTTP) at ${demoHttp.url}`);
  demo2026Http = await startDemo2026Http(join(resultsDir, 'demo-2026-http.log'));
  say(`2026-07-28 demo server (HTTP) at ${demo2026Http.url}`);
  oauthFixture = await startOAuthFixture(join(resultsDir, 'oauth-fixture.log'));
  writeFileSync(secretsFile, '');
  // code-server has no language models: a test-only extension provides a deterministic one
  // (test/vscode/fake-lm), packaged and installed into this run's extensions dir.
  const fakeLm = await packageFakeLm(runDir);
  // A third-party-style user of the extension API (test/vscode/api-consumer).
  const apiConsumer = await packageFakeLm(runDir, 'api-consumer');
  server = await startCodeServer({
    vsixes: [fakeLm, apiConsumer],
    // The demo workspace's own servers start without the first-start question (a user-only
    // setting); the Restricted Mode run below proves a workspace's servers never start untrusted.
    settings: {
      'mcpTasks.servers': { 'demo-http': { type: 'http', url: demoHttp.url }, 'demo-2026-http': { type: 'http', url: demo2026Http.url } },
      'mcpTasks.workspaceServers.firstStart': 'allow',
    },
    runDir,
    logFile: join(resultsDir, 'code-server.log'),
    folder: workspace,
    env: {
      MCP_TASKS_E2E_BRIDGE: bridge.url,
      MCP_TASKS_E2E_OAUTH: oauthFixture.url,
      MCP_TASKS_E2E_SECRETS_FILE: secretsFile,
      ...(opts.grep ? { MCP_TASKS_E2E_GREP: opts.grep } : {}),
      ...(process.stdout.isTTY ? { MCP_TASKS_E2E_COLOR: '1' } : {}),
    },
  });
  say(`code-server ${server.version} on ${server.base} (pgid ${server.pid}), bridge ${bridge.url} (${secs()})`);

  // Playwright's own signal handlers would process.exit(130) before our cleanup and summary:
  // launchChromium turns them off.
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await installPageHelpers(context);
  logPages(context, join(resultsDir, 'pages.log'));

  /** Runs one extension-host test module in a fresh page (a new window: a new extension host). */
  const runTests = async (module, label, logName, srv = server) => {
    const page = await context.newPage();
    const browserLog = [];
    page.on('console', (m) => browserLog.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => browserLog.push(`[pageerror] ${e.stack ?? e}`));
    let exitCode;
    const suiteDone = new Promise((resolveExit) => {
      exitCode = resolveExit;
    });
    const tSuite = Date.now();
    const automationLog = createWriteStream(join(resultsDir, `${logName}.log`));
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const line = format(...(Array.isArray(args) ? args : [args]));
      // The page may still log while it is being closed, after the suite's outcome is in.
      if (automationLog.writableEnded) return;
      automationLog.write(`${((Date.now() - tSuite) / 1000).toFixed(1).padStart(6)}s [${type}] ${line}\n`);
      if (!opts.verbose && WORKBENCH_NOISE.test(line)) return;
      if (type === 'error') process.stderr.write(line + '\n');
      else process.stdout.write(line + '\n');
    });
    await page.exposeFunction('codeAutomationExit', (code, logs) => {
      for (const l of Array.isArray(logs) ? logs : []) {
        if (!l?.relativePath) continue;
        const p = join(resultsDir, 'logs', logName, l.relativePath);
        mkdirSync(dirname(p), { recursive: true });
        writeFileSync(p, l.contents ?? '');
      }
      exitCode({ kind: 'exit', code });
    });
    bridge.setPage(page);
    say(`running ${label}…`);
    await page.goto(srv.url({ devPath: root, testsPath: module }));
    const serverDied = srv.exitPromise.then((e) => ({ kind: 'server-exit', ...e }));
    const pageClosed = new Promise((r) => page.once('close', () => r({ kind: 'page-closed' })));
    const outcome = await Promise.race([suiteDone, interrupted, serverDied, pageClosed]);
    writeFileSync(join(resultsDir, `${logName}-browser-console.log`), browserLog.join('\n') + '\n');
    let result;
    if (outcome.kind === 'exit') result = { status: outcome.code === 0 ? 'passed' : 'failed', code: outcome.code, time: secs(tSuite) };
    else result = { status: outcome.kind === 'timeout' ? 'timed out' : outcome.kind === 'signal' ? 'interrupted' : `aborted (${outcome.kind})`, time: secs(tSuite) };
    say(`${label} ${result.status} in ${result.time}${bridge.requests ? `, ${bridge.requests} UI bridge request(s) so far` : ''}`);
    if (outcome.kind !== 'exit' && outcome.kind !== 'server-exit') throw Object.assign(new Error('stopped'), { quiet: true });
    // The web workbench keeps state (extension workspaceState too) in IndexedDB and flushes it
    // when the window loses focus; closing a page does not wait for that. Blur first, give the
    // write a moment, then close (which shuts the extension host down).
    await page.evaluate(() => window.dispatchEvent(new Event('blur'))).catch(() => {});
    await page.waitForTimeout(1500);
    await page.close();
    automationLog.end();
    return result;
  };

  // -- 1. the extension-host suite, in a page whose payload loads the extension and the tests
  suite = await runTests(testsModule, 'the extension-host suite', 'automation');
  // -- 1b. the same user data after a window reload: a new extension host must find what the
  //        first one left (sent tasks, fetched results) and resume tracking.
  if (!opts.grep || afterReloadMatches(opts.grep)) {
    const second = await runTests(reloadModule, 'the after-reload suite', 'automation-after-reload');
    if (suite.status === 'passed' && second.status !== 'passed') suite = { ...second, status: `${second.status} (after reload)` };
  }
  // -- 1c. Restricted Mode: a second code-server WITHOUT --disable-workspace-trust opens a folder
  //        whose .vscode/mcp.json and settings.json define servers; nothing may run or be sent.
  if (!opts.grep || new RegExp(opts.grep).test('Restricted Mode')) {
    const restricted = await runRestricted(runTests);
    if (suite.status === 'passed' && restricted.status !== 'passed') suite = { ...restricted, status: `${restricted.status} (Restricted Mode)` };
  }

  // -- 1d. No token or code of the run's sign-ins in any log: code-server's (the extension's output
  //        channels included), the workbench's, the runner's.
  secretsGrep = await grepRunForSecrets();
  say(`secrets grep: ${secretsGrep.status}${secretsGrep.detail ? ` (${secretsGrep.detail})` : ''}`);

  // -- 2. standalone UI smoke: a fresh page with just the development extension (no tests)
  const tSmoke = Date.now();
  const page2 = await context.newPage();
  bridge.setPage(page2);
  const smokeRun = (async () => {
    await page2.goto(server.url({ devPath: root }));
    await mcpTab(page2).waitFor({ state: 'visible', timeout: 60_000 });
    // The workbench restores the last open container from a cached placeholder first: open the
    // view and wait for its body so the screenshot shows the extension's real contribution.
    await openView(page2, 30_000);
    await page2.mouse.move(720, 450); // no tooltip in the screenshot
    await page2.locator('.part.sidebar .pane-body').first().waitFor({ state: 'visible', timeout: 30_000 });
    // The extension is live: the workspace's demo server is in the tree (not the "no server" welcome).
    await page2.locator('.part.sidebar .monaco-list-row', { hasText: 'demo' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await mcpTab(page2).waitFor({ state: 'visible', timeout: 10_000 });
    await page2.locator('.part.statusbar').waitFor({ state: 'visible', timeout: 10_000 });
    const shot = join(screenshotsDir, 'workbench.png');
    await page2.screenshot({ path: shot });
    return shot;
  })();
  const smokeOutcome = await Promise.race([smokeRun.then((shot) => ({ kind: 'ok', shot }), (err) => ({ kind: 'error', err })), interrupted]);
  if (smokeOutcome.kind === 'ok') smoke = { status: 'passed', time: secs(tSmoke), shot: smokeOutcome.shot };
  else if (smokeOutcome.kind === 'error') {
    smoke = { status: 'failed', time: secs(tSmoke), reason: String(smokeOutcome.err?.message ?? smokeOutcome.err).split('\n')[0] };
    await page2.screenshot({ path: join(screenshotsDir, 'workbench-failed.png') }).catch(() => {});
  } else smoke = { status: smokeOutcome.kind === 'timeout' ? 'timed out' : 'interrupted', time: secs(tSmoke) };
  say(`UI smoke ${smoke.status} in ${smoke.time}${smoke.reason ? `: ${smoke.reason}` : ''}${smoke.shot ? ` (${smoke.shot})` : ''}`);
} catch (err) {
  if (!err?.quiet) console.error(`[vscode-e2e] error: ${err?.stack ?? err}`);
} finally {
  await browser?.close().catch(() => {});
  await server?.stop().catch(() => {});
  await bridge?.close().catch(() => {});
  demoHttp?.stop();
  demo2026Http?.stop();
  oauthFixture?.stop();
  if (opts.keep) say(`run folder kept: ${runDir}`);
  else rmSync(runDir, { recursive: true, force: true });
}

const passed = suite.status === 'passed' && smoke.status === 'passed' && !['FOUND', 'BROKEN'].includes(secretsGrep.status);
console.log(
  `\n[vscode-e2e] ${passed ? 'PASSED' : 'FAILED'}: extension-host suite ${suite.status}, UI smoke ${smoke.status}, secrets grep ${secretsGrep.status} ` +
    `(VS Code ${server?.version ? `via code-server ${server.version}` : 'not started'}, total ${secs()}). ` +
    `Logs: ${resultsDir}${passed ? '' : `/code-server.log`}`,
);
const interruptedBy = [suite.status, smoke.status].includes('interrupted');
process.exit(passed ? 0 : interruptedBy ? 130 : 1);
