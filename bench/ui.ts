/**
 * Section 3 (`ui`) — the UI. Drives `rate` status changes per second for `seconds` through the ledger
 * (`updateTaskStatus`, working ⇄ input_required, over `tasks` tasks) with a listener that
 * re-reads every task (`TaskView.items()`, what the tree does on a change):
 * - `view`: the listener hangs on `TaskView.onDidChange` (coalesced: the project);
 * - `raw`: the listener hangs on the ledger's own `onDidChange` (every change: the baseline).
 */
import { TaskLedger } from '../src/core/receiver/ledger.js';
import { TaskTracker } from '../src/core/requestor/tracker.js';
import { TaskView } from '../src/core/view/taskView.js';
import { maxInWindow } from './stats.js';

export interface UiRun {
  /** Status changes made, and the ledger events they fired. */
  readonly changes: number;
  readonly ledgerEvents: number;
  /** Events the listener got (coalesced for `view`, raw for `raw`). */
  readonly events: number;
  /** Most listener events inside any 1-second window [t, t + 1 s). */
  readonly maxPerSecond: number;
  /** Most raw ledger events inside any 1-second window. */
  readonly ledgerMaxPerSecond: number;
  readonly seconds: number;
  /** CPU (user+system, ms) of the whole run: driver, ledger, view and listener. */
  readonly cpuMs: number;
}

export async function uiRun(mode: 'view' | 'raw', seconds = 3, rate = 1000, tasks = 50): Promise<UiRun> {
  const ledger = new TaskLedger({ limits: { operationsPerSecond: 100_000, operationsBurst: 100_000, maxLiveTasksPerServer: tasks } });
  const tracker = new TaskTracker({ connectionFor: () => undefined });
  const view = new TaskView(ledger, tracker);
  const scope = ledger.forServer('ui-bench', 'ui-bench');
  const ids: string[] = [];
  for (let i = 0; i < tasks; i++) {
    const t = await scope.createTask({ ttl: 3_600_000 }, i, { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } });
    ids.push(t.taskId);
  }
  const status = new Map(ids.map((id) => [id, 'working' as 'working' | 'input_required']));
  const ledgerTimes: number[] = [];
  const eventTimes: number[] = [];
  const subs = [ledger.onDidChange(() => ledgerTimes.push(performance.now()))];
  if (mode === 'view') {
    subs.push(
      view.onDidChange(() => {
        eventTimes.push(performance.now());
        view.items();
      }),
    );
  } else {
    subs.push(
      ledger.onDidChange(() => {
        eventTimes.push(performance.now());
        view.items();
      }),
    );
  }

  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const total = Math.round(seconds * rate);
  let done = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - t0) * rate) / 1000));
      for (; done < due; done++) {
        const id = ids[done % ids.length]!;
        const next = status.get(id) === 'working' ? 'input_required' : 'working';
        status.set(id, next);
        void scope.updateTaskStatus(id, next);
      }
      if (done >= total) resolve();
      else setTimeout(tick, 5);
    };
    tick();
  });
  // Let the trailing coalesced event arrive.
  await new Promise((r) => setTimeout(r, 250));
  const cpu = process.cpuUsage(c0);
  for (const s of subs) s.dispose();
  view.dispose();
  tracker.dispose();
  ledger.dispose();
  return {
    changes: done,
    ledgerEvents: ledgerTimes.length,
    events: eventTimes.length,
    maxPerSecond: maxInWindow(eventTimes, 1000),
    ledgerMaxPerSecond: maxInWindow(ledgerTimes, 1000),
    seconds,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}
