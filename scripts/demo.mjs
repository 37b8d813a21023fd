#!/usr/bin/env node
// Opens VS Code on examples/demo with this extension loaded as a development extension.
//
//   node esbuild.mjs && node scripts/demo.mjs [--port N] [--smoke]
//
// - With a `code` CLI on PATH: `code --new-window --extensionDevelopmentPath=<repo> examples/demo`.
// - Otherwise: code-server (installed into ~/.cache/mcp-tasks-e2e on first use) on 127.0.0.1
//   (port from --port or PORT, default 8080 when free, else a random one); prints a URL whose
//   payload loads the extension, and serves until Ctrl+C. Loopback only: use an SSH tunnel
//   (`ssh -L 8080:127.0.0.1:8080 host`) to open it from another machine.
// --smoke      (code-server only) load the URL once in headless chromium, save
//              test-results/screenshots/demo.png, check the MCP Tasks tab, and stop.
// --installed  instead of the development payload, link the repo into the (fresh) extensions
//              dir as an installed extension and serve without the smoke-test driver: a plain
//              URL, and notification toasts show (the smoke-test driver, which a payload needs,
//              suppresses toasts). Reload the window after rebuilding.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchChromium } from './lib/chromium.mjs';
import { freePort, startCodeServer } from './lib/codeServer.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const workspace = join(root, 'examples', 'demo');
const { values: opts } = parseArgs({
  options: {
    port: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    installed: { type: 'boolean', default: false },
  },
});
const say = (m) => console.log(`[demo] ${m}`);

/** A desktop VS Code CLI (`code`), but not code-server's own `code-server`/`code` shim. */
function desktopCode() {
  const r = spawnSync('code', ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return false;
  return !/code-server/i.test(r.stdout);
}

if (!opts.smoke && desktopCode()) {
  say(`code --new-window --extensionDevelopmentPath=${root} ${workspace}`);
  const r = spawnSync('code', ['--new-window', `--extensionDevelopmentPath=${root}`, workspace], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const wanted = Number(opts.port ?? process.env.PORT ?? 0);
const port = wanted || (await freePort(8080));
if (wanted && (await freePort(wanted)) !== wanted) {
  console.error(`[demo] port ${wanted} is in use`);
  process.exit(1);
}
mkdirSync(workspace, { recursive: true });
const runDir = mkdtempSync(join(tmpdir(), 'mcp-tasks-demo-'));
let server;
let done = false;
async function shutdown(code) {
  if (done) return;
  done = true;
  await server?.stop().catch(() => {});
  rmSync(runDir, { recursive: true, force: true });
  process.exit(code);
}
process.on('exit', () => server?.killNow());
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => void shutdown(0));

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
if (opts.installed) {
  // A folder in a fresh extensions dir is picked up on the first scan (later ones go by
  // extensions.json); a symlink keeps it pointing at the live dist/.
  mkdirSync(join(runDir, 'exts'), { recursive: true });
  symlinkSync(root, join(runDir, 'exts', `${manifest.publisher}.${manifest.name}-${manifest.version}`));
}
try {
  server = await startCodeServer({
    runDir,
    logFile: join(runDir, 'code-server.log'),
    port,
    folder: workspace,
    // code-server (a built VS Code) reads the URL payload only when the smoke-test driver is
    // enabled: `if (payload && (!isBuilt || enableSmokeTestDriver))` in its workbench.
    smokeTestDriver: !opts.installed,
  });
} catch (err) {
  console.error(`[demo] ${err.message}`);
  await shutdown(1);
}
const url = opts.installed ? server.url() : server.url({ devPath: root });
say(`code-server ${server.version} (VS Code ${server.version.replace(/^4\./, '1.')}) is serving ${workspace}`);
say(`open this URL (it loads the extension from ${root}):\n\n  ${url}\n`);
if (!opts.installed) {
  say('note: in this mode notification toasts are hidden (smoke-test driver); they are in the notification center (bell). --installed shows them.');
}

if (opts.smoke) {
  let ok = false;
  try {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      await page.goto(url);
      const tab = page.getByRole('tab', { name: /MCP Tasks/ }).first();
      await tab.waitFor({ state: 'visible', timeout: 60_000 });
      await tab.click();
      await page.locator('.part.sidebar .composite.title', { hasText: /MCP Tasks/i }).waitFor({ timeout: 15_000 });
      // The extension is live: the demo workspace's server is in the tree.
      await page.locator('.part.sidebar .monaco-list-row', { hasText: 'demo' }).first().waitFor({ state: 'visible', timeout: 30_000 });
      const shot = join(root, 'test-results', 'screenshots', 'demo.png');
      mkdirSync(dirname(shot), { recursive: true });
      await page.screenshot({ path: shot });
      say(`smoke passed: MCP Tasks tab shown, screenshot ${shot}`);
      ok = true;
    } finally {
      await browser.close();
    }
  } catch (err) {
    console.error(`[demo] smoke FAILED: ${err.message}`);
  }
  await shutdown(ok ? 0 : 1);
} else {
  say('Ctrl+C to stop.');
  const e = await server.exitPromise;
  if (!done) {
    console.error(`[demo] code-server exited (${JSON.stringify(e)}); log: ${join(runDir, 'code-server.log')}`);
    done = true;
    process.exit(1);
  }
}
