/**
 * A stdio server started through the server host (src/core/serverHost/, the real host process)
 * starts and fails as one the window spawns itself: a program that is not found is named so, with
 * the crash backoff; and a host that cannot be reached (its folder may be entered by others) is not
 * used at all — the window spawns the server itself, and says so in the server's log.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpConnection } from '../../../src/core/connection/connection.js';
import type { StdioHost } from '../../../src/core/connection/hostedStdio.js';
import { ServerHostClient } from '../../../src/core/serverHost/launch.js';
import { hostPaths } from '../../../src/core/serverHost/privateDir.js';
import { MemoryLog, ROOT, fixture, stdioDefinition, textOf } from '../../helpers/host.js';
import { MemorySessions } from '../../helpers/memorySessions.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const HOST_SCRIPT = join(ROOT, 'dist', 'serverHost.js');

function hostIn(dir: string): StdioHost {
  return { client: new ServerHostClient({ dir, hostScript: HOST_SCRIPT, env: { MCP_TASKS_HOST_IDLE_MS: '300' } }), graceMs: () => 30_000, hosts: () => true };
}

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

test('a program that is not found, started through the host: the same sentence as a direct spawn, and retried', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-'));
  const serverHost = hostIn(dir);
  const c = new McpConnection(stdioDefinition('ghost', 'definitely-not-a-command-mcp-tasks', []), { log: new MemoryLog(), variables: { env: process.env }, sessions: new MemorySessions(), serverHost, restart: { baseDelayMs: 60_000, maxCrashes: 100 } });
  let hostPid = -1;
  try {
    await assert.rejects(c.start(), /"ghost" failed to start: the program "definitely-not-a-command-mcp-tasks" was not found: is it on PATH\?/);
    assert.ok(c.state.kind === 'error' && c.state.retryAt !== undefined, 'a retry is scheduled, as for a direct spawn');
    hostPid = (await serverHost.client.link()).hostPid;
    assert.ok(hostPid > 0 && hostPid !== process.pid, 'it was the host that tried');
  } finally {
    c.dispose();
    if (hostPid > 0 && !gone(hostPid)) process.kill(hostPid, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a host folder others may enter is refused: no host is started, the window spawns the server itself and logs why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-'));
  chmodSync(dir, 0o755);
  const log = new MemoryLog();
  const c = new McpConnection(stdioDefinition('fx', process.execPath, [fixture('requestorServer')]), { log, variables: { env: process.env }, sessions: new MemorySessions(), serverHost: hostIn(dir) });
  try {
    await c.start();
    const { ppid } = JSON.parse(textOf(await c.client.callTool({ name: 'stats', arguments: {} }))) as { ppid: number };
    assert.equal(ppid, process.pid, 'spawned by the window');
    assert.equal(c.continuity.kind, 'new-process');
    assert.ok(log.lines.some((l) => /the server host cannot be reached: .* may be entered by other users \(mode 755\); the server is started by this window/.test(l)), log.lines.join('\n'));
    assert.ok(!existsSync(hostPaths(dir).token) && !existsSync(hostPaths(dir).socket), 'nothing was written there');
  } finally {
    c.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
