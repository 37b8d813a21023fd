/** Section 8's round-trip call rows, run in a process of their own (callRowsMain.ts says why). */
import { join } from 'node:path';
import { jsonOfChild } from './common.js';
import type { RowSink } from './rows2026.js';

const MAIN_JS = join(__dirname, 'callRowsMain.js');

export async function callRowsInOwnProcess(sink: RowSink, rounds: number, calls: number, warm: number, warmRounds: number): Promise<void> {
  // Its progress lines are shown as they come; its rows and notes come on its last line.
  const made = await jsonOfChild<RowSink>('callRowsMain.js', ['--expose-gc', MAIN_JS, String(rounds), String(calls), String(warm), String(warmRounds)], { forwardStderr: true });
  sink.rows.push(...made.rows);
  sink.notes.push(...made.notes);
}
