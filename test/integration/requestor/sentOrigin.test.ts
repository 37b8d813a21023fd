/**
 * A sent task belongs to the server it was sent to, not to its definition's name
 * (requestor/sentOrigin.ts), against real SDK servers: the requestor fixture (A) and a forging
 * server (B, test/fixtures/forgingServer.ts) that answers `tasks/get` for any id as completed and
 * `tasks/result` with a forged result. The definition is switched from A to B (its URL edited, or
 * its `${env:…}` resolving elsewhere, or its stdio command line changed): the task is not polled,
 * fetched or cancelled at B, its result stays unfetched, and its reason says why; switched back to
 * A, it completes with A's own result. Servers are real: HTTP on loopback through a registry, the
 * stdio ones as processes.
 */
import { after, before, describe, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { ServerRegistry } from '../../../src/core/connection/registry.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker, type SentTaskSnapshot } from '../../../src/core/requestor/tracker.js';
import { FORGED_TEXT, serveForgingHttp, type ForgedRequest } from '../../fixtures/forgingServer.js';
import { serveRequestorHttp } from '../../fixtures/requestorServer.js';
import { MemoryLog, ROOT, ScriptedResponders, httpDefinition, stdioDefinition, textOf, waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const WAIT_MS = 20_000;
const TEST_TIMEOUT_MS = 60_000;

/** A registry of one server `demo` with a tracker following it, as the extension wires them. */
function host(env: Record<string, string> = {}) {
  const ledger = new TaskLedger();
  const registry = new ServerRegistry({ sides: hostSides(ledger, new ScriptedResponders()), logFor: () => new MemoryLog(), variablesFor: () => ({ env }), restart: { baseDelayMs: 50 } });
  const tracker = new TaskTracker({ connectionFor: (id) => registry.get(id), minPollIntervalMs: 10 });
  const following = tracker.followServers(registry);
  return {
    registry,
    tracker,
    /** The configuration changed (extension.ts order: tasks first, then the connections). */
    async configure(def: ServerDefinition): Promise<void> {
      tracker.setConfiguredServers([def]);
      await registry.setDefinitions([def]);
      await waitFor(registry.onDidChangeState, () => registry.get(def.id)?.state.kind === 'running', `"${def.name}" running`, WAIT_MS);
    },
    /** Sends `work` (waiting for `release`) to the running `demo`; resolves with its key and task id. */
    async send(): Promise<{ key: string; taskId: string }> {
      const c = registry.get('demo')!;
      const work = (await c.client.listTools()).tools.find((t) => t.name === 'work')!;
      const key = await tracker.callTool(c, work, { untilReleased: true, pollInterval: 20 });
      return { key, taskId: tracker.get(key)!.task!.taskId };
    },
    dispose(): void {
      following.dispose();
      tracker.dispose();
      registry.dispose();
      ledger.dispose();
    },
  };
}

/** Held where it was sent, or (a host that follows the name) ended with whatever the new server said. */
const heldOrEnded = (s: SentTaskSnapshot | undefined) => s?.originHold !== undefined || s?.phase === 'done' || s?.phase === 'error' || s?.phase === 'expired';

const taskRequests = (requests: readonly ForgedRequest[], taskId: string) => requests.filter((r) => r.taskId === taskId);

describe('a sent task is asked about only at the origin it was sent to (HTTP)', () => {
  test('the URL edited to a forging server: not polled or fetched there, held with why; edited back, it completes with the first server\'s result', { timeout: TEST_TIMEOUT_MS }, async () => {
    const a = await serveRequestorHttp({ sharedTasks: true });
    const b = await serveForgingHttp();
    const h = host();
    try {
      await h.configure(httpDefinition('demo', a.url));
      const { key, taskId } = await h.send();
      await waitFor(h.tracker.onDidPoll, () => (a.state.tasks.get(taskId)?.gets.length ?? 0) >= 1, 'a tasks/get at A', WAIT_MS);
      assert.equal(h.tracker.get(key)!.sentTo, a.url);

      await h.configure(httpDefinition('demo', b.url));
      await waitFor(h.tracker.onDidChange, () => heldOrEnded(h.tracker.get(key)), 'the task held (or ended)', WAIT_MS);
      // B is running and listed its tasks (it lists every id it was asked about: none).
      await h.tracker.mergeServerList(h.registry.get('demo')!);
      let s = h.tracker.get(key)!;
      assert.deepEqual(taskRequests(b.requests, taskId), [], 'B was never asked about the task');
      assert.deepEqual(s.originHold, { kind: 'origin-changed', sentTo: a.url, now: b.url });
      assert.equal(s.phase, 'paused');
      assert.match(s.reason ?? '', new RegExp(`^Sent to ${a.url}; "demo" now points at ${b.url}\\.`));
      assert.equal(s.outcome, undefined, 'its result stays unfetched');
      assert.equal(s.task!.status, 'working', "B's forged status was never taken");
      assert.equal(h.tracker._task(key)!.live, undefined, 'not tracked through B');
      // Cancel while held waits for A; nothing goes to B.
      await h.tracker.cancel(key);
      assert.deepEqual(taskRequests(b.requests, taskId), [], 'B was never asked about the task');

      // Meanwhile the task ends at A; switched back, it is resumed there: the cancel comes too late, the result is A's.
      await a.state.tasks.get(taskId)!.finish({ content: [{ type: 'text', text: `A's own result for ${taskId}` }] });
      await h.configure(httpDefinition('demo', a.url));
      await waitFor(h.tracker.onDidChange, () => h.tracker.get(key)?.outcome !== undefined, 'the result from A', WAIT_MS);
      s = h.tracker.get(key)!;
      assert.equal(s.originHold, undefined);
      assert.equal(s.outcome?.kind, 'result');
      assert.equal(textOf(s.outcome?.kind === 'result' ? s.outcome.result : {}), `A's own result for ${taskId}`);
      assert.notEqual(textOf(s.outcome?.kind === 'result' ? s.outcome.result : {}), FORGED_TEXT);
      assert.deepEqual(taskRequests(b.requests, taskId), []);
    } finally {
      h.dispose();
      await a.close();
      await b.close();
    }
  });

  test('a URL written with ${env:…} that resolves elsewhere after a restart: held, B never asked; resolving to A again, it resumes there', { timeout: TEST_TIMEOUT_MS }, async () => {
    const a = await serveRequestorHttp({ sharedTasks: true });
    const b = await serveForgingHttp();
    const env = { DEMO_URL: a.url };
    const h = host(env);
    try {
      await h.configure(httpDefinition('demo', '${env:DEMO_URL}'));
      const { key, taskId } = await h.send();
      await waitFor(h.tracker.onDidPoll, () => (a.state.tasks.get(taskId)?.gets.length ?? 0) >= 1, 'a tasks/get at A', WAIT_MS);

      env.DEMO_URL = b.url;
      await h.registry.restart('demo');
      await waitFor(h.tracker.onDidChange, () => heldOrEnded(h.tracker.get(key)), 'the task held (or ended)', WAIT_MS);
      assert.equal(h.tracker.get(key)!.originHold?.kind, 'origin-changed');
      assert.equal(h.tracker.get(key)!.outcome, undefined);
      assert.deepEqual(taskRequests(b.requests, taskId), []);

      env.DEMO_URL = a.url;
      await h.registry.restart('demo');
      await waitFor(h.tracker.onDidChange, () => h.tracker.get(key)?.phase === 'tracking' && h.tracker.get(key)?.originHold === undefined, 'resumed at A', WAIT_MS);
      const gets = a.state.tasks.get(taskId)!.gets.length;
      await waitFor(h.tracker.onDidPoll, () => a.state.tasks.get(taskId)!.gets.length > gets, 'polled at A again', WAIT_MS);
      await a.state.tasks.get(taskId)!.finish({ content: [{ type: 'text', text: 'from A' }] });
      await waitFor(h.tracker.onDidChange, () => h.tracker.get(key)?.phase === 'done', 'done', WAIT_MS);
      const s = h.tracker.get(key)!;
      assert.equal(textOf(s.outcome?.kind === 'result' ? s.outcome.result : {}), 'from A');
      assert.deepEqual(taskRequests(b.requests, taskId), []);
    } finally {
      h.dispose();
      await a.close();
      await b.close();
    }
  });
});

describe('a sent task is asked about only at the origin it was sent to (stdio)', () => {
  let dir: string;
  let requestor: string;
  let forging: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sent-origin-'));
    requestor = join(dir, 'requestorServer.cjs');
    forging = join(dir, 'forgingServer.cjs');
    const common = { bundle: true, platform: 'node' as const, target: 'node20', format: 'cjs' as const, mainFields: ['module', 'main'], logLevel: 'warning' as const };
    await esbuild.build({ ...common, entryPoints: [join(ROOT, 'test/fixtures/requestorServer.ts')], outfile: requestor });
    await esbuild.build({ ...common, entryPoints: [join(ROOT, 'test/fixtures/forgingServer.ts')], outfile: forging });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the command line changed to a forging program: the task is held and the program never asked; changed back, it is asked of that command line again (a new process, so lost, not forged)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const recordFile = join(dir, 'forged.jsonl');
    const h = host();
    try {
      const atA = stdioDefinition('demo', process.execPath, [requestor]);
      await h.configure(atA);
      const { key, taskId } = await h.send();
      await waitFor(h.tracker.onDidPoll, () => (h.tracker.get(key)?.polls ?? 0) >= 1, 'a tasks/get at A', WAIT_MS);

      await h.configure(stdioDefinition('demo', process.execPath, [forging, '--record', recordFile]));
      await waitFor(h.tracker.onDidChange, () => heldOrEnded(h.tracker.get(key)), 'the task held (or ended)', WAIT_MS);
      await h.tracker.mergeServerList(h.registry.get('demo')!);
      const s = h.tracker.get(key)!;
      assert.equal(s.originHold?.kind, 'origin-changed');
      assert.match(s.reason ?? '', new RegExp(`^Sent to .*requestorServer\\.cjs( \\(in [^)]+\\))?; "demo" now points at .*forgingServer\\.cjs --record `));
      assert.equal(s.outcome, undefined);
      const seen = existsSync(recordFile) ? readFileSync(recordFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as ForgedRequest) : [];
      assert.ok(seen.some((r) => r.method === 'tasks/list'), 'the forging program runs and was listed');
      assert.deepEqual(taskRequests(seen, taskId), [], 'and never asked about the task');

      // The first command line again: asked there (a new process that does not know it: lost, with the true cause).
      await h.configure(atA);
      await waitFor(h.tracker.onDidChange, () => h.tracker.get(key)?.phase === 'error', 'asked at A again', WAIT_MS);
      assert.match(h.tracker.get(key)!.reason ?? '', /^Lost: "demo" runs as a new process/);
      assert.equal(h.tracker.get(key)!.outcome, undefined);
    } finally {
      h.dispose();
    }
  });
});
