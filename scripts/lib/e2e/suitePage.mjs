// One extension-host test module run in a fresh page of the workbench (a new window: a new
// extension host), its output streamed and logged, its end raced against the run's interrupt,
// code-server's exit and the page closing.
import { appendFileSync, createWriteStream, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { format } from 'node:util';

/**
 * Workbench log lines that an offline code-server always prints (marketplace lookups that
 * cannot resolve, connection set-up chatter): kept out of stdout, still in automation.log.
 */
const WORKBENCH_NOISE =
  /ENOTFOUND|EAI_AGAIN|^Resolv(ing|ed) connection token|^Creating a socket|^\[reconnection-grace-time\]|^Updating additional builtin extensions cache|^\[Service Worker\]|^\[AgentHost|^\[AccountPolicyGate\]|Timed out waiting for authentication provider|^Creation of workbench contribution/;

const secs = (t) => `${((Date.now() - t) / 1000).toFixed(1)} s`;

/**
 * A `runTests(module, label, logName, server)` for this run's browser `context`: resolves with
 * `{ status, code?, time }`; throws a quiet error when the run was interrupted (signal, timeout).
 */
export function suiteRunner({ context, bridge, interrupted, root, resultsDir, verbose, say }) {
  return async (module, label, logName, srv) => {
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
      if (!verbose && WORKBENCH_NOISE.test(line)) return;
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
}

/**
 * Every page the browser context opens (the workbench's windows and what `vscode.env.openExternal`
 * opens) and every navigation of one, with its URL, to `logFile`: shows whether an external open
 * reached the browser at all.
 */
export function logPages(context, logFile) {
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

/** Whether `grep` matches a test of the after-reload suite ("<suite> <test>", titles read from its sources in `dir`). */
export function afterReloadMatches(dir, grep) {
  const re = new RegExp(grep);
  const titles = (src, kind) => [...src.matchAll(new RegExp(`\\b${kind}\\(\\s*(['"\`])(.*?)\\1`, 'g'))].map((m) => m[2]);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.test.ts'))
    .some((f) => {
      const src = readFileSync(join(dir, f), 'utf8');
      return titles(src, 'suite').some((su) => re.test(su) || titles(src, 'test').some((t) => re.test(`${su} ${t}`)));
    });
}
