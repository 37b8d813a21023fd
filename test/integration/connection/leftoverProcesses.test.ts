/**
 * A stdio server a window left running (a reload that did not get to stop it) is stopped by the
 * next window, through the journal of spawned processes (connection/processJournal.ts), on a real
 * process in its own process group.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ProcessJournal } from '../../../src/core/connection/processJournal.js';
import { StdioTransport } from '../../../src/core/connection/stdioTransport.js';

test('a window that is gone left a server running: the next one stops it', { skip: process.platform !== 'linux' && 'the journal checks processes through /proc' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'leftover-'));
  try {
    const file = join(dir, 'server-processes.json');
    // The window that left it: an extension host process that has exited since.
    const goneWindow = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const oldWindow = new ProcessJournal(file, { self: Number(goneWindow.stdout) });
    const server = new StdioTransport({ command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: { ...process.env } as Record<string, string> }, oldWindow);
    const closed = new Promise<void>((resolve) => (server.onclose = resolve));
    await server.start();
    assert.ok(server.pid);

    const newWindow = new ProcessJournal(file);
    assert.deepEqual(newWindow.stopLeftovers(), [server.pid]);
    await closed;
    assert.equal(server.exit?.signal, 'SIGTERM');
    assert.deepEqual(newWindow.stopLeftovers(), [], 'nothing left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
