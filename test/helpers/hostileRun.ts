/**
 * Runs one hostile-server attack (an {@link AttackSpec}) against a fresh {@link HostileEnv}
 * and checks what must hold for every attack; prints the reports as a markdown table.
 *
 * Common checks (every attack): the good server answered every ping during the attack and
 * answers after it; its tool task and its received task complete; no uncaught exception; no log
 * line longer than 10,000 characters; the heap does not keep more than 64 MB after the attack.
 */
import { performance } from 'node:perf_hooks';
import { describeState } from '../../src/core/connection/connection.js';
import { HostileEnv, WAIT_MS, gc, type EnvOptions, type TransportKind } from './hostileEnv.js';
import { textOf } from './host.js';

export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail?: string;
}

/** Branch that fixes what a failing check shows (the test is `todo` until it is merged). */
export type FixedOn = 'sec-receiver' | 'sec-requestor' | 'sec-display';

export interface AttackContext {
  readonly env: HostileEnv;
  /** Marks the moment the attack ended (time to recover counts from here). */
  end(): void;
  /** Anything the attack wants to hand to its verify step. */
  data: Record<string, unknown>;
}

export interface AttackSpec {
  readonly name: string;
  readonly what: string;
  readonly transports: readonly TransportKind[];
  readonly options?: EnvOptions;
  /** Set when the attack shows a defect that another branch, not merged yet, fixes. */
  readonly fixedOn?: FixedOn;
  /** Runs the attack; calls `ctx.end()` when it is over (or returns, which ends it too). */
  attack(ctx: AttackContext): Promise<void>;
  /** After recovery: the attack's outcome (one line) and its own checks. */
  verify(ctx: AttackContext): Promise<{ outcome: string; checks: Check[] }>;
}

export interface AttackReport {
  readonly attack: string;
  readonly transport: TransportKind;
  readonly outcome: string;
  /** From the end of the attack to the good server answering a ping. */
  readonly recoverMs?: number;
  /** Largest ping round trip to the good server during the attack. */
  readonly maxPingMs: number;
  readonly maxLoopDelayMs: number;
  readonly checks: readonly Check[];
  readonly fixedOn?: FixedOn;
}


export const check = (name: string, ok: boolean, detail?: unknown): Check => ({ name, ok, ...(ok || detail === undefined ? {} : { detail: typeof detail === 'string' ? detail : JSON.stringify(detail) }) });
export type Answer = { result?: Record<string, unknown>; error?: { code?: number; message?: string } };

export function stateText(env: HostileEnv): string {
  return describeState(env.hostile.state);
}


/** Runs one attack on a fresh host; never throws (a failure becomes a failed check). */
export async function runAttack(spec: AttackSpec, transport: TransportKind): Promise<AttackReport> {
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let env: HostileEnv | undefined;
  const checks: Check[] = [];
  let outcome = '';
  let recoverMs: number | undefined;
  let ping = { pings: 0, maxMs: 0, failures: [] as string[], maxLoopDelayMs: 0 };
  try {
    env = await HostileEnv.start(transport, spec.options);
    let endAt: number | undefined;
    const ctx: AttackContext = { env, data: {}, end: () => void (endAt ??= performance.now()) };
    const pinger = env.pingLoop();
    try {
      await spec.attack(ctx);
      ctx.end();
    } finally {
      ping = await pinger.stop();
    }
    await env.good.client.ping({ timeout: WAIT_MS });
    recoverMs = performance.now() - endAt!;
    const verified = await spec.verify(ctx);
    outcome = verified.outcome;
    checks.push(...verified.checks);
    const good = await env.finishGoodTasks();
    checks.push(
      check('the good server answered every ping during the attack', ping.failures.length === 0 && ping.pings > 0, ping),
      check("the good server's tool task completes", good.sent.phase === 'done' && good.sent.outcome?.kind === 'result' && /released/.test(textOf(good.sent.outcome.result)), good.sent),
      check("the good server's received task completes", good.receivedStatus === 'completed', good.receivedStatus),
      check('no log line longer than 10,000 characters', env.hostileLog.longest <= 10_000 && env.goodLog.longest <= 10_000, { longest: env.hostileLog.longest }),
    );
  } catch (e) {
    checks.push(check('the attack runs to the end', false, String((e as Error)?.stack ?? e).slice(0, 1500)));
    outcome ||= `error: ${String((e as Error)?.message ?? e).slice(0, 120)}`;
  } finally {
    const failures = env?.failures ?? [];
    env?.dispose();
    checks.push(check('no uncaught exception or unhandled rejection', failures.length === 0, failures));
  }
  gc();
  const grown = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  checks.push(check('the heap keeps less than 64 MB after the attack', grown < 64, `${grown.toFixed(1)} MB`));
  return { attack: spec.name, transport, outcome, recoverMs, maxPingMs: ping.maxMs, maxLoopDelayMs: ping.maxLoopDelayMs, checks, fixedOn: spec.fixedOn };
}

/** The markdown table of `npm run hostile`. */
export function reportTable(reports: readonly AttackReport[]): string {
  const rows = ['| attack | transport | outcome | time to recover | good ping max during attack | pass/fail |', '|---|---|---|---|---|---|'];
  for (const r of reports) {
    const failed = r.checks.filter((c) => !c.ok);
    const verdict = failed.length === 0 ? 'pass' : `${r.fixedOn ? `fail (fixed on ${r.fixedOn}): ` : 'FAIL: '}${failed.map((c) => c.name).join('; ')}`;
    const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
    rows.push(`| ${r.attack} | ${r.transport} | ${cell(r.outcome)} | ${r.recoverMs === undefined ? '—' : `${r.recoverMs.toFixed(1)} ms`} | ${r.maxPingMs.toFixed(1)} ms | ${cell(verdict)} |`);
  }
  return rows.join('\n');
}
