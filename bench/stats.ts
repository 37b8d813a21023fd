/** Small statistics and formatting helpers for the benchmark. */
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';

/** The q-quantile (0..1) of `values` (nearest rank on a sorted copy). */
export function quantile(values: ArrayLike<number>, q: number): number {
  const n = values.length;
  if (n === 0) return NaN;
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  const rank = Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1));
  return sorted[rank]!;
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

export function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return values.length ? s / values.length : NaN;
}

/** Median over rounds of the per-round ratio project ÷ baseline (both measured side by side in that round). */
export function pairedRatio<T>(a: readonly T[], b: readonly T[], f: (x: T) => number): number {
  return median(a.map((x, i) => f(x) / f(b[i]!)));
}

/** The most `times` (sorted, ms) inside any window [t, t + windowMs). */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

export function verdict(ok: boolean): 'PASS' | 'FAIL' {
  return ok ? 'PASS' : 'FAIL';
}

/** Formats milliseconds with a sensible unit. */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

export function fmtBytes(b: number): string {
  if (!Number.isFinite(b)) return 'n/a';
  if (Math.abs(b) < 1024) return `${b.toFixed(0)} B`;
  if (Math.abs(b) < 1024 * 1024) return `${(b / 1024).toFixed(2)} KB`;
  return `${(b / 1024 / 1024).toFixed(2)} MB`;
}

export function fmtRatio(r: number): string {
  if (!Number.isFinite(r)) return '—';
  return r >= 100 ? `${r.toFixed(0)}×` : r >= 10 ? `${r.toFixed(1)}×` : `${r.toFixed(3)}×`;
}

/** One row of the results table. */
export interface Row {
  readonly section: string;
  readonly what: string;
  readonly project: string;
  readonly baseline: string;
  readonly ratio: string;
  readonly goal: string;
  /** PASS, FAIL, or `info` / `skip` for rows without a goal. */
  readonly verdict: 'PASS' | 'FAIL' | 'info' | 'skip';
}

const HEADERS = ['#', 'Measured', 'Project', 'Baseline (same run)', 'Ratio', 'Goal', 'Result'];

function cells(r: Row): string[] {
  return [r.section, r.what, r.project, r.baseline, r.ratio, r.goal, r.verdict];
}

/** A plain-text table for the terminal. */
export function textTable(rows: readonly Row[]): string {
  const all = [HEADERS, ...rows.map(cells)];
  const widths = HEADERS.map((_, i) => Math.max(...all.map((r) => [...r[i]!].length)));
  const line = (r: string[]) => r.map((c, i) => c + ' '.repeat(widths[i]! - [...c].length)).join(' | ');
  const sep = widths.map((w) => '-'.repeat(w)).join('-+-');
  return [line(HEADERS), sep, ...rows.map((r) => line(cells(r)))].join('\n');
}

/** A GitHub-flavoured markdown table. */
export function markdownTable(rows: readonly Row[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const out = [`| ${HEADERS.join(' | ')} |`, `|${HEADERS.map(() => '---').join('|')}|`];
  for (const r of rows) out.push(`| ${cells(r).map(esc).join(' | ')} |`);
  return out.join('\n');
}

/** Runs `a` and `b` alternately for `rounds` rounds (A,B then B,A, …), returning each side's results ({@link rotate} with two sides). */
export async function alternate<T>(rounds: number, a: () => Promise<T>, b: () => Promise<T>, onRound?: (round: number) => void): Promise<{ a: T[]; b: T[] }> {
  const [as, bs] = await rotate(rounds, [a, b], onRound);
  return { a: as!, b: bs! };
}

/** Runs every side once per round, each round starting one side further on (A,B,C then B,C,A, …): each side's results, in the order given. */
export async function rotate<T>(rounds: number, sides: ReadonlyArray<() => Promise<T>>, onRound?: (round: number) => void): Promise<T[][]> {
  const out: T[][] = sides.map(() => []);
  for (let r = 0; r < rounds; r++) {
    onRound?.(r);
    for (let k = 0; k < sides.length; k++) {
      const i = (r + k) % sides.length;
      out[i]!.push(await sides[i]!());
    }
  }
  return out;
}

export function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

/** Full garbage collection (needs `--expose-gc`), run twice so weak/finalizable garbage goes too. */
export async function fullGc(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run node with --expose-gc (npm run bench does)');
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * The GCs this process runs by itself from now on (the bench's forced ones left out), on the
 * performance.now() clock. Entries arrive after the fact: let a turn pass before reading them.
 */
export function gcLog(): { readonly entries: readonly { start: number; end: number }[]; stop(): void } {
  const entries: { start: number; end: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const flags = (e as { detail?: { flags?: number } }).detail?.flags ?? 0;
      if (!(flags & perfConstants.NODE_PERFORMANCE_GC_FLAGS_FORCED)) entries.push({ start: e.startTime, end: e.startTime + e.duration });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return { entries, stop: () => observer.disconnect() };
}
