/**
 * The requestor side (TaskTracker + McpConnection + the ledger on the same SDK Client) against a
 * REAL SDK server (`test/fixtures/requestorServer.ts`: McpServer + registerToolTask + task store
 * and message queue), over stdio and over Streamable HTTP on loopback. Every fixture server runs
 * in its own process (bundled once with esbuild, started with plain `node`); what the server
 * saw (tasks/get timestamps, tasks/result and tasks/cancel counts, tools/call records) is read
 * back through its `stats` tool. Waits are on events and state, never on sleeps.
 *
 * Run: `node --import tsx --test test/integration/requestor.test.ts`
 */
import { after, before, describe, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { RELATED_TASK_META_KEY, type CallToolResult, type ElicitRequest, type Tool } from '@modelcontextprotocol/client';
import { ErrorCode, ProtocolError as McpError } from '../../../src/core/base/errors.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { McpConnection, type ConnectionState, type RestartPolicy } from '../../../src/core/connection/connection.js';
import { statesOf } from '../../../src/core/connection/registry.js';
import type { SessionStore } from '../../../src/core/connection/httpSession.js';
import { TaskLedger, type LedgerLimits } from '../../../src/core/receiver/ledger.js';
import { TaskTracker, taskModeFor, type SentTaskSnapshot, type TrackerOptions, type TrackerStorage } from '../../../src/core/requestor/tracker.js';
import { MemoryLog, ROOT, ScriptedResponders, httpDefinition, stdioDefinition, startHttpFixture, textOf, waitFor } from '../../helpers/host.js';
import { MemorySessions } from '../../helpers/memorySessions.js';
import { MemoryStorage, reloadWindow, untilTask } from '../../helpers/reloadWindow.js';
import { checkLeaks } from '../../helpers/leaks.js';

type TransportKind = 'stdio' | 'http';
const TRANSPORTS: TransportKind[] = ['stdio', 'http'];
/** Failure guard for one wait; every wait normally ends in well under a second. */
const WAIT_MS = 20_000;
const TEST_TIMEOUT_MS = 60_000;

// ---- fixture process ------------------------------------------------------------------------

let bundleDir: string;
let bundle: string;

before(async () => {
  bundleDir = mkdtempSync(join(tmpdir(), 'requestor-fixture-'));
  bundle = join(bundleDir, 'requestorServer.cjs');
  await esbuild.build({
    entryPoints: [join(ROOT, 'test/fixtures/requestorServer.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    mainFields: ['module', 'main'],
    logLevel: 'warning',
  });
});

after(() => rmSync(bundleDir, { recursive: true, force: true }));

interface TaskStats {
  taskId: string;
  createdAt: number;
  gets: number[];
  maxConcurrentGets: number;
  results: number;
  cancels: number;
  progressSent: number;
  progressAfterCreate: boolean;
  elicitation?: { answer?: { action: string; content?: Record<string, unknown> }; error?: { code?: number; message?: string } };
  sampling?: { result?: { content: { type: string; text?: string } }; error?: { code?: number; message?: string } };
  clientTaskId?: string;
  notes: string[];
}
interface ServerStats {
  tasks: Record<string, TaskStats>;
  toolCalls: Array<{ name: string; task: boolean; at: number }>;
  lists: number;
}

/** An HTTP fixture server process; resolves with its URL once it listens. */
function startHttpServer(flags: string[]): Promise<{ url: string; child: ChildProcess }> {
  return startHttpFixture(bundle, flags, 'HTTP fixture', WAIT_MS);
}

interface FixtureOptions {
  flags?: string[];
  tracker?: Partial<TrackerOptions>;
  restart?: Partial<RestartPolicy>;
  ledgerLimits?: Partial<LedgerLimits>;
  /** The fixture's tracker follows the connection's state as the extension's does (`followServers`). */
  wire?: boolean;
  /** Reuse an HTTP server (a second client of the same server). */
  url?: string;
}

/** A host (ledger + responders + connection) on one fixture server, with a tracker. */
class Fixture {
  readonly ledger: TaskLedger;
  readonly responders = new ScriptedResponders();
  readonly log = new MemoryLog();
  readonly connection: McpConnection;
  readonly tracker: TaskTracker;
  tools = new Map<string, Tool>();
  private readonly _trackers: TaskTracker[] = [];
  private readonly _disposables: Array<() => void> = [];

  private constructor(
    readonly transport: TransportKind,
    def: ServerDefinition,
    readonly url: string | undefined,
    private readonly _child: ChildProcess | undefined,
    private readonly _options: FixtureOptions,
  ) {
    this.ledger = new TaskLedger({ limits: { pollIntervalMs: 30, ..._options.ledgerLimits } });
    this.connection = new McpConnection(def, {
      sides: hostSides(this.ledger, this.responders),
      log: this.log,
      variables: { env: process.env, workspaceFolder: ROOT },
      restart: { baseDelayMs: 50, ..._options.restart },
    });
    this.tracker = this.newTracker();
    // The wiring production uses (extension.ts, headless/run.ts): the tracker follows the
    // servers' state changes through `followServers`.
    if (_options.wire) {
      const states = statesOf([this.connection]);
      const following = this.tracker.followServers(states);
      this._disposables.push(() => (following.dispose(), states.dispose()));
    }
  }

  static async start(transport: TransportKind, options: FixtureOptions = {}): Promise<Fixture> {
    const flags = options.flags ?? [];
    let fx: Fixture;
    if (transport === 'stdio') {
      fx = new Fixture(transport, stdioDefinition('fx', process.execPath, [bundle, ...flags]), undefined, undefined, options);
    } else if (options.url) {
      fx = new Fixture(transport, httpDefinition('fx', options.url), options.url, undefined, options);
    } else {
      const { url, child } = await startHttpServer(flags);
      fx = new Fixture(transport, httpDefinition('fx', url), url, child, options);
    }
    await fx.connection.start();
    await fx.refreshTools();
    return fx;
  }

  async refreshTools(): Promise<void> {
    const { tools } = await this.connection.client.listTools();
    this.tools = new Map(tools.map((t) => [t.name, t]));
  }

  newTracker(extra: Partial<TrackerOptions> = {}): TaskTracker {
    const t = new TaskTracker({
      connectionFor: (id) => (id === this.connection.id ? this.connection : undefined),
      minPollIntervalMs: 10,
      defaultPollIntervalMs: 50,
      ...this._options.tracker,
      ...extra,
    });
    this._trackers.push(t);
    return t;
  }

  tool(name: string): Tool {
    const t = this.tools.get(name);
    assert.ok(t, `tool ${name} is listed`);
    return t;
  }

  /** Calls a tool through the tracker; resolves with the tracker key. */
  call(name: string, args: Record<string, unknown> = {}, tracker = this.tracker, options: { mode?: 'task' | 'plain' } = {}): Promise<string> {
    return tracker.callTool(this.connection, this.tool(name), args, options).then((key) => noteTask(tracker, key));
  }

  /** A plain tools/call straight through the SDK client (fixture control: stats, release, seed). */
  async plain(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    return (await this.connection.client.callTool({ name, arguments: args })) as CallToolResult;
  }

  async stats(): Promise<ServerStats> {
    return JSON.parse(textOf(await this.plain('stats'))) as ServerStats;
  }

  async taskStats(key: string): Promise<TaskStats> {
    const s = (await this.stats()).tasks[taskIdOf(key)];
    assert.ok(s, `the server knows task ${key}`);
    return s;
  }

  dispose(): void {
    for (const t of this._trackers) t.dispose();
    for (const d of this._disposables) d();
    this.connection.dispose();
    this.ledger.dispose();
    this._child?.kill('SIGKILL');
  }
}

/** Tracker key → the server's task id, noted as each call is named (a key is not made of that id: requestor/sentTask.ts). */
const serverTaskIds = new Map<string, string>();

/** Notes the server's id of the task `key` became (when it did), for {@link taskIdOf}; answers `key`. */
function noteTask(tracker: TaskTracker, key: string): string {
  const taskId = tracker.get(key)?.task?.taskId;
  if (taskId !== undefined) serverTaskIds.set(key, taskId);
  return key;
}

/** The server's id of the task a call made here became. */
function taskIdOf(key: string): string {
  const taskId = serverTaskIds.get(key);
  assert.ok(taskId !== undefined, `${key} became a task`);
  return taskId;
}

/** Waits until the sent task `key` satisfies `check`. */
function until(tracker: TaskTracker, key: string, check: (s: SentTaskSnapshot) => boolean, what: string, ms = WAIT_MS): Promise<SentTaskSnapshot> {
  return untilTask(tracker, key, check, what, ms);
}

const done = (s: SentTaskSnapshot) => s.phase === 'done';

function outcomeText(s: SentTaskSnapshot): string {
  assert.equal(s.outcome?.kind, 'result', `outcome is a result: ${JSON.stringify(s.outcome)}`);
  return textOf(s.outcome.kind === 'result' ? s.outcome.result : undefined);
}

/** Records every distinct (phase, status) a sent task goes through. */
function recordPhases(tracker: TaskTracker): { seen: string[]; dispose(): void } {
  const seen: string[] = [];
  const sub = tracker.onDidChange((c) => {
    const s = tracker.get(c.key);
    if (!s) return;
    const entry = `${s.phase}/${s.task?.status ?? '-'}`;
    if (seen[seen.length - 1] !== entry) seen.push(entry);
  });
  return { seen, dispose: () => sub.dispose() };
}

function gaps(ts: number[]): number[] {
  return ts.slice(1).map((t, i) => t - ts[i]!);
}

/**
 * R-CANCEL-1: cancels a task the server has completed but this host has not polled yet (its
 * pollInterval is 60 s): the -32602 answer's status is explained in the reason, and the result is
 * still fetched, once. Returns what the server saw of the task.
 */
async function cancelAfterTheServerCompleted(fx: Fixture) {
  const key = await fx.call('work', { untilReleased: true, pollInterval: 60_000 });
  await fx.plain('release', { taskId: taskIdOf(key) }); // completed on the server; not yet polled here
  assert.equal(fx.tracker.get(key)?.task?.status, 'working');
  const snap = await fx.tracker.cancel(key);
  assert.match(snap.reason ?? '', /could not cancel.*terminal status: completed/);
  const s = await until(fx.tracker, key, done, 'done');
  assert.equal(s.task?.status, 'completed');
  assert.equal(outcomeText(s), `released ${taskIdOf(key)}`);
  const st = await fx.taskStats(key);
  assert.equal(st.cancels, 1);
  assert.equal(st.results, 1);
  return st;
}

/** Runs `body` with a fresh fixture, always disposing it. */
async function withFixture(transport: TransportKind, options: FixtureOptions, body: (fx: Fixture) => Promise<void>): Promise<void> {
  const fx = await Fixture.start(transport, options);
  try {
    await body(fx);
  } finally {
    fx.dispose();
  }
}

// ---- tests ------------------------------------------------------------------------------------

for (const transport of TRANSPORTS) {
  describe(`requestor over ${transport}`, { timeout: TEST_TIMEOUT_MS * 4 }, () => {
    checkLeaks();

    test('R-CAP-4: required → task, optional → per optionalAsTask, forbidden and absent → plain', { timeout: TEST_TIMEOUT_MS }, () => {
      let optionalAsTask = true;
      return withFixture(transport, { tracker: { optionalAsTask: () => optionalAsTask } }, async (fx) => {
        assert.equal(fx.tool('work').execution?.taskSupport, 'required');
        assert.equal(fx.tool('opt_echo').execution?.taskSupport, 'optional');
        assert.equal(fx.tool('forbidden_echo').execution?.taskSupport, 'forbidden');
        assert.equal(fx.tool('absent_echo').execution, undefined);

        const cases: Array<{ tool: string; args: Record<string, unknown>; optional: boolean; mode: 'task' | 'plain'; text: RegExp }> = [
          { tool: 'work', args: { ms: 10, pollInterval: 20 }, optional: true, mode: 'task', text: /^work done/ },
          { tool: 'work', args: { ms: 10, pollInterval: 20 }, optional: false, mode: 'task', text: /^work done/ },
          { tool: 'opt_echo', args: { text: 'a' }, optional: true, mode: 'task', text: /^echo: a$/ },
          { tool: 'opt_echo', args: { text: 'b' }, optional: false, mode: 'plain', text: /^echo: b$/ },
          { tool: 'forbidden_echo', args: { text: 'c' }, optional: true, mode: 'plain', text: /^echo: c$/ },
          { tool: 'absent_echo', args: { text: 'd' }, optional: true, mode: 'plain', text: /^echo: d$/ },
        ];
        for (const c of cases) {
          optionalAsTask = c.optional;
          const before = (await fx.stats()).toolCalls.length;
          const key = await fx.call(c.tool, c.args);
          const s = await until(fx.tracker, key, done, `${c.tool} done`);
          assert.equal(s.mode, c.mode, `${c.tool} (optionalAsTask=${c.optional}) goes out as ${c.mode}`);
          assert.match(outcomeText(s), c.text);
          const calls = (await fx.stats()).toolCalls.slice(before).filter((x) => x.name === c.tool);
          assert.deepEqual(
            calls.map((x) => x.task),
            [c.mode === 'task'],
            `the server saw one tools/call of ${c.tool} ${c.mode === 'task' ? 'with' : 'without'} params.task`,
          );
        }
      });
    });

    test('R-CAP-3: a server without the tasks capability gets a plain call, even for an optional tool', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, { flags: ['--no-tasks'] }, async (fx) => {
        assert.equal(fx.connection.serverCapabilities?.tasks, undefined);
        const echo = fx.tool('echo');
        assert.equal(echo.execution?.taskSupport, 'optional', 'the tool itself claims optional task support');
        assert.equal(taskModeFor(false, echo, true), 'plain');

        const key = await fx.call('echo', { text: 'hi' });
        const s = await until(fx.tracker, key, done, 'plain echo done');
        assert.equal(s.mode, 'plain');
        assert.equal(outcomeText(s), 'echo: hi');
        assert.deepEqual(
          (await fx.stats()).toolCalls.filter((c) => c.name === 'echo').map((c) => c.task),
          [false],
        );

        // Forcing a task on such a server is refused locally; nothing is sent.
        await assert.rejects(fx.call('echo', { text: 'x' }, fx.tracker, { mode: 'task' }), (e: unknown) => {
          assert.ok(e instanceof McpError);
          assert.equal(e.code, ErrorCode.InvalidRequest);
          assert.match(e.message, /R-CAP-3/);
          return true;
        });
        assert.equal((await fx.stats()).toolCalls.filter((c) => c.name === 'echo').length, 1);
      }),
    );

    test('R-GET-1: polls tasks/get at the latest pollInterval the server gave', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        // CreateTaskResult says 150 ms; the 1st..4th tasks/get answers say 2000, 30, 2000, 30; the 5th completes.
        // The long/short contrast is wide so that a loaded machine cannot blur it.
        // Each gap is measured on the server: answer latency + the interval + request latency, so a
        // gap is never below the interval the tracker honoured; the upper bounds leave wide room
        // for a loaded machine and only rule out "still using the previous, longer interval".
        const key = await fx.call('work', { pollInterval: 150, pollIntervals: [2000, 30, 2000, 30], afterGets: 5 });
        const s = await until(fx.tracker, key, done, 'done');
        assert.equal(s.task?.status, 'completed');
        const st = await fx.taskStats(key);
        assert.equal(st.gets.length, 5, 'exactly five tasks/get: polling stops at the terminal answer');
        assert.equal(st.maxConcurrentGets, 1);
        assert.equal(s.polls, 5);
        const [g12, g23, g34, g45] = gaps(st.gets) as [number, number, number, number];
        const first = st.gets[0]! - st.createdAt;
        assert.ok(first >= 145, `first poll waits the CreateTaskResult's 150 ms, not the 50 ms default (${first})`);
        assert.ok(g12 >= 1995, `after an answer with pollInterval 2000 the next poll waits ≥ 2000 ms (${g12})`);
        assert.ok(g23 < 1500, `after an answer with pollInterval 30 it polls again soon, not at the old 2000 (${g23})`);
        assert.ok(g34 >= 1995, `then 2000 (${g34})`);
        assert.ok(g45 < 1500, `then 30 again, not the old 2000 (${g45})`);
        assert.equal(st.results, 1, 'tasks/result fetched exactly once');
        assert.equal(s.resultFetches, 1);
        assert.match(outcomeText(s), /^work done/);
      }),
    );

    test('R-GET-1: a pollInterval below minPollIntervalMs is raised to it', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, { tracker: { minPollIntervalMs: 100 } }, async (fx) => {
        const key = await fx.call('work', { pollInterval: 1, afterGets: 4 });
        await until(fx.tracker, key, done, 'done');
        const st = await fx.taskStats(key);
        assert.equal(st.gets.length, 4);
        for (const g of gaps(st.gets)) assert.ok(g >= 90, `no poll flood: gap ${g} ms ≥ 100 ms floor`);
      }),
    );

    test('R-NOTIFY-2: a status notification is used as an extra update (completion seen before the next poll)', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        // pollInterval 60 s: only notifications/tasks/status can tell the tracker in time.
        const key = await fx.call('work', { pollInterval: 60_000, ms: 50, notifyFinal: true });
        const s = await until(fx.tracker, key, done, 'done through the status notification');
        assert.equal(s.task?.status, 'completed');
        assert.match(outcomeText(s), /^work done/);
        const st = await fx.taskStats(key);
        assert.equal(st.gets.length, 0, 'no tasks/get was due yet');
        assert.equal(st.results, 1);
      }),
    );

    test('R-NOTIFY-2: status notifications neither replace nor postpone polling', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        // A notification every 15 ms, polls due every 100 ms, each tasks/get answered after 150 ms (so
        // notifications arrive while a poll is in flight); the task only completes at the 3rd tasks/get.
        const messages = new Set<string>();
        const sub = fx.tracker.onDidChange((c) => {
          const m = fx.tracker.get(c.key)?.task?.statusMessage;
          if (m) messages.add(m);
        });
        try {
          const key = await fx.call('work', { pollInterval: 100, notifyEveryMs: 15, afterGets: 3, getDelayMs: 150 });
          const s = await until(fx.tracker, key, done, 'done (needs three polls)');
          assert.equal(s.task?.status, 'completed');
          const st = await fx.taskStats(key);
          assert.equal(st.gets.length, 3);
          assert.equal(st.maxConcurrentGets, 1, 'one tasks/get at a time: a notification during a poll does not start another');
          for (const g of gaps(st.gets)) assert.ok(g >= 250, `polling kept its rhythm: answer (150 ms) + pollInterval (100 ms) (gap ${g})`);
          assert.ok([...messages].some((m) => /^tick \d+$/.test(m)), `status updates were seen: ${[...messages].join(', ')}`);
        } finally {
          sub.dispose();
        }
      }),
    );

    test('R-PROGRESS-1: progress notifications keep arriving after the CreateTaskResult', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const progressKeys = new Set<string>();
        const sub = fx.tracker.onDidChange((c) => {
          if (fx.tracker.get(c.key)?.progress) progressKeys.add(c.key);
        });
        try {
          const key = await fx.call('work', { pollInterval: 40, progressSteps: 3 });
          const s = await until(fx.tracker, key, (x) => done(x) && x.progress?.message === 'step 3/3', 'done with all progress');
          assert.deepEqual(s.progress, { progress: 3, total: 3, message: 'step 3/3' });
          const st = await fx.taskStats(key);
          assert.equal(st.progressSent, 3);
          assert.ok(st.progressAfterCreate, 'the server sent progress only after the requestor polled the task');
          assert.deepEqual([...progressKeys], [key], 'progress was only ever attached to the created task');
        } finally {
          sub.dispose();
        }
      }),
    );

    test('R-RESULT-1: a completed task’s tasks/result is fetched exactly once', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const key = await fx.call('work', { pollInterval: 30, afterGets: 2 });
        const s = await until(fx.tracker, key, done, 'done');
        assert.equal(s.task?.status, 'completed');
        assert.equal(outcomeText(s), `work done (${taskIdOf(key)})`);
        assert.equal(s.resultFetches, 1);
        assert.equal((await fx.taskStats(key)).results, 1);
        // Nothing fetches it again later (the record is detached): a few more round trips, same count.
        await fx.tracker.onServerRunning(fx.connection);
        const st = await fx.taskStats(key);
        assert.equal(st.results, 1);
        assert.equal(st.gets.length, 2);
      }),
    );

    test('R-RESULT-1 / R-LIFE-3: a failed task’s tasks/result is fetched exactly once and its isError result kept', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const key = await fx.call('work', { pollInterval: 30, afterGets: 2, fail: true });
        const s = await until(fx.tracker, key, done, 'done');
        assert.equal(s.task?.status, 'failed');
        assert.match(s.task?.statusMessage ?? '', /Failed/);
        assert.equal(s.outcome?.kind, 'result');
        assert.equal((s.outcome as unknown as { result: CallToolResult }).result.isError, true);
        assert.match(outcomeText(s), /work failed on purpose/);
        assert.equal(s.resultFetches, 1);
        assert.equal((await fx.taskStats(key)).results, 1);
      }),
    );

    test('R-RESULT-1: a failed task whose tasks/result is a JSON-RPC error keeps that error as the outcome', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const key = await fx.call('work', { pollInterval: 30, afterGets: 1, rpcError: true });
        const s = await until(fx.tracker, key, done, 'done');
        assert.equal(s.task?.status, 'failed');
        assert.equal(s.outcome?.kind, 'error');
        const o = s.outcome as { code: number; message: string; data?: unknown };
        assert.equal(o.code, -32050);
        assert.match(o.message, /backend exploded/);
        assert.deepEqual(o.data, { retryable: false });
        assert.equal(s.resultFetches, 1);
        assert.equal((await fx.taskStats(key)).results, 1);
      }),
    );

    test('R-RESULT-4: input_required → tasks/result at once; the elicitation carries related-task metadata, is answered, and polling continues', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const elicitations: ElicitRequest['params'][] = [];
        fx.responders.elicitImpl = async (p) => {
          elicitations.push(p);
          return { action: 'accept', content: { ok: true } };
        };
        const phases = recordPhases(fx.tracker);
        try {
          // The server completes only after two more tasks/get once the answer arrived, i.e. while
          // our tasks/result call is still outstanding (R-GET-1).
          const key = await fx.call('confirm', { pollInterval: 40, getsAfterAnswer: 2 });
          const s = await until(fx.tracker, key, done, 'done');
          const taskId = taskIdOf(key);
          assert.ok(phases.seen.includes('tracking/input_required'), `input_required was seen: ${phases.seen.join(' → ')}`);
          assert.equal(s.task?.status, 'completed');
          assert.match(outcomeText(s), /"ok":true/);

          assert.equal(elicitations.length, 1);
          assert.deepEqual(elicitations[0]!._meta?.[RELATED_TASK_META_KEY], { taskId }, 'R-META-1 on the elicitation');
          const call = fx.responders.calls.find((c) => c.kind === 'elicitation')!;
          assert.equal(call.ctx.relatedTaskId, taskId);
          assert.equal(call.ctx.taskId, undefined, 'a plain (not task-augmented) elicitation');
          assert.equal(fx.ledger.snapshot().length, 0, 'nothing went into the receiver ledger');

          const st = await fx.taskStats(key);
          // R-META-1: the answer belongs to the task too, and says so.
          assert.deepEqual(st.elicitation, { answer: { _meta: { [RELATED_TASK_META_KEY]: { taskId } }, action: 'accept', content: { ok: true } } }, 'the server got the answer');
          assert.equal(st.results, 1, 'one tasks/result call: made on input_required, answered at completion');
          assert.equal(s.resultFetches, 1);
        } finally {
          phases.dispose();
        }
      }),
    );

    test('both roles on one connection: a related-task elicitation on the tasks/result stream is answered, not swallowed by the host’s own task store; a task-augmented sampling request lands in the ledger', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        fx.responders.elicitImpl = async () => ({ action: 'accept', content: { ok: true } });
        const key = await fx.call('both_roles', { pollInterval: 40 });
        const s = await until(fx.tracker, key, done, 'done');
        const taskId = taskIdOf(key);
        const st = await fx.taskStats(key);
        const answer = { _meta: { [RELATED_TASK_META_KEY]: { taskId } }, action: 'accept', content: { ok: true } }; // R-META-1
        assert.deepEqual(st.elicitation, { answer }, `elicitation answered (not "Task not found"): ${JSON.stringify(st.elicitation)}`);
        assert.equal(st.sampling?.error, undefined, `sampling worked: ${JSON.stringify(st.sampling)}`);
        assert.equal(s.task?.status, 'completed');
        assert.equal(outcomeText(s), `confirmed: ${JSON.stringify({ answer })}; sampled: echo: summarise the deployment`);

        const elicit = fx.responders.calls.filter((c) => c.kind === 'elicitation');
        assert.equal(elicit.length, 1);
        assert.equal(elicit[0]!.ctx.relatedTaskId, taskId);
        assert.equal(elicit[0]!.ctx.taskId, undefined);
        const sample = fx.responders.calls.filter((c) => c.kind === 'sampling');
        assert.equal(sample.length, 1);
        assert.equal(sample[0]!.ctx.relatedTaskId, taskId);
        assert.ok(sample[0]!.ctx.taskId, 'the sampling request became a receiver task');

        const received = fx.ledger.snapshot();
        assert.equal(received.length, 1, 'exactly one receiver task: the sampling one (the elicitation was not stored)');
        assert.equal(received[0]!.task.taskId, st.clientTaskId);
        assert.equal(received[0]!.task.taskId, sample[0]!.ctx.taskId);
        assert.equal(received[0]!.task.status, 'completed');
        assert.equal(st.results, 1);
      }),
    );

    test('cancel: tasks/cancel reaches the server and ends the task at once; cancelling it again is explained, not sent', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        // pollInterval 60 s: the cancel answer alone must finish the local record (R-CANCEL-2).
        const key = await fx.call('work', { untilReleased: true, pollInterval: 60_000 });
        const snap = await fx.tracker.cancel(key);
        assert.equal(snap.task?.status, 'cancelled');
        assert.equal(snap.phase, 'done', 'the cancelled Task in the answer ends tracking');
        assert.equal(fx.tracker.activeCount, 0);
        let st = await fx.taskStats(key);
        assert.equal(st.cancels, 1);
        assert.equal(st.results, 0, 'a cancelled task has no payload to fetch');

        const again = await fx.tracker.cancel(key);
        assert.equal(again.phase, 'done');
        assert.match(again.reason ?? '', /Already cancelled/);
        st = await fx.taskStats(key);
        assert.equal(st.cancels, 1, 'no second tasks/cancel for a task known to be terminal');
      }),
    );

    test('cancel while input_required: the outstanding tasks/result is abandoned and the task ends cancelled, without an error outcome', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        let asked!: () => void;
        const askedP = new Promise<void>((r) => (asked = r));
        // The user never answers; the prompt goes away when its request is aborted.
        fx.responders.elicitImpl = (_p, ctx) =>
          new Promise((_resolve, reject) => {
            asked();
            ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          });
        const key = await fx.call('confirm', { pollInterval: 40 });
        await askedP;
        assert.equal(fx.tracker.get(key)?.task?.status, 'input_required');
        const snap = await fx.tracker.cancel(key);
        assert.equal(snap.phase, 'done');
        assert.equal(snap.task?.status, 'cancelled');
        assert.equal(snap.outcome, undefined, 'a cancelled task has no payload (not the error of the abandoned tasks/result)');
        const st = await fx.taskStats(key);
        assert.equal(st.cancels, 1);
        assert.equal(st.results, 1, 'the one tasks/result made on input_required');
        // Nothing arrives later to overwrite it.
        await fx.stats();
        assert.equal(fx.tracker.get(key)?.outcome, undefined);
        assert.equal(fx.tracker.get(key)?.task?.status, 'cancelled');
      }),
    );

    test('R-CANCEL-1: cancelling a task the server already finished gets -32602, explained in the reason; the result is still fetched', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        await cancelAfterTheServerCompleted(fx);
      }),
    );

    test('persistence: a second tracker on the same storage resumes a running task and gets its result', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const storage = new MemoryStorage();
        const a = fx.newTracker({ storage });
        const key = await fx.call('work', { untilReleased: true, pollInterval: 40 }, a);
        await until(a, key, (s) => s.polls >= 1, 'polled once');
        a.dispose(); // "reload": saves and stops

        const b = fx.newTracker({ storage });
        const paused = b.get(key);
        assert.equal(paused?.phase, 'paused');
        assert.match(paused?.reason ?? '', /reload/);
        assert.equal(paused?.toolName, 'work');
        assert.equal(paused?.origin, 'local');

        await b.onServerRunning(fx.connection);
        assert.equal(b.get(key)?.phase, 'tracking');
        await fx.plain('release', { taskId: taskIdOf(key) });
        const s = await until(b, key, done, 'done after resuming');
        assert.equal(outcomeText(s), `released ${taskIdOf(key)}`);
        assert.equal(s.resultFetches, 1);
        assert.equal((await fx.taskStats(key)).results, 1);
        assert.equal(b.snapshot().length, 1, 'its own task was not re-added from tasks/list');
      }),
    );

    test('persistence: a task the server forgot (server restarted) ends as lost with the reason (not "expired")', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const storage = new MemoryStorage();
        const a = fx.newTracker({ storage });
        const key = await fx.call('work', { untilReleased: true, pollInterval: 40 }, a);
        a.dispose();
        // stdio: a new server process; HTTP: a new session, whose tasks are bound to it.
        await fx.connection.restart();
        const b = fx.newTracker({ storage });
        await b.onServerRunning(fx.connection);
        const s = await until(b, key, (x) => x.phase === 'error' || x.phase === 'expired', 'lost');
        assert.equal(s.phase, 'error');
        assert.match(s.reason ?? '', /^Lost: .* (runs as a new process|is in a new session) \(it was stopped and started again\)/);
        assert.match(s.reason ?? '', /not found/i);
        assert.doesNotMatch(s.reason ?? '', /MCP error/);
        assert.equal(s.outcome, undefined);
      }),
    );

    test('tasks/list merge (R-LIST-1): tasks created elsewhere show up as listed, across pages, and once opened are tracked to the end', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const own = await fx.call('work', { untilReleased: true, pollInterval: 40 });
        const ids = JSON.parse(textOf(await fx.plain('seed_tasks', { count: 12 }))) as string[];
        const added = await fx.tracker.mergeServerList(fx.connection);
        assert.equal(added, 12, 'every seeded task, over both pages (page size 10)');
        assert.ok((await fx.stats()).lists >= 2, 'tasks/list followed nextCursor');
        assert.equal(fx.tracker.get(own)?.origin, 'local', 'our own task is not duplicated');
        assert.equal(fx.tracker.snapshot().length, 13);
        for (const id of ids) {
          const s = fx.tracker.get(`${fx.connection.id}/${id}`);
          assert.equal(s?.origin, 'listed');
          assert.equal(s?.mode, 'task');
          assert.equal((await fx.stats()).tasks[id]?.gets.length ?? 0, 0, 'not polled before it is opened');
          // The user opens it (its row, Retrieve Result): from now on it is followed.
          fx.tracker.follow(`${fx.connection.id}/${id}`);
        }
        for (const [i, id] of ids.slice(0, -1).entries()) {
          // Listed as finished, it is done from the start; opening it fetches its result, which arrives a moment later.
          const s = await until(fx.tracker, `${fx.connection.id}/${id}`, (x) => done(x) && x.outcome !== undefined, 'listed task done with its result');
          assert.equal(outcomeText(s), `seeded ${i}`);
        }
        const last = `${fx.connection.id}/${ids.at(-1)}`;
        assert.equal(fx.tracker.get(last)?.phase, 'tracking');
        await fx.plain('release', { taskId: ids.at(-1)! });
        const s = await until(fx.tracker, last, done, 'last listed task done');
        assert.equal(outcomeText(s), `released ${ids.at(-1)}`);
        assert.equal((await fx.stats()).tasks[ids.at(-1)!]!.results, 1);
        await fx.plain('release', { taskId: taskIdOf(own) });
        await until(fx.tracker, own, done, 'own task done');
      }),
    );

    test('an invalid CreateTaskResult ends the call in phase error, with the reason', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const key = await fx.call('bad_create');
        const s = fx.tracker.get(key)!;
        assert.equal(s.phase, 'error');
        assert.equal(s.mode, 'task');
        assert.match(s.reason ?? '', /invalid CreateTaskResult/);
        assert.equal(s.task, undefined);
        assert.deepEqual(
          (await fx.stats()).toolCalls.filter((c) => c.name === 'bad_create').map((c) => c.task),
          [true],
        );
      }),
    );

    test('tasks/get answering garbage ends tracking in phase error after maxPollFailures', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const key = await fx.call('work', { untilReleased: true, pollInterval: 20, getAnswers: 'garbage' });
        const s = await until(fx.tracker, key, (x) => x.phase === 'error', 'error');
        assert.match(s.reason ?? '', /tasks\/get failed 3 times in a row; last: invalid answer/);
        assert.equal(s.polls, 3);
        assert.equal((await fx.taskStats(key)).gets.length, 3);
        assert.equal(s.task?.status, 'working', 'the last good status is kept');
      }),
    );

    test('tasks/get answering for a different task ends tracking in phase error', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const key = await fx.call('work', { untilReleased: true, pollInterval: 20, getAnswers: 'other-task' });
        const s = await until(fx.tracker, key, (x) => x.phase === 'error', 'error');
        assert.match(s.reason ?? '', /different task \(not-/);
        assert.equal((await fx.taskStats(key)).gets.length, 1);
      }),
    );

    test('a transient tasks/get error does not end tracking', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const key = await fx.call('work', { pollInterval: 20, afterGets: 3, getAnswers: 'flaky' });
        const s = await until(fx.tracker, key, done, 'done');
        assert.equal(s.task?.status, 'completed');
        assert.equal((await fx.taskStats(key)).gets.length, 3);
      }),
    );

    test('a task that never ends stops being tracked once it outlives its ttl (expired, with the reason)', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        let expiredAt = 0;
        const sub = fx.tracker.onDidChange((c) => {
          if (!expiredAt && fx.tracker.get(c.key)?.phase === 'expired') expiredAt = Date.now();
        });
        const key = await fx.call('work', { pollInterval: 30, immortalTtl: 250 });
        const s = await until(fx.tracker, key, (x) => x.phase === 'expired', 'expired');
        sub.dispose();
        assert.match(s.reason ?? '', /outlived its ttl \(250 ms\).*last status 'working'/);
        assert.equal(s.task?.status, 'working');
        const st = await fx.taskStats(key);
        assert.equal(st.results, 0);
        const polls = st.gets.length;
        assert.ok(polls >= 2, `it was polled until then (${polls})`);
        const age = expiredAt - Date.parse(s.task!.createdAt);
        assert.ok(age >= 250, `not dropped before its ttl (dropped at ${age} ms)`);
      }),
    );
  });
}

// Transport-specific behaviour.

test('server dying mid-task (stdio): the task pauses with the reason, and once the restarted server does not know it, it is lost', { timeout: TEST_TIMEOUT_MS }, () =>
  withFixture('stdio', { wire: true }, async (fx) => {
    const phases = recordPhases(fx.tracker);
    try {
      const key = await fx.call('work', { untilReleased: true, pollInterval: 30, dieAfterGets: 2 });
      const paused = await until(fx.tracker, key, (x) => x.phase === 'paused', 'paused');
      assert.match(paused.reason ?? '', /disconnected|error|exited/);
      const s = await until(fx.tracker, key, (x) => x.phase === 'error' || x.phase === 'expired', 'lost after the restart');
      assert.equal(s.phase, 'error');
      assert.match(s.reason ?? '', /runs as a new process \(the old one ended: exit code \d+\), which does not know the tasks of the old one/);
      assert.ok(phases.seen.indexOf('paused/working') < phases.seen.indexOf('error/working'), phases.seen.join(' → '));
      assert.equal(fx.connection.state.kind, 'running', 'the connection restarted');
    } finally {
      phases.dispose();
    }
  }),
);

test('server dying mid-task (HTTP): the connection notices, the task pauses with the reason (and would resume on reconnect)', { timeout: TEST_TIMEOUT_MS }, () =>
  withFixture('http', { wire: true }, async (fx) => {
    const key = await fx.call('work', { untilReleased: true, pollInterval: 30, dieAfterGets: 2 });
    const s = await until(fx.tracker, key, (x) => x.phase === 'error' || x.phase === 'paused' || x.phase === 'expired', 'ended');
    assert.equal(s.phase, 'paused', `${s.phase}: ${s.reason}`);
    assert.match(s.reason ?? '', /"fx"/);
    assert.equal(s.task?.status, 'working');
    assert.equal(s.outcome, undefined, 'a lost connection is not an error outcome');
  }),
);

/** One "window": a connection to `def` with the kept sessions, and a tracker over the stored tasks. */
function windowOf(def: ServerDefinition, sessions: SessionStore, storage: TrackerStorage) {
  return reloadWindow(def, { sessions, storage, defaultPollIntervalMs: 50 });
}

test('a window reload keeps an HTTP task of a server that keeps tasks per session: the session is resumed and the result arrives', { timeout: TEST_TIMEOUT_MS }, async () => {
  const { url, child } = await startHttpServer([]);
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = httpDefinition('fx', url);
  const first = windowOf(def, sessions, storage);
  let second: ReturnType<typeof windowOf> | undefined;
  try {
    await first.connection.start();
    assert.equal(first.connection.continuity.kind, 'first');
    const work = (await first.connection.client.listTools()).tools.find((t) => t.name === 'work')!;
    const key = noteTask(first.tracker, await first.tracker.callTool(first.connection, work, { untilReleased: true, pollInterval: 40 }));
    await until(first.tracker, key, (x) => x.phase === 'tracking', 'tracking');
    assert.equal(sessions.data.size, 1, 'the session is kept');
    first.close();

    second = windowOf(def, sessions, storage);
    await second.connection.start();
    assert.equal(second.connection.continuity.kind, 'resumed');
    assert.ok((await second.connection.client.listTools()).tools.some((t) => t.name === 'work'), 'the resumed client knows the server');
    await second.tracker.onServerRunning(second.connection);
    await second.connection.client.callTool({ name: 'release', arguments: { taskId: taskIdOf(key) } });
    const s = await until(second.tracker, key, done, 'the task made before the reload');
    assert.equal(outcomeText(s), `released ${taskIdOf(key)}`);
  } finally {
    second?.close();
    first.close();
    child.kill();
  }
});

test('a kept session the server no longer has (it restarted) gives a new session, and its tasks are lost for that reason', { timeout: TEST_TIMEOUT_MS }, async () => {
  const { url, child } = await startHttpServer([]);
  let restarted: ChildProcess | undefined;
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = httpDefinition('fx', url);
  const first = windowOf(def, sessions, storage);
  let second: ReturnType<typeof windowOf> | undefined;
  try {
    await first.connection.start();
    const work = (await first.connection.client.listTools()).tools.find((t) => t.name === 'work')!;
    const key = await first.tracker.callTool(first.connection, work, { untilReleased: true, pollInterval: 40 });
    await until(first.tracker, key, (x) => x.phase === 'tracking', 'tracking');
    first.close();
    child.kill();
    await new Promise((r) => child.once('exit', r));
    restarted = (await startHttpServer(['--port', new URL(url).port])).child;

    second = windowOf(def, sessions, storage);
    await second.connection.start();
    assert.equal(second.connection.continuity.kind, 'new-session');
    assert.equal(second.connection.continuity.detail, 'it no longer had the session of before, as after a restart: HTTP 404: Session not found');
    await second.tracker.onServerRunning(second.connection);
    const s = await until(second.tracker, key, (x) => x.phase === 'error' || x.phase === 'expired', 'lost');
    assert.equal(s.phase, 'error');
    assert.match(s.reason ?? '', /^Lost: "fx" is in a new session \(it no longer had the session of before/);
  } finally {
    second?.close();
    first.close();
    child.kill();
    restarted?.kill();
  }
});

test('a server that is down when its kept session is offered again is tried again (never stuck starting), and once back gives a new session', { timeout: TEST_TIMEOUT_MS }, async () => {
  const { url, child } = await startHttpServer([]);
  let restarted: ChildProcess | undefined;
  const sessions = new MemorySessions();
  const def = httpDefinition('fx', url);
  const ledger = new TaskLedger();
  const connection = new McpConnection(def, { sides: hostSides(ledger, new ScriptedResponders()), log: new MemoryLog(), variables: { env: process.env }, sessions, restart: { baseDelayMs: 50, maxDelayMs: 200 } });
  try {
    await connection.start();
    assert.equal(sessions.data.size, 1);
    const states: ConnectionState[] = [];
    connection.onDidChangeState((st) => states.push(st));
    child.kill();
    await new Promise((r) => child.once('exit', r));
    // Its resumes meet a closed port: each is a failed start, tried again.
    await waitFor(connection.onDidChangeState, () => states.filter((st) => st.kind === 'error').length >= 3, 'three failed tries', WAIT_MS);
    assert.ok(states.filter((st) => st.kind === 'error').every((st) => st.kind === 'error' && st.retryAt !== undefined && /failed to start|unreachable/.test(st.message)));
    restarted = (await startHttpServer(['--port', new URL(url).port])).child;
    await waitFor(connection.onDidChangeState, () => connection.state.kind === 'running', 'running again', WAIT_MS);
    assert.equal(connection.continuity.kind, 'new-session');
  } finally {
    connection.dispose();
    ledger.dispose();
    child.kill();
    restarted?.kill();
  }
});

test('persistence (HTTP): after a reconnect (new session) to a server that keeps tasks across sessions, the task resumes and completes', { timeout: TEST_TIMEOUT_MS }, () =>
  withFixture('http', { flags: ['--shared-tasks'] }, async (fx) => {
    const storage = new MemoryStorage();
    const a = fx.newTracker({ storage });
    const key = await fx.call('work', { untilReleased: true, pollInterval: 40 }, a);
    a.dispose();
    await fx.connection.restart();
    const b = fx.newTracker({ storage });
    assert.equal(b.get(key)?.phase, 'paused');
    await b.onServerRunning(fx.connection);
    await fx.plain('release', { taskId: taskIdOf(key) });
    const s = await until(b, key, done, 'done');
    assert.equal(outcomeText(s), `released ${taskIdOf(key)}`);
    assert.equal((await fx.taskStats(key)).results, 1);
  }),
);

test('tasks/list merge (HTTP): a task created by another client shows up as listed and, once opened, is tracked to the end', { timeout: TEST_TIMEOUT_MS }, () =>
  withFixture('http', { flags: ['--shared-tasks'] }, async (fx) => {
    const other = await Fixture.start('http', { url: fx.url });
    try {
      const sentThere = await other.call('work', { untilReleased: true, pollInterval: 40 });
      assert.equal(await fx.tracker.mergeServerList(fx.connection), 1);
      // Listed here under a key of this tracker's own, found by the server's task id.
      const theirs = fx.tracker.keyOfTask(fx.connection.id, taskIdOf(sentThere))!;
      serverTaskIds.set(theirs, taskIdOf(sentThere));
      const s0 = fx.tracker.get(theirs)!;
      assert.equal(s0.origin, 'listed');
      assert.equal(s0.phase, 'tracking');
      assert.equal(s0.toolName, '(task from elsewhere)');
      assert.equal(fx.tracker.follow(theirs), true, 'opened by the user: followed from now on');
      await fx.plain('release', { taskId: taskIdOf(theirs) });
      const s = await until(fx.tracker, theirs, done, 'listed task done');
      assert.equal(outcomeText(s), `released ${taskIdOf(theirs)}`);
      await until(other.tracker, sentThere, done, 'done for its own client too');
      assert.equal(await fx.tracker.mergeServerList(fx.connection), 0, 'a second merge adds nothing');
    } finally {
      other.dispose();
    }
  }),
);

// ---- dead ends of sent tasks (cancel, network errors, server definitions), what is stored, and the polling
// discipline around tasks/result, against real SDK servers ----

interface StatsWithAnswers extends TaskStats {
  resultsAnswered: number[];
  resultsDropped: number;
}

for (const transport of TRANSPORTS) {
  describe(`requestor dead ends and polling discipline over ${transport}`, { timeout: TEST_TIMEOUT_MS * 4 }, () => {
    test('R-GET-1 / R-RESULT-4: around tasks/result, tasks/get never comes sooner than the latest pollInterval', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        fx.responders.elicitImpl = async () => ({ action: 'accept', content: { ok: true } });
        // The requestor is told to poll every 2000 ms; the task completes 300 ms after the answer,
        // whatever the polls, and tasks/result answers then (the server waits in 20 ms steps): the
        // answer falls between two polls, where the tracker used to send a tasks/get ~55 ms later.
        const key = await fx.call('confirm', { pollInterval: 20, clientPollInterval: 2000, finishAfterMs: 300 });
        const s = await until(fx.tracker, key, done, 'done');
        assert.equal(s.task?.status, 'completed');
        assert.match(outcomeText(s), /"ok":true/);
        const st = (await fx.taskStats(key)) as StatsWithAnswers;
        assert.equal(st.results, 1);
        assert.equal(st.resultsAnswered.length, 1);
        const answeredAt = st.resultsAnswered[0]!;
        const before = st.gets.filter((g) => g <= answeredAt);
        const after = st.gets.filter((g) => g > answeredAt);
        assert.ok(before.length >= 1 && answeredAt - before.at(-1)! < 1995, `tasks/result answered between two polls (${answeredAt - before.at(-1)!} ms after one)`);
        assert.equal(after.length, 1, 'exactly one more tasks/get: the due one, which brings the final status');
        // Counted against the pollInterval: no tasks/get between the tasks/result answer and the
        // due time of the next poll, and no two tasks/get closer than the latest pollInterval.
        assert.equal(after.filter((g) => g < before.at(-1)! + 1995).length, 0, `a tasks/get ${after[0]! - answeredAt} ms after tasks/result, ${after[0]! - before.at(-1)!} ms after the previous tasks/get`);
        for (const g of gaps(st.gets)) assert.ok(g >= 1995, `every gap ≥ pollInterval 2000 (${gaps(st.gets).join(', ')})`);
      }),
    );

    test('R-CANCEL-1: a -32602 answer to tasks/cancel triggers no tasks/get; the status it names is taken and the result fetched once', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const st = await cancelAfterTheServerCompleted(fx);
        assert.equal(st.gets.length, 0, 'no tasks/get after the -32602 (the pollInterval is 60 s)');
      }),
    );

    test('cancel pressed before the CreateTaskResult arrives: tasks/cancel goes out as soon as the task id is known; the answer is the truth, not "already finished"', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const gate = `g-${transport}`;
        const keyP = fx.call('work', { untilReleased: true, pollInterval: 60_000, holdCreate: gate });
        await waitFor(fx.tracker.onDidChange, () => fx.tracker.snapshot().some((x) => x.phase === 'sending'), 'the call to be on its way');
        const sending = fx.tracker.snapshot().find((x) => x.phase === 'sending')!;
        const cancelP = fx.tracker.cancel(sending.key);
        assert.equal(fx.tracker.get(sending.key)?.cancelRequested, true);
        assert.match(fx.tracker.get(sending.key)?.reason ?? '', /Cancel requested/);
        // The server creates the task, then holds its CreateTaskResult: ask it until it has it.
        let ids: string[] = [];
        for (let i = 0; i < 200 && ids.length === 0; i++) ids = Object.keys((await fx.stats()).tasks);
        assert.equal(ids.length, 1, 'the server already runs the task');
        assert.equal((await fx.stats()).tasks[ids[0]!]!.cancels, 0);
        await fx.plain('release_create', { gate });
        const key = await keyP;
        const snap = await cancelP;
        assert.equal(snap.key, key);
        assert.equal(snap.task?.status, 'cancelled');
        assert.equal(snap.phase, 'done');
        assert.doesNotMatch(snap.reason ?? '', /already|finished/i);
        const st = await fx.taskStats(key);
        assert.equal(st.cancels, 1, 'the server got the cancel');
        assert.equal(st.gets.length, 0, 'before any poll');
      }),
    );

    test('cancel pressed twice while the CreateTaskResult is held: the request is abandoned, and the reason says the task may still run there', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const keyP = fx.call('work', { untilReleased: true, pollInterval: 60_000, holdCreate: `never-${transport}` });
        await waitFor(fx.tracker.onDidChange, () => fx.tracker.snapshot().some((x) => x.phase === 'sending'), 'the call to be on its way');
        const key = fx.tracker.snapshot().find((x) => x.phase === 'sending')!.key;
        const first = fx.tracker.cancel(key);
        const second = await fx.tracker.cancel(key);
        assert.equal(await keyP, key);
        assert.equal((await first).phase, 'error');
        assert.equal(second.phase, 'error');
        assert.match(second.reason ?? '', /abandoned.*may still run/);
        // The request reached the server before the abandonment did: ask it until it shows the task.
        let tasks = Object.values((await fx.stats()).tasks);
        for (let i = 0; i < 200 && tasks.length === 0; i++) tasks = Object.values((await fx.stats()).tasks);
        assert.equal(tasks.length, 1);
        assert.equal(tasks[0]!.cancels, 0, 'no tasks/cancel: the id was never known');
        assert.equal(fx.tracker.activeCount, 0);
      }),
    );

    test('persistence: unchanged polls cost no writes; stored data carries the definition identity (version 2)', { timeout: TEST_TIMEOUT_MS }, () =>
      withFixture(transport, {}, async (fx) => {
        const storage = new MemoryStorage();
        const t = fx.newTracker({ storage });
        const key = await fx.call('work', { pollInterval: 20, afterGets: 100 }, t);
        const s = await until(t, key, done, 'done');
        assert.equal(s.polls, 100);
        await t.flush();
        assert.ok(storage.saves <= 4, `100 polls of an unchanged task, then done: ${storage.saves} writes (was ~4 a second)`);
        const stored = JSON.parse(storage.data as string) as { version: number; tasks: Array<{ key: string; definitionKey?: string; phase: string }> };
        assert.equal(stored.version, 3);
        assert.deepEqual(
          stored.tasks.map((x) => [x.key, x.definitionKey, x.phase]),
          [[key, 'user:test settings#fx', 'done']],
        );
      }),
    );
  });
}

test('tasks/result network errors (HTTP): retried with backoff, the completed task is not stranded', { timeout: TEST_TIMEOUT_MS }, () =>
  withFixture('http', { tracker: { resultRetryBaseMs: 50 } }, async (fx) => {
    const key = await fx.call('work', { pollInterval: 30, afterGets: 1, resultDrops: 2 });
    const s = await until(fx.tracker, key, done, 'done');
    assert.equal(s.task?.status, 'completed');
    assert.equal(outcomeText(s), `work done (${taskIdOf(key)})`);
    assert.equal(s.resultFetches, 1);
    assert.equal(s.reason, undefined);
    const st = (await fx.taskStats(key)) as StatsWithAnswers;
    assert.equal(st.resultsDropped, 2, 'two tasks/result requests lost their connection');
    assert.equal(st.results, 1, 'the third was answered');
    assert.equal(fx.connection.state.kind, 'running', 'the connection itself stayed healthy');
  }),
);

test('tasks/result network errors (HTTP): after maxResultAttempts the task rests done without payload; Retrieve Result fetches it', { timeout: TEST_TIMEOUT_MS }, () =>
  withFixture('http', { tracker: { resultRetryBaseMs: 50, maxResultAttempts: 2 } }, async (fx) => {
    const key = await fx.call('work', { pollInterval: 30, afterGets: 1, resultDrops: 2 });
    let s = await until(fx.tracker, key, (x) => done(x) && /Retrieve Result/.test(x.reason ?? ''), 'given up');
    assert.equal(s.task?.status, 'completed');
    assert.equal(s.outcome, undefined);
    s = await fx.tracker.retrieve(key);
    assert.equal(outcomeText(s), `work done (${taskIdOf(key)})`);
    assert.equal(s.phase, 'done');
    const st = (await fx.taskStats(key)) as StatsWithAnswers;
    assert.equal(st.resultsDropped, 2);
    assert.equal(st.results, 1);
  }),
);

test('definition identity (HTTP, one shared server): a workspace "fx" never takes over the tasks of the user "fx"; the user one\'s task is orphaned when it is unconfigured, Cancel explains, Dismiss forgets', { timeout: TEST_TIMEOUT_MS }, () =>
  withFixture('http', { flags: ['--shared-tasks'] }, async (fx) => {
    const storage = new MemoryStorage();
    const a = fx.newTracker({ storage });
    const key = await fx.call('work', { untilReleased: true, pollInterval: 40 }, a);
    await until(a, key, (s) => s.polls >= 1, 'polled once');
    a.dispose(); // "reload"

    // Next session: the same name, from a workspace's mcp.json, at the same URL (so tasks/list shows the task).
    const defB: ServerDefinition = { ...httpDefinition('fx', fx.url!), source: { kind: 'workspace', file: '/w/.vscode/mcp.json', folder: '/w' } };
    const ledgerB = new TaskLedger({ limits: { pollIntervalMs: 30 } });
    const connB = new McpConnection(defB, { sides: hostSides(ledgerB, new ScriptedResponders()), variables: { env: process.env } });
    try {
      await connB.start();
      const b = fx.newTracker({ storage, connectionFor: (id) => (id === connB.id ? connB : undefined) });
      const gets0 = (await fx.taskStats(key)).gets.length;
      await b.onServerRunning(connB);
      const mine = b.snapshot().filter((s) => s.definitionKey === 'user:test settings#fx');
      const theirs = b.snapshot().filter((s) => s.definitionKey === 'workspace:/w/.vscode/mcp.json#fx');
      assert.equal(mine.length, 1);
      assert.equal(mine[0]!.phase, 'paused', 'not resumed by the other definition');
      assert.notEqual(mine[0]!.serverId, connB.id, 'not shown under the other definition');
      assert.equal(mine[0]!.toolName, 'work');
      assert.equal(theirs.length, 1, 'the other definition sees the task through tasks/list, as its own record');
      assert.equal(theirs[0]!.origin, 'listed');
      assert.equal(theirs[0]!.task?.taskId, taskIdOf(key), 'the same task on the server');
      const listed = theirs[0]!.key;
      assert.notEqual(listed, key, 'under a key of its own');
      serverTaskIds.set(listed, taskIdOf(key));

      b.setConfiguredServers([defB]);
      const orphan = b.get(mine[0]!.key)!;
      assert.equal(orphan.phase, 'orphaned');
      const snap = await b.cancel(orphan.key); // was a TypeError
      assert.match(snap.reason ?? '', /no longer configured/);
      b.remove(orphan.key); // Dismiss
      assert.equal(b.snapshot().length, 1);

      // The workspace definition's own record is a listed task: followed once the user opens it.
      assert.equal(b.follow(listed), true);
      await fx.plain('release', { taskId: taskIdOf(key) });
      const s = await until(b, listed, done, 'the listed task done');
      assert.equal(outcomeText(s), `released ${taskIdOf(key)}`);
      const st = await fx.taskStats(key);
      assert.equal(st.cancels, 0, 'the orphan was never cancelled on the server');
      assert.ok(st.gets.length > gets0);
    } finally {
      connB.dispose();
      ledgerB.dispose();
    }
  }),
);
