/**
 * A stdio server outlives the window through the server host (src/core/serverHost/): against the
 * requestor fixture (a real SDK v1 server over real stdio) run by the real host process
 * (`dist/serverHost.js`, started detached on a Unix socket in a private folder).
 *
 * "Reload": the first window's tracker and connection are disposed (the server is left running in
 * the host) and a second window is built over the same stored tasks and kept sessions, with a new
 * link to the host. It reattaches to the same process and the same MCP session — the fixture
 * counts `initialize` requests: one, from the first window — and the task started before the
 * reload completes with its result; a question open at the reload is answered after it.
 * Waits are on state, never on sleeps.
 *
 * Run: `node esbuild.mjs && node --import tsx --test test/integration/requestor/stdioReattach.test.ts`
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { ServerRegistry } from '../../../src/core/connection/registry.js';
import type { SessionStore } from '../../../src/core/connection/httpSession.js';
import type { StdioHost } from '../../../src/core/connection/hostedStdio.js';
import { ServerHostClient } from '../../../src/core/serverHost/launch.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import type { ResponderContext } from '../../../src/core/receiver/wire/responders.js';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import { TaskTracker, type SentTaskSnapshot } from '../../../src/core/requestor/tracker.js';
import type { TrackerStorage } from '../../../src/core/requestor/trackerStore.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import type { ConnectGate } from '../../../src/core/config/gate.js';
import { Emitter, type Event } from '../../../src/core/base/event.js';
import { MemoryLog, ROOT, ScriptedResponders, fixture, stdioDefinition, textOf, waitFor } from '../../helpers/host.js';
import { MemorySessions } from '../../helpers/memorySessions.js';
import { MemoryStorage, reloadWindow, untilTask } from '../../helpers/reloadWindow.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const WAIT_MS = 20_000;
const TEST_TIMEOUT_MS = 60_000;
const HOST_SCRIPT = join(ROOT, 'dist', 'serverHost.js');

/** Responders that note each elicitation they are given, answering with `answer`. */
class NotingResponders extends ScriptedResponders {
  private readonly _asked = new Emitter<void>();
  readonly onAsked: Event<void> = this._asked.event;
  readonly asked: ResponderContext[] = [];
  constructor(answer: (ctx: ResponderContext) => Promise<{ action: 'accept'; content: Record<string, boolean> }>) {
    super();
    this.elicitImpl = (_p, ctx) => {
      this.asked.push(ctx);
      this._asked.fire();
      return answer(ctx);
    };
  }

  dispose(): void {
    this._asked.dispose();
  }
}

/** The window's host client, counting the links it is asked for (the host is contacted only through one). */
class CountingHostClient extends ServerHostClient {
  links = 0;
  override link() {
    this.links++;
    return super.link();
  }
}

function neverAnswers(ctx: ResponderContext): Promise<never> {
  return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
}

/** A window: its own link to the host in `dir` (as a reloaded window makes), a connection and a tracker. */
function windowOf(
  dir: string,
  def: ServerDefinition,
  sessions: SessionStore,
  storage: TrackerStorage,
  responders = new NotingResponders(neverAnswers),
  options: { readonly hosts?: boolean; readonly gate?: ConnectGate } = {},
) {
  const client = new CountingHostClient({ dir, hostScript: HOST_SCRIPT, env: { MCP_TASKS_HOST_IDLE_MS: '300' } });
  const serverHost: StdioHost = { client, graceMs: () => 30_000, hosts: () => options.hosts ?? true };
  return {
    ...reloadWindow(def, { sessions, storage, responders, defaultPollIntervalMs: 50, serverHost, gate: options.gate }),
    responders,
    serverHost,
    /** How many times this window asked for its link to the host. */
    links: () => client.links,
  };
}

function until(tracker: TaskTracker, key: string, check: (s: SentTaskSnapshot) => boolean, what: string): Promise<SentTaskSnapshot> {
  return untilTask(tracker, key, check, what, WAIT_MS);
}

function outcomeText(s: SentTaskSnapshot): string {
  return s.outcome?.kind === 'result' ? textOf(s.outcome.result) : '';
}

async function stats(connection: McpConnection): Promise<{ initializes: number; pid: number; tasks: Record<string, { elicitation?: unknown }> }> {
  return JSON.parse(textOf(await connection.client.callTool({ name: 'stats', arguments: {} })));
}

/** Whether process `pid` is gone. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** The server stopped through the host (a user's Stop): the process ends, and the host, owning nothing, exits. */
async function stopThroughHost(w: ReturnType<typeof windowOf>, serverPid: number): Promise<void> {
  const link = await w.serverHost.client.link();
  const hostPid = link.hostPid;
  await w.connection.stop();
  assert.ok(gone(serverPid), 'Stop ends the server process');
  w.close();
  link.close();
  // Polled: the host's exit is seen only from outside it (its idle delay is 300 ms here).
  const deadline = Date.now() + WAIT_MS;
  while (!gone(hostPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(gone(hostPid), 'the host exits once it owns no server');
}

/** Whatever a failed test left: the host ended (it ends its servers), the folder removed. */
async function cleanUp(windows: ReadonlyArray<ReturnType<typeof windowOf> | undefined>, dir: string): Promise<void> {
  for (const w of windows) {
    if (!w) continue;
    const link = await w.serverHost.client.link().catch(() => undefined);
    w.close();
    if (link && !gone(link.hostPid)) process.kill(link.hostPid, 'SIGTERM');
  }
  rmSync(dir, { recursive: true, force: true });
}

test('a reload keeps a stdio task: the next window reattaches to the same process and session (no second initialize), and the task completes with its result', { timeout: TEST_TIMEOUT_MS }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-'));
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = stdioDefinition('fx', process.execPath, [fixture('requestorServer')]);
  const first = windowOf(dir, def, sessions, storage);
  let second: ReturnType<typeof windowOf> | undefined;
  try {
    await first.connection.start();
    const before = await stats(first.connection);
    assert.equal(before.initializes, 1);
    const work = (await first.connection.client.listTools()).tools.find((t) => t.name === 'work')!;
    const key = await first.tracker.callTool(first.connection, work, { untilReleased: true, pollInterval: 40 });
    await until(first.tracker, key, (x) => x.phase === 'tracking', 'tracking');
    const taskId = first.tracker.get(key)!.task!.taskId;
    first.close();

    second = windowOf(dir, def, sessions, storage);
    await second.connection.start();
    assert.equal(second.connection.continuity.kind, 'resumed', 'the same session');
    const after = await stats(second.connection);
    assert.equal(after.pid, before.pid, 'the same process');
    assert.equal(after.initializes, 1, 'no second initialize');
    assert.ok((await second.connection.client.listTools()).tools.some((t) => t.name === 'work'), 'the reattached client knows the server');
    await second.tracker.onServerRunning(second.connection);
    await second.connection.client.callTool({ name: 'release', arguments: { taskId } });
    const s = await until(second.tracker, key, (x) => x.phase === 'done' || x.phase === 'error' || x.phase === 'expired', 'the task made before the reload');
    assert.equal(s.phase, 'done', `${s.phase}: ${s.reason}`);
    assert.equal(outcomeText(s), `released ${taskId}`);
    await stopThroughHost(second, after.pid);
  } finally {
    await cleanUp([first, second], dir);
  }
});

test('a question open at a reload is answered after it, in the same stdio session, and the task completes with the answer', { timeout: TEST_TIMEOUT_MS }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-'));
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = stdioDefinition('fx', process.execPath, [fixture('requestorServer')]);
  const first = windowOf(dir, def, sessions, storage);
  let second: ReturnType<typeof windowOf> | undefined;
  try {
    await first.connection.start();
    const confirm = (await first.connection.client.listTools()).tools.find((t) => t.name === 'confirm')!;
    const key = await first.tracker.callTool(first.connection, confirm, { getsAfterAnswer: 1 });
    await waitFor(first.responders.onAsked, () => first.responders.asked.length === 1, 'the question', WAIT_MS);
    const taskId = first.tracker.get(key)!.task!.taskId;
    first.close();

    const responders = new NotingResponders(async () => ({ action: 'accept', content: { ok: true } }));
    second = windowOf(dir, def, sessions, storage, responders);
    await second.connection.start();
    assert.equal(second.connection.continuity.kind, 'resumed');
    await second.tracker.onServerRunning(second.connection);
    await waitFor(responders.onAsked, () => responders.asked.length === 1, 'the question, asked again after the reload', WAIT_MS);
    assert.equal(responders.asked[0]!.relatedTaskId, taskId, 'under its task');
    const s = await until(second.tracker, key, (x) => x.phase === 'done' || x.phase === 'error' || x.phase === 'expired', 'the task, answered');
    assert.equal(s.phase, 'done', `${s.phase}: ${s.reason}`);
    assert.match(outcomeText(s), /^confirmed: {"answer":{.*"action":"accept","content":{"ok":true}}}$/);
    const after = await stats(second.connection);
    assert.equal(after.initializes, 1, 'no second initialize');
    await stopThroughHost(second, after.pid);
  } finally {
    await cleanUp([first, second], dir);
  }
});

test('a definition changed before the reload: the running server is ended and a new one started (its tasks of before are held: sent elsewhere)', { timeout: TEST_TIMEOUT_MS }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-'));
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = stdioDefinition('fx', process.execPath, [fixture('requestorServer')]);
  const changed: ServerDefinition = { ...def, transport: { type: 'stdio', command: process.execPath, args: [fixture('requestorServer')], env: { FX_CHANGED: '1' } } };
  const first = windowOf(dir, def, sessions, storage);
  let second: ReturnType<typeof windowOf> | undefined;
  try {
    await first.connection.start();
    const before = await stats(first.connection);
    const work = (await first.connection.client.listTools()).tools.find((t) => t.name === 'work')!;
    const key = await first.tracker.callTool(first.connection, work, { untilReleased: true, pollInterval: 40 });
    await until(first.tracker, key, (x) => x.phase === 'tracking', 'tracking');
    first.close();

    second = windowOf(dir, changed, sessions, storage);
    await second.connection.start();
    assert.deepEqual(second.connection.continuity, { kind: 'new-process', detail: 'its definition changed since the old one was started' });
    assert.ok(gone(before.pid), 'the server of the old definition was ended');
    const after = await stats(second.connection);
    assert.notEqual(after.pid, before.pid);
    assert.equal(after.initializes, 1, 'the new process, initialized once');
    await second.tracker.onServerRunning(second.connection);
    // The task was sent to the server of the old definition (requestor/sentOrigin.ts): not asked of the new one.
    const s = await until(second.tracker, key, (x) => x.phase === 'paused' && /now reaches a different server/.test(x.reason ?? ''), 'held at its origin');
    assert.equal(s.task?.status, 'working');
    await stopThroughHost(second, after.pid);
  } finally {
    await cleanUp([first, second], dir);
  }
});

test('the next window whose gate does not allow the server contacts no host and reattaches to nothing', { timeout: TEST_TIMEOUT_MS }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-'));
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = stdioDefinition('fx', process.execPath, [fixture('requestorServer')]);
  const first = windowOf(dir, def, sessions, storage);
  let second: ReturnType<typeof windowOf> | undefined;
  try {
    await first.connection.start();
    const before = await stats(first.connection);
    first.close();
    const refused: ConnectGate = { mayConnect: async () => 'not approved in this window', mayStay: async () => 'not approved in this window', onDidChange: () => ({ dispose: () => undefined }) };
    second = windowOf(dir, def, sessions, storage, undefined, { gate: refused });
    await second.connection.start();
    assert.deepEqual(second.connection.state, { kind: 'blocked', reason: 'not approved in this window' });
    assert.equal(second.links(), 0, 'the host was not contacted');
    assert.ok(!gone(before.pid), 'nothing was attached to or ended: the server waits out its grace');
    second.close();
    second = undefined;
    // A window that may start it again reattaches to it.
    second = windowOf(dir, def, sessions, storage);
    await second.connection.start();
    assert.equal(second.connection.continuity.kind, 'resumed');
    await stopThroughHost(second, before.pid);
  } finally {
    await cleanUp([first, second], dir);
  }
});

test('with the server host off for a server, a reload starts a new process, as before, and no host runs', { timeout: TEST_TIMEOUT_MS }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-'));
  const sessions = new MemorySessions();
  const storage = new MemoryStorage();
  const def = stdioDefinition('fx', process.execPath, [fixture('requestorServer')]);
  const first = windowOf(dir, def, sessions, storage, undefined, { hosts: false });
  let second: ReturnType<typeof windowOf> | undefined;
  try {
    await first.connection.start();
    const before = await stats(first.connection);
    const work = (await first.connection.client.listTools()).tools.find((t) => t.name === 'work')!;
    const key = await first.tracker.callTool(first.connection, work, { untilReleased: true, pollInterval: 40 });
    await until(first.tracker, key, (x) => x.phase === 'tracking', 'tracking');
    first.close();
    second = windowOf(dir, def, sessions, storage, undefined, { hosts: false });
    await second.connection.start();
    assert.equal(second.connection.continuity.kind, 'new-process');
    assert.notEqual((await stats(second.connection)).pid, before.pid);
    await second.tracker.onServerRunning(second.connection);
    const s = await until(second.tracker, key, (x) => x.phase === 'error' || x.phase === 'expired', 'lost');
    assert.match(s.reason ?? '', /^Lost: "fx" runs as a new process, which does not know the tasks of the old one/);
    assert.equal(first.links() + second.links(), 0, 'no host was contacted');
    assert.equal(sessions.data.size, 0, 'nothing kept for a reattach');
  } finally {
    second?.close();
    await cleanUp([first], dir);
  }
});

test('a hosted server whose definition is removed is ended through the host, which then exits', { timeout: TEST_TIMEOUT_MS }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-'));
  const def = stdioDefinition('fx', process.execPath, [fixture('requestorServer')]);
  const ledger = new TaskLedger();
  const registry = new ServerRegistry({
    sides: hostSides(ledger, new ScriptedResponders()),
    logFor: () => new MemoryLog(),
    variablesFor: () => ({ env: process.env }),
    sessions: new MemorySessions(),
    serverHost: { launch: { dir, hostScript: HOST_SCRIPT, env: { MCP_TASKS_HOST_IDLE_MS: '300' } }, graceMs: () => 30_000, hosts: () => true },
  });
  let hostPid = -1;
  try {
    await registry.setDefinitions([def]);
    const connection = registry.get('fx')!;
    await waitFor(registry.onDidChangeState, () => connection.state.kind === 'running', 'running', WAIT_MS);
    // The server's parent is the host.
    const { pid, ppid } = JSON.parse(textOf(await connection.client.callTool({ name: 'stats', arguments: {} }))) as { pid: number; ppid: number };
    hostPid = ppid;
    assert.notEqual(ppid, process.pid, 'spawned by the host, not by the window');
    await registry.setDefinitions([]);
    // Polled: only the processes' ends show it, from outside them.
    const deadline = Date.now() + WAIT_MS;
    while ((!gone(pid) || !gone(hostPid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(gone(pid), 'the server process ended');
    assert.ok(gone(hostPid), 'the host, owning nothing, exited');
  } finally {
    registry.dispose();
    ledger.dispose();
    if (hostPid > 0 && !gone(hostPid)) process.kill(hostPid, 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a second window that attaches takes the server: the first says so and does not take it back', { timeout: TEST_TIMEOUT_MS }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-host-'));
  const sessions = new MemorySessions();
  const def = stdioDefinition('fx', process.execPath, [fixture('requestorServer')]);
  const first = windowOf(dir, def, sessions, new MemoryStorage());
  let second: ReturnType<typeof windowOf> | undefined;
  try {
    await first.connection.start();
    const before = await stats(first.connection);
    second = windowOf(dir, def, sessions, new MemoryStorage());
    await second.connection.start();
    assert.equal(second.connection.continuity.kind, 'resumed');
    await waitFor(first.connection.onDidChangeState, () => first.connection.state.kind === 'error', 'the first window told', WAIT_MS);
    assert.deepEqual(first.connection.state, { kind: 'error', message: '"fx" is now used by another window, which attached to it in the server host' });
    const after = await stats(second.connection);
    assert.equal(after.pid, before.pid);
    assert.equal(after.initializes, 1);
    first.close();
    await stopThroughHost(second, after.pid);
  } finally {
    await cleanUp([first, second], dir);
  }
});
