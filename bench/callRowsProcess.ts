/** Section 8's round-trip call rows, run in a process of their own (callRowsMain.ts says why). */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './common.js';
import type { RowSink } from './rows2026.js';

const MAIN_JS = join(__dirname, 'callRowsMain.js');

export function callRowsInOwnProcess(sink: RowSink, rounds: number, calls: number, warm: number, warmRounds: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // Its progress lines go on to this process's stderr as they come; its figures come on stdout at the end.
    const child = spawn(process.execPath, ['--expose-gc', MAIN_JS, String(rounds), String(calls), String(warm), String(warmRounds)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`callRowsMain.js exited ${code} (its error is above)`));
      try {
        const made = JSON.parse(out) as RowSink;
        sink.rows.push(...made.rows);
        sink.notes.push(...made.notes);
        resolve();
      } catch (e) {
        reject(new Error(`callRowsMain.js printed no rows (${String(e)}): ${out.slice(0, 200)}`));
      }
    });
  });
}
