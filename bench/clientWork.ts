/**
 * Section 8 (`rev2026`), the rows "client side alone": how a call's host CPU splits between the SDK,
 * the options the host gives every request and the project's own work, measured where it does not
 * move from run to run (clientWorkMain.ts, run here in a child `node --no-opt`).
 */
import { join } from 'node:path';
import { jsonOfChild } from './common.js';
import type { RowSink } from './rows2026.js';
import { fmtRatio, median } from './stats.js';

const MAIN_JS = join(__dirname, 'clientWorkMain.js');

type Figures = Record<'echo' | 'ask', Partial<Record<'bare' | 'options' | 'connection' | 'project' | 'raw', number[]>>>;

function runMain(count: number, warm: number, rounds: number): Promise<Figures> {
  return jsonOfChild<Figures>('clientWorkMain.js', ['--no-opt', MAIN_JS, String(count), String(warm), String(rounds)]);
}

const µs = (x: number) => `${x.toFixed(1)} µs`;

/** The rows: per tool, each side's median host CPU per call, and each over the bare client's (median of per-round ratios). */
export async function clientWorkRows(sink: RowSink, count: number, warm: number, rounds: number): Promise<void> {
  const figures = await runMain(count, warm, rounds);
  for (const tool of ['echo', 'ask'] as const) {
    const f = figures[tool];
    const bare = f.bare!;
    const over = (side: number[]) => median(side.map((x, i) => x / bare[i]!));
    const sides = (['options', 'connection', 'project', 'raw'] as const).filter((s) => f[s]);
    const label = { options: 'with the host\'s request options', connection: 'the project\'s connection, its client called with those options', project: 'the project (McpConnection + TaskTracker)', raw: 'no SDK Client: the bare client\'s own tools/call message sent again with a new id, its answer matched by id and checked with the SDK\'s CallToolResultSchema (the floor of the client side)' };
    const spread = (xs: number[]) => `${µs(Math.min(...xs))}–${µs(Math.max(...xs))}`;
    sink.rows.push({
      section: '8',
      what: `2026-07-28 [client side alone: the bench server's answers replayed in process a microtask after each request (clientWorkMain.ts), node --no-opt; ${rounds} rotating rounds of ${count} calls per side after ${warm}]: ${tool === 'echo' ? 'tools/call' : 'input_required round trip'}, host CPU per call. Sides: ${sides.map((s) => `${s} = ${label[s]}`).join('; ')}`,
      project: sides.map((s) => `${s} ${µs(median(f[s]!))}`).join('; ') + ` (project, rounds: ${spread(f.project!)})`,
      baseline: `bare SDK v2 client ${µs(median(bare))} (rounds: ${spread(bare)})`,
      ratio: sides.map((s) => `${s} ${fmtRatio(over(f[s]!))}`).join('; '),
      goal: '—',
      verdict: 'info',
    });
  }
}
