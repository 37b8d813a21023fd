// Starting and stopping a loopback-only code-server (VS Code in the browser) for tests and the
// demo. See shared/E2E-RECIPE.md for why each flag and setting is here.
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ensureCodeServer } from './toolchain.mjs';
import { killByEnv } from './killByEnv.mjs';

export { killByEnv };

/** Settings that keep the agent host/copilot runtime, telemetry and update checks off. */
export const SEEDED_SETTINGS = {
  'chat.disableAIFeatures': true,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'workbench.startupEditor': 'none',
  'git.enabled': false,
  'update.mode': 'none',
  'workbench.tips.enabled': false,
};

/** A free TCP port on 127.0.0.1 (or `preferred` when it is free). */
export function freePort(preferred = 0) {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', (err) => {
      if (preferred) freePort(0).then(resolve, reject);
      else reject(err);
    });
    srv.listen(preferred, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts code-server in its own session/process group with isolated state under `runDir`.
 * @param {object} o
 * @param {string} o.runDir      folder for user data, extensions, XDG dirs and TMPDIR
 * @param {string} o.logFile     code-server's stdout/stderr go here
 * @param {number} [o.port]      0/undefined = a random free port
 * @param {boolean} [o.smokeTestDriver] pass `--vscode-option enable-smoke-test-driver` (needed for test payloads)
 * @param {Record<string,string>} [o.env] extra environment (inherited by the extension host)
 * @param {string} [o.folder]    workspace folder opened by default
 * @param {Record<string, unknown>} [o.settings] user settings added to the seeded ones
 * @param {boolean} [o.disableWorkspaceTrust] pass `--disable-workspace-trust` (default true; false
 *                               for a Restricted Mode run: an unknown folder opens untrusted)
 * @param {string[]} [o.vsixes]  packaged extensions installed into the run's extensions dir first
 *                               (helpers such as the test-only language model provider: only one
 *                               extensionDevelopmentPath takes effect in a page payload)
 */
export async function startCodeServer({ runDir, logFile, port = 0, smokeTestDriver = true, env = {}, folder, settings = {}, vsixes = [], disableWorkspaceTrust = true }) {
  const cs = ensureCodeServer();
  port = port || (await freePort());
  const dirs = {
    ud: join(runDir, 'ud'),
    exts: join(runDir, 'exts'),
    data: join(runDir, 'xdg-data'),
    config: join(runDir, 'xdg-config'),
    cache: join(runDir, 'xdg-cache'),
    tmp: join(runDir, 'tmp'),
    // The extension's server host (src/core/serverHost) keeps its socket here: the run's own,
    // never the user's (a developer's VS Code may run a host of its own in $XDG_RUNTIME_DIR).
    runtime: join(runDir, 'xdg-runtime'),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true, mode: 0o700 });
  mkdirSync(join(dirs.ud, 'User'), { recursive: true });
  writeFileSync(join(dirs.ud, 'User', 'settings.json'), JSON.stringify({ ...SEEDED_SETTINGS, ...settings }, null, 2));
  const configFile = join(runDir, 'config.yaml');
  writeFileSync(configFile, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const isolatedEnv = childEnv({ ...env, XDG_DATA_HOME: dirs.data, XDG_CONFIG_HOME: dirs.config, XDG_CACHE_HOME: dirs.cache, XDG_RUNTIME_DIR: dirs.runtime, TMPDIR: dirs.tmp });
  for (const vsix of vsixes) {
    // `--install-extension` installs and exits (< 1 s); the server started below loads it.
    execFileSync(
      cs.node,
      [cs.entry, '--config', configFile, '--user-data-dir', dirs.ud, '--extensions-dir', dirs.exts, '--install-extension', vsix],
      { env: isolatedEnv, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 },
    );
  }

  const args = [
    cs.entry,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    ...(disableWorkspaceTrust ? ['--disable-workspace-trust'] : []),
    '--disable-getting-started-override',
    '--ignore-last-opened',
    '--user-data-dir', dirs.ud,
    '--extensions-dir', dirs.exts,
    '--config', configFile,
    ...(smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    ...(folder ? [folder] : []),
  ];
  const out = createWriteStream(logFile);
  // `detached: true` makes the child call setsid(): it leads a new session and process group
  // whose id is its pid, so `kill(-pid)` reaches the extension host and every helper too.
  const child = spawn(cs.node, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: isolatedEnv,
  });
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  let exited = null;
  const exitPromise = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exited = { code, signal }))));

  const base = `http://127.0.0.1:${port}`;
  const server = {
    pid: child.pid,
    port,
    base,
    node: cs.node,
    version: cs.version,
    get exited() {
      return exited;
    },
    exitPromise,
    /** Workbench URL for `folder`, with a payload that loads `devPath` (and runs `testsPath`). */
    url({ folder: f = folder, devPath, testsPath } = {}) {
      const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
      const payload = [];
      if (devPath) payload.push(['extensionDevelopmentPath', remote(devPath)]);
      if (testsPath) payload.push(['extensionTestsPath', remote(testsPath)]);
      if (payload.length) payload.push(['skipWelcome', 'true']);
      const q = new URLSearchParams();
      if (f) q.set('folder', f);
      if (payload.length) q.set('payload', JSON.stringify(payload));
      return `${base}/?${q.toString()}`;
    },
    /** Stops the whole process group: TERM, then KILL after `graceMs`. Safe to call twice. */
    async stop(graceMs = 5000) {
      if (exited) return;
      killGroup(child.pid, 'SIGTERM');
      const t = setTimeout(() => killGroup(child.pid, 'SIGKILL'), graceMs);
      await exitPromise;
      clearTimeout(t);
      // The leader may exit before its group: make sure nothing of it is left.
      killGroup(child.pid, 'SIGKILL');
      // The server host and its servers run detached, outside that group, and outlive a window
      // on purpose: end them with the run.
      killByEnv(`XDG_RUNTIME_DIR=${dirs.runtime}`);
      out.end();
    },
    /** Synchronous last-resort kill (for process 'exit' handlers). */
    killNow() {
      killGroup(child.pid, 'SIGKILL');
      killByEnv(`XDG_RUNTIME_DIR=${dirs.runtime}`);
    },
  };

  await waitForHealthz(base, () => exited, 60_000, logFile);
  return server;
}

/** The runner's environment plus `extra`, without what must not leak into code-server. */
function childEnv(extra) {
  const env = { ...process.env, ...extra };
  // NODE_OPTIONS (e.g. from a debugger or tsx) would be applied to Node 24 and the extension host.
  delete env.NODE_OPTIONS;
  delete env.ELECTRON_RUN_AS_NODE;
  // `npm run` exports npm_* variables, including npm_config_nodedir=/usr for Node 20 headers.
  for (const k of Object.keys(env)) if (k.startsWith('npm_')) delete env[k];
  return env;
}

export function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

async function waitForHealthz(base, exited, timeoutMs, logFile) {
  const deadline = Date.now() + timeoutMs;
  let lastErr;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`code-server exited early (${JSON.stringify(exited())}); see ${logFile}`);
    try {
      const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
      lastErr = new Error(`HTTP ${res.status}`);
    } catch (err) {
      lastErr = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer ${base}/healthz within ${timeoutMs} ms (${lastErr?.message}); see ${logFile}`);
}
