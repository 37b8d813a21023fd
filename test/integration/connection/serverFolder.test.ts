/**
 * The folder a stdio server runs in (src/core/config/variables.ts `serverFolder`), with real child
 * processes started through the extension's own path (variables resolved, createTransport, the
 * stdio transport's spawn): a user server with no `cwd` runs in the user's home folder, a
 * workspace server in its workspace folder, a relative `cwd` or `envFile` is taken from there.
 *
 * The extension host's working directory is simulated as VS Code started with `code .` in a
 * repository: this test process moves into a folder holding `server.js`, `run.sh` and `.env`. A
 * user server's `node ./server.js`, `./run.sh` or `"envFile": ".env"` must never reach them.
 */
import { after, before, describe, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseMcpConfig, resolveTransport, type ConfigSource, type ServerDefinition } from '../../../src/core/config/config.js';
import { createTransport } from '../../../src/core/connection/transports.js';
import type { StdioTransport } from '../../../src/core/connection/stdioTransport.js';
import { DisposableStore } from '../../../src/core/base/lifecycle.js';
import { RedactingLog } from '../../../src/core/base/redact.js';
import { MemoryLog, ScriptedResponders } from '../../helpers/host.js';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { describeState } from '../../../src/core/connection/connectionState.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-tasks-folder-')));
const home = join(root, 'home');
const repo = join(root, 'repo');
const workspace = join(root, 'workspace');
const marker = join(root, 'repo-code-ran');
const hostCwd = process.cwd();

before(() => {
  for (const d of [home, join(home, 'sub'), repo, workspace]) mkdirSync(d, { recursive: true });
  // The repository's code: anything that runs it leaves the marker.
  writeFileSync(join(repo, 'server.js'), `require('fs').writeFileSync(${JSON.stringify(marker)}, 'server.js'); console.log('repo code');\n`);
  writeFileSync(join(repo, 'run.sh'), `#!/bin/sh\necho run.sh > ${JSON.stringify(marker)}\n`);
  chmodSync(join(repo, 'run.sh'), 0o755);
  writeFileSync(join(repo, '.env'), `NODE_OPTIONS=--require ${join(repo, 'server.js')}\n`);
  // `code .` in the repository: the extension host's working directory.
  process.chdir(repo);
});
after(() => {
  process.chdir(hostCwd);
  rmSync(root, { recursive: true, force: true });
});

const USER: ConfigSource = { kind: 'user', file: 'Settings (mcpTasks.servers)' };
const WS: ConfigSource = { kind: 'workspace', file: join(workspace, '.vscode', 'mcp.json'), folder: workspace };
const PRINT_CWD = ['-e', 'console.log(process.cwd())'];

function def(source: ConfigSource, server: Record<string, unknown>): ServerDefinition {
  const { servers, problems } = parseMcpConfig(source, { servers: { s: server } });
  assert.deepEqual(problems, []);
  return servers[0]!;
}

/** Starts the server as a connection does and waits for its process to end: what it printed and how it ended. */
async function run(d: ServerDefinition): Promise<{ stdout: string[]; stderr: string[]; code: number | null }> {
  const transport = await resolveTransport(d, { env: process.env, userHome: home, workspaceFolder: d.source.kind === 'workspace' ? d.source.folder : undefined });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const store = new DisposableStore();
  try {
    const t = (await createTransport(transport, new RedactingLog(new MemoryLog()), store, { stderrLine: (l) => stderr.push(l), stdoutNoise: (l) => stdout.push(l) })) as StdioTransport;
    const closed = new Promise<void>((resolve) => (t.onclose = resolve));
    await t.start();
    await closed;
    return { stdout, stderr, code: t.exit?.code ?? null };
  } finally {
    store.dispose();
  }
}

describe('the folder a stdio server runs in', () => {
  test('a user server with no cwd runs in the home folder, not in the host\'s working directory', async () => {
    assert.equal(process.cwd(), repo, 'the host runs in the repository');
    const r = await run(def(USER, { command: process.execPath, args: PRINT_CWD }));
    assert.deepEqual(r.stdout, [home]);
  });

  test('a workspace server with no cwd runs in its workspace folder; a relative cwd is taken from the server\'s folder', async () => {
    assert.deepEqual((await run(def(WS, { command: process.execPath, args: PRINT_CWD }))).stdout, [workspace]);
    assert.deepEqual((await run(def(USER, { command: process.execPath, args: PRINT_CWD, cwd: 'sub' }))).stdout, [join(home, 'sub')]);
    assert.deepEqual((await run(def(USER, { command: process.execPath, args: PRINT_CWD, cwd: repo }))).stdout, [repo], 'an absolute cwd is kept as written');
  });

  test("a user server's `node ./server.js`, `./run.sh` and relative envFile never reach the repository the host was started in", async () => {
    const node = await run(def(USER, { command: process.execPath, args: ['./server.js'] }));
    assert.notEqual(node.code, 0);
    assert.ok(node.stderr.some((l) => l.includes(`Cannot find module '${join(home, 'server.js')}'`)), node.stderr.join('\n'));
    assert.deepEqual(node.stdout, []);

    await assert.rejects(run(def(USER, { command: './run.sh' })), /ENOENT/, 'the relative program is looked for in the home folder');

    await assert.rejects(run(def(USER, { command: process.execPath, args: PRINT_CWD, envFile: '.env' })), (e: Error) => e.message === `cannot read envFile ${join(home, '.env')}: ENOENT: no such file or directory, stat '${join(home, '.env')}'`);
    assert.equal(existsSync(marker), false, "the repository's code never ran");
  });

  test('a working folder that does not exist is named as the cause, not the program', async () => {
    const missing = join(home, 'no-such-folder');
    const ledger = new TaskLedger();
    const connection = new McpConnection(def(USER, { command: process.execPath, args: PRINT_CWD, cwd: 'no-such-folder' }), {
      sides: hostSides(ledger, new ScriptedResponders()),
      log: new MemoryLog(),
      variables: { env: process.env, userHome: home },
      restart: { maxCrashes: 0 },
    });
    try {
      await connection.start().catch(() => undefined);
      assert.equal(connection.state.kind, 'error');
      assert.match(describeState(connection.state), new RegExp(`its working folder "${missing}" does not exist \\(ENOENT\\)`));
      assert.doesNotMatch(describeState(connection.state), /is it on PATH/);
    } finally {
      connection.dispose();
      ledger.dispose();
    }
  });
});
