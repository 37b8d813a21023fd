// The processes and packages the real-VS-Code run starts beside code-server: fixture MCP servers
// of dist/ (they outlive a window reload), a request recorder, and the test-only extensions.
import { execFile, spawn } from 'node:child_process';
import { appendFileSync, createWriteStream, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

/**
 * Starts a fixture server of `root`/dist (`script`, `args`) as a process of the runner; resolves
 * with its URL once its stderr says it listens (logged to `logFile`), with `stop()`.
 */
export function startFixture(root, label, script, args, logFile) {
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

/**
 * `dist/demo-server.js --http --port 0`: tasks kept per session, as the official "everything"
 * server keeps them, so a task outlives the window reload only if the session is taken up again.
 */
export function startDemoHttp(root, logFile) {
  return startFixture(root, 'the demo HTTP server', ['demo-server.js'], ['--http', '--port', '0'], logFile);
}

/**
 * `dist/demo-server.js --revision 2026-07-28 --http --port 0`: MCP 2026-07-28 over stateless HTTP,
 * its tasks kept by the process, so a task waiting for input outlives the window reload.
 */
export function startDemo2026Http(root, logFile) {
  return startFixture(root, 'the 2026-07-28 demo HTTP server', ['demo-server.js'], ['--revision', '2026-07-28', '--http', '--port', '0'], logFile);
}

/**
 * The OAuth-protected demo MCP server (dist/fixtures/oauthServer.js, with its Approve/Deny page)
 * as a process of the runner: it outlives the window reload, so the after-reload suite can check
 * that a signed-in server connects again without asking.
 */
export function startOAuthFixture(root, logFile) {
  return startFixture(root, 'the OAuth fixture', ['fixtures', 'oauthServer.js'], ['--http', '--consent-page'], logFile);
}

/**
 * Packages a test-only extension folder of test/vscode (fake-lm: a `vscode.lm` provider;
 * api-consumer: a user of the extension API) into `dir` with @vscode/vsce (offline); returns the .vsix path.
 */
export function packageTestExtension(root, dir, name) {
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
export function startRecorder(logFile) {
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
