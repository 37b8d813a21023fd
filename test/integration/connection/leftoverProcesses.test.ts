/**
 * A stdio server a window left running (a reload that did not get to stop it) is stopped by the
 * next window, through the journal of spawned processes (connection/processJournal.ts), on a real
 * process in its own process group — and only that process: a live process whose pid and command
 * line match an entry but whose start time does not (a reused pid running the same command) is
 * left alone, as is one whose entry has no start time (written by an earlier release).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ProcessJournal, readInstance } from '../../../src/core/connection/processJournal.js';
import { StdioTransport } from '../../../src/core/connection/stdioTransport.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const linuxOnly = { skip: process.platform !== 'linux' && 'the journal checks processes through /proc', timeout: 30_000 };

/** The pid of an extension host process that has exited since: the window that left the processes. */
function goneWindowPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

/** Whether `pid` has ended (gone, or a zombie not yet reaped by its new parent). */
function ended(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** `promise`, or a failure naming `what` after `ms` (so the test's clean-up runs). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_r, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `child` echoes a line back: it is alive after any signal sent before the call would have arrived. */
function echoes(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null, signal: string | null) => reject(new Error(`it ended (${signal ?? code})`));
    child.once('exit', onExit);
    child.stdout!.once('data', () => {
      child.off('exit', onExit);
      resolve();
    });
    child.stdin!.write('ping\n');
  });
}

describe('leftover server processes', () => {
  test('a window that is gone left a server running: the next one stops it, its process group included', linuxOnly, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leftover-'));
    let group: number | undefined;
    try {
      const file = join(dir, 'server-processes.json');
      const oldWindow = new ProcessJournal(file, { self: goneWindowPid() });
      // A server that started a helper of its own (same process group), sharing its stderr: the
      // transport closes only once both have let go of it.
      const script = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'ignore', 'inherit'] }); process.stderr.write('helper ' + c.pid + '\\n'); setInterval(() => {}, 1000);`;
      const server = new StdioTransport({ command: process.execPath, args: ['-e', script], env: { ...process.env } as Record<string, string> }, oldWindow);
      const helper = new Promise<number>((resolve) => (server.onStderrLine = (line) => line.startsWith('helper ') && resolve(Number(line.slice(7)))));
      const closed = new Promise<void>((resolve) => (server.onclose = resolve));
      await server.start();
      assert.ok(server.pid);
      group = server.pid;
      const helperPid = await helper;
      assert.ok(!ended(helperPid), 'the helper runs');
      const recorded = JSON.parse(readFileSync(file, 'utf8')) as Array<{ pid: number; instance?: string }>;
      assert.equal(recorded[0]?.instance, readInstance(server.pid), 'bound to the process instance at spawn');

      const newWindow = new ProcessJournal(file);
      assert.deepEqual(newWindow.stopLeftovers(), [server.pid]);
      // The transport closes once the server and its helper both ended (they shared its stderr).
      await within(closed, 10_000, 'the server and its helper stopped');
      assert.equal(server.exit?.signal, 'SIGTERM');
      assert.ok(ended(helperPid), 'its helper was stopped with it');
      assert.deepEqual(newWindow.stopLeftovers(), [], 'nothing left');
    } finally {
      // Should the test fail: nothing of it outlives it.
      try {
        if (group) process.kill(-group, 'SIGKILL');
      } catch {
        // stopped, as it should be
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a reused pid running the same command (another start time), or an entry without one, is left alone', linuxOnly, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leftover-'));
    // An unrelated live process (another window's server, say) in a group of its own, whose pid
    // and command line an entry names.
    const script = 'process.stdin.on("data", (d) => process.stdout.write(d)); setInterval(() => {}, 1000);';
    const other = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    try {
      await new Promise<void>((resolve, reject) => other.once('spawn', resolve).once('error', reject));
      const pid = other.pid!;
      const instance = readInstance(pid);
      assert.ok(instance && /^[0-9a-f-]+\/\d+$/.test(instance), `a start time is read: ${instance}`);
      const file = join(dir, 'server-processes.json');
      const entry = { pid, owner: goneWindowPid(), cmdline: [process.execPath, '-e', script].join('\0') };
      const bootAndStart = instance.split('/');
      const logged: string[] = [];
      const stopLeftovers = (entries: object[]) => {
        writeFileSync(file, JSON.stringify(entries));
        return new ProcessJournal(file, { log: (m) => void logged.push(m) }).stopLeftovers();
      };

      // The same pid and command line, started at another time: the process the entry was written for ended long ago.
      assert.deepEqual(stopLeftovers([{ ...entry, instance: `${bootAndStart[0]}/${Number(bootAndStart[1]) - 1}` }]), []);
      await echoes(other);
      assert.match(logged.pop() ?? '', new RegExp(`^Process ${pid} .*was not stopped: the pid now belongs to another process \\(its start time differs\\)`));
      // Started in another boot.
      assert.deepEqual(stopLeftovers([{ ...entry, instance: `00000000-0000-0000-0000-000000000000/${bootAndStart[1]}` }]), []);
      await echoes(other);
      assert.match(logged.pop() ?? '', /its start time differs/);
      // An entry of an earlier release: no start time recorded.
      assert.deepEqual(stopLeftovers([entry]), []);
      await echoes(other);
      assert.match(logged.pop() ?? '', /its start time was not recorded/);

      // The same entry bound to this very process is stopped: what held the others back was the start time alone.
      const exited = new Promise<NodeJS.Signals | null>((resolve) => other.once('exit', (_code, signal) => resolve(signal)));
      assert.deepEqual(stopLeftovers([{ ...entry, instance }]), [pid]);
      assert.equal(await exited, 'SIGTERM');
      assert.deepEqual(logged, []);
    } finally {
      other.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
