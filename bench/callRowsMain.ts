/**
 * Section 8 (`rev2026`), the round-trip call rows (rows2026.ts `callRows`) in a process of their own
 * (bench.ts starts this with `node --expose-gc`; callRowsProcess.ts). In the whole bench's process the
 * project's call path — its stdio transport, the message reading, the call's owner — has run every
 * earlier section's work by section 8 (2025 servers, task-mode calls, 10,000-task surfaces) and V8 has
 * specialised and despecialised it on all of that, while the bare SDK v2 client's transport and request
 * code first run in section 8: the two sides did not start from the same place (a whole bench on
 * 2026-11-29: the project's stdio `tools/call` host CPU 351 µs against 262, 1.355×; the same rows after
 * section 1 alone 0.981×). Here both start from a process that has run nothing else.
 *
 * Prints one JSON line: the rows and the notes `callRows` made. Its progress goes to stderr.
 *
 * Usage: node --expose-gc callRowsMain.js <rounds> <calls per round> <warm-up calls> <warm-up rounds>
 */
import { callRows, type RowSink } from './rows2026.js';

async function main(): Promise<void> {
  const [rounds, calls, warm, warmRounds] = process.argv.slice(2).map(Number);
  if (![rounds, calls, warm, warmRounds].every((n) => Number.isInteger(n) && n! >= 0)) throw new Error('usage: callRowsMain.js <rounds> <calls> <warm> <warm rounds>');
  const sink: RowSink = { rows: [], notes: [] };
  await callRows(sink, rounds!, calls!, warm!, warmRounds!);
  process.stdout.write(`${JSON.stringify(sink)}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
