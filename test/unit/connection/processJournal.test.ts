/**
 * The journal of spawned server processes (connection/processJournal.ts): what a window that is
 * gone left running is stopped, group and all; a process that is not provably the one that was
 * started (another start time under its pid, none recorded, another program), or one of a window
 * still open, is left alone and said so.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { ProcessJournal } from '../../../src/core/connection/processJournal.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function journalFile(): string {
  const d = mkdtempSync(join(tmpdir(), 'journal-'));
  dirs.push(d);
  return join(d, 'nested', 'server-processes.json');
}

describe('ProcessJournal', () => {
  it('a later window stops the process groups an earlier one left, only when they are still the process started', () => {
    const file = journalFile();
    const alive = new Set([101, 102, 103, 104, 106]);
    const cmdlines = new Map([
      [101, 'node\0server.js\0'],
      [102, 'node\0other.js\0'], // pid reused by another program
      [104, 'python\0srv.py\0'],
      [106, 'node\0server.js\0'],
    ]);
    // Start times as read at spawn; 103's cannot be read (no /proc).
    const instances = new Map([
      [101, 'boot/1000'],
      [102, 'boot/1001'],
      [104, 'boot/1004'],
      [106, 'boot/1006'],
    ]);
    const signals: Array<[number, string]> = [];
    const logged: string[] = [];
    const deps = {
      alive: (p: number) => alive.has(p),
      cmdlineOf: (p: number) => cmdlines.get(p),
      instanceOf: (p: number) => instances.get(p),
      kill: (p: number, s: NodeJS.Signals) => void signals.push([p, s]),
      log: (m: string) => void logged.push(m),
    };
    const earlier = new ProcessJournal(file, { ...deps, self: 9001 });
    earlier.started(101, 'node', ['server.js']);
    earlier.started(102, 'node', ['server.js']);
    earlier.started(103, 'deno', ['srv.ts']); // no start time: cannot be checked
    earlier.started(105, 'gone', []); // not alive any more
    earlier.started(106, 'node', ['server.js']);
    const stillOpen = new ProcessJournal(file, { ...deps, self: 104 });
    alive.add(104);
    stillOpen.started(104, 'python', ['srv.py']);
    // 106 ended and its pid went to another run of the same command: same pid, same command line, a later start.
    instances.set(106, 'boot/2006');

    const later = new ProcessJournal(file, { ...deps, self: 9002 });
    assert.deepEqual(later.stopLeftovers(), [101]);
    assert.deepEqual(signals, [[process.platform === 'win32' ? 101 : -101, 'SIGTERM']]);
    assert.equal(logged.length, 3, logged.join('\n'));
    assert.match(logged.find((l) => l.startsWith('Process 106 '))!, /another process \(its start time differs\)/);
    assert.match(logged.find((l) => l.startsWith('Process 103 '))!, /start time was not recorded/);
    assert.match(logged.find((l) => l.startsWith('Process 102 '))!, /no longer runs the command that was started/);
    assert.deepEqual(later.stopLeftovers(), [], 'written off once stopped or left');
  });

  it('an entry of an earlier release (no start time) is left alone', () => {
    const file = journalFile();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify([{ pid: 201, owner: 9001, cmdline: 'node\0server.js' }]));
    const logged: string[] = [];
    const j = new ProcessJournal(file, { alive: (p) => p === 201, cmdlineOf: () => 'node\0server.js\0', instanceOf: () => 'boot/1', kill: () => assert.fail('not provably the process started'), self: 2, log: (m) => void logged.push(m) });
    assert.deepEqual(j.stopLeftovers(), []);
    assert.match(logged.join('\n'), /^Process 201 \(node\), left by a window that is gone, was not stopped: its start time was not recorded/);
  });

  it('an ended process is written off; a broken journal is read as empty', () => {
    const file = journalFile();
    const j = new ProcessJournal(file, { alive: () => true, cmdlineOf: () => 'x\0', instanceOf: () => 'boot/7', kill: () => assert.fail('nothing to stop'), self: 1 });
    j.started(7, 'x', []);
    j.ended(7);
    assert.deepEqual(new ProcessJournal(file, { alive: () => true, cmdlineOf: () => 'x\0', instanceOf: () => 'boot/7', kill: () => assert.fail('nothing'), self: 2 }).stopLeftovers(), []);
    writeFileSync(file, '{ not json');
    assert.deepEqual(new ProcessJournal(file, { self: 3 }).stopLeftovers(), []);
    assert.equal(readFileSync(file, 'utf8'), '[]', 'a file that is not a journal is written again, empty');
    writeFileSync(file, JSON.stringify([{ pid: 'x' }]));
    assert.deepEqual(new ProcessJournal(file, { self: 4 }).stopLeftovers(), []);
    assert.equal(readFileSync(file, 'utf8'), '[]', 'nor is a list of what are not entries');
  });

  it('a window with nothing to stop writes nothing: no journal is made, and an empty one is left as it is', () => {
    const file = journalFile();
    const quiet = () => new ProcessJournal(file, { alive: () => true, kill: () => assert.fail('nothing to stop'), self: 5 });
    assert.deepEqual(quiet().stopLeftovers(), []);
    assert.equal(existsSync(file), false, 'no journal made by a window that started nothing');
    mkdirSync(dirname(file), { recursive: true });
    // What every window after a workspace's first finds: read without the entries' check (its protocol part) and left.
    writeFileSync(file, '[]');
    const written = statSync(file, { bigint: true }).mtimeNs;
    assert.deepEqual(quiet().stopLeftovers(), []);
    assert.equal(statSync(file, { bigint: true }).mtimeNs, written, 'the empty journal is not written again');
  });
});
