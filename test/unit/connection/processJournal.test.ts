/**
 * The journal of spawned server processes (connection/processJournal.ts): what a window that is
 * gone left running is stopped, group and all; a process that is no longer the program that was
 * started, or one of a window still open, is left alone.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  it('a later window stops the process groups an earlier one left, only when they are still the program started', () => {
    const file = journalFile();
    const alive = new Set([101, 102, 103, 104]);
    const cmdlines = new Map([
      [101, 'node\0server.js\0'],
      [102, 'node\0other.js\0'], // pid reused by another program
      [104, 'python\0srv.py\0'],
    ]);
    const signals: Array<[number, string]> = [];
    const deps = { alive: (p: number) => alive.has(p), cmdlineOf: (p: number) => cmdlines.get(p), kill: (p: number, s: NodeJS.Signals) => void signals.push([p, s]) };
    const earlier = new ProcessJournal(file, { ...deps, self: 9001 });
    earlier.started(101, 'node', ['server.js']);
    earlier.started(102, 'node', ['server.js']);
    earlier.started(103, 'deno', ['srv.ts']); // no /proc entry: cannot be checked
    earlier.started(105, 'gone', []); // not alive any more
    const stillOpen = new ProcessJournal(file, { ...deps, self: 104 });
    alive.add(104);
    stillOpen.started(104, 'python', ['srv.py']);

    const later = new ProcessJournal(file, { ...deps, self: 9002 });
    assert.deepEqual(later.stopLeftovers(), [101]);
    assert.deepEqual(signals, [[process.platform === 'win32' ? 101 : -101, 'SIGTERM']]);
    assert.deepEqual(later.stopLeftovers(), [], 'written off once stopped or left');
  });

  it('an ended process is written off; a broken journal is read as empty', () => {
    const file = journalFile();
    const j = new ProcessJournal(file, { alive: () => true, cmdlineOf: () => 'x\0', kill: () => assert.fail('nothing to stop'), self: 1 });
    j.started(7, 'x', []);
    j.ended(7);
    assert.deepEqual(new ProcessJournal(file, { alive: () => true, cmdlineOf: () => 'x\0', kill: () => assert.fail('nothing'), self: 2 }).stopLeftovers(), []);
    writeFileSync(file, '{ not json');
    assert.deepEqual(new ProcessJournal(file, { self: 3 }).stopLeftovers(), []);
  });
});
