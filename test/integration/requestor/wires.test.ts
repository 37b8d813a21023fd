/**
 * Every requestor behaviour against BOTH task wires — 2025-11-25 (the demo server) and the
 * 2026-07-28 Tasks extension (the same demo server with `--tasks-extension`,
 * examples/demo-server/tasksExtension.ts) — over stdio AND Streamable HTTP: complete, fail,
 * cancel, input_required, reload/resume, and the pollInterval discipline. One body per
 * behaviour, parametrized by wire × transport. Spec sections cited are of
 * modelcontextprotocol/experimental-ext-tasks specification/draft/tasks.md.
 *
 * Needs `node esbuild.mjs` first (dist/demo-server.js).
 */
import { after, describe, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker, type SentTaskSnapshot, type TrackerStorage } from '../../../src/core/requestor/tracker.js';
import { MemoryLog, ROOT, ScriptedResponders, httpDefinition, startHttpFixture, waitFor } from '../../helpers/host.js';
import { resolve } from 'node:path';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const DEMO = resolve(ROOT, 'dist', 'demo-server.js');
const POLL_MS = 150;
const WAIT_MS = 20_000;
const TIMEOUT = { timeout: 60_000 };

interface WireCase {
  readonly generation: '2025-11-25' | '2026-07-28';
  readonly flags: string[];
  readonly count: (steps: number, stepMs: number) => [string, Record<string, unknown>];
  readonly fail: [string, Record<string, unknown>];
  readonly input: [string, Record<string, unknown>];
  /** The elicitation answer that completes `input`. */
  readonly answer: Record<string, unknown>;
}

const WIRES: WireCase[] = [
  {
    generation: '2025-11-25',
    flags: [],
    count: (steps, stepMs) => ['long_build', { steps, stepMs }],
    fail: ['flaky_job', { delayMs: 100 }],
    input: ['confirm_deploy', { prepareMs: 50, deployMs: 50 }],
    answer: { environment: 'staging', confirm: true },
  },
  {
    generation: '2026-07-28',
    flags: ['--tasks-extension'],
    count: (steps, stepMs) => ['ext_count', { steps, stepMs }],
    fail: ['ext_fail', { stepMs: 100 }],
    input: ['ext_ask_name', {}],
    answer: { name: 'Luca' },
  },
];

class MemoryStorage implements TrackerStorage {
  data: unknown;
  load() {
    return this.data === undefined ? undefined : structuredClone(this.data);
  }
  save(data: unknown) {
    this.data = structuredClone(data);
  }
}

const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill();
});

/** A host on one demo server process: connection, responders, tracker; `getTimes` records every tasks/get sent. */
async function host(wire: WireCase, transport: 'stdio' | 'http', storage?: TrackerStorage) {
  const env = { DEMO_POLL_INTERVAL_MS: String(POLL_MS) };
  let def: ServerDefinition;
  if (transport === 'stdio') {
    def = { id: 'fx', name: 'fx', source: { kind: 'user', file: 'test settings' }, transport: { type: 'stdio', command: process.execPath, args: [DEMO, ...wire.flags], env }, inputs: [] };
  } else {
    Object.assign(process.env, env);
    const { url, child } = await startHttpFixture(DEMO, ['--port', '0', ...wire.flags], 'demo server', WAIT_MS);
    children.push(child);
    def = httpDefinition('fx', url);
  }
  const ledger = new TaskLedger({});
  const responders = new ScriptedResponders();
  const connection = new McpConnection(def, { sides: hostSides(ledger, responders), log: new MemoryLog(), variables: { env: process.env, workspaceFolder: ROOT } });
  await connection.start();
  const getTimes: number[] = [];
  const client = connection.client;
  const request = client.request.bind(client);
  client.request = ((req: { method: string }, ...rest: unknown[]) => {
    if (req.method === 'tasks/get') getTimes.push(Date.now());
    return (request as (...a: unknown[]) => unknown)(req, ...rest);
  }) as typeof client.request;
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  const trackers: TaskTracker[] = [];
  const newTracker = () => {
    const t = new TaskTracker({ connectionFor: (id) => (id === connection.id ? connection : undefined), storage, minPollIntervalMs: 10, saveIntervalMs: 0 });
    trackers.push(t);
    return t;
  };
  const tracker = newTracker();
  return {
    connection,
    responders,
    tracker,
    newTracker,
    getTimes,
    call: (t: TaskTracker, [name, args]: [string, Record<string, unknown>]) => t.callTool(connection, byName.get(name) ?? { name }, args),
    until: (t: TaskTracker, key: string, check: (s: SentTaskSnapshot) => boolean, what: string) => waitFor(t.onDidChange, () => { const s = t.get(key); return !!s && check(s); }, what, WAIT_MS),
    dispose() {
      for (const t of trackers) t.dispose();
      connection.dispose();
      ledger.dispose();
    },
  };
}

for (const wire of WIRES) {
  for (const transport of ['stdio', 'http'] as const) {
    describe(`requestor on the ${wire.generation} wire over ${transport}`, () => {
      test('complete: the task is tracked on its wire to its result (§Task Polling: the result inline)', TIMEOUT, async () => {
        const h = await host(wire, transport);
        try {
          const key = await h.call(h.tracker, wire.count(2, 100));
          assert.equal(h.tracker.get(key)?.wire, wire.generation, 'the server picked the wire (§Capability Negotiation)');
          await h.until(h.tracker, key, (s) => s.phase === 'done', 'done');
          const s = h.tracker.get(key)!;
          assert.equal(s.task?.status, 'completed');
          assert.equal(s.outcome?.kind, 'result');
          assert.equal(s.resultFetches, 1, 'the payload arrived once (2026-07-28: inline in tasks/get, no second fetch)');
        } finally {
          h.dispose();
        }
      });

      test('fail: a failed task shows its payload (§Task Execution Errors)', TIMEOUT, async () => {
        const h = await host(wire, transport);
        try {
          const key = await h.call(h.tracker, wire.fail);
          await h.until(h.tracker, key, (s) => s.phase === 'done', 'done');
          const s = h.tracker.get(key)!;
          assert.equal(s.task?.status, 'failed');
          assert.ok(s.outcome, 'the failure payload is kept');
          if (wire.generation === '2026-07-28') assert.deepEqual(s.outcome, { kind: 'error', code: -32603, message: 'API rate limit exceeded' });
        } finally {
          h.dispose();
        }
      });

      test('cancel: tasks/cancel ends the task as cancelled (§Task Cancellation)', TIMEOUT, async () => {
        const h = await host(wire, transport);
        try {
          const key = await h.call(h.tracker, wire.count(1000, 200));
          await h.tracker.cancel(key);
          await h.until(h.tracker, key, (s) => s.phase === 'done', 'done');
          assert.equal(h.tracker.get(key)?.task?.status, 'cancelled');
        } finally {
          h.dispose();
        }
      });

      test('input_required: the request goes through the responders once and the task completes (§Task Update Requests)', TIMEOUT, async () => {
        const h = await host(wire, transport);
        try {
          h.responders.elicitImpl = async () => ({ action: 'accept', content: wire.answer as Record<string, string | number | boolean> });
          const key = await h.call(h.tracker, wire.input);
          await h.until(h.tracker, key, (s) => s.phase === 'done', 'done');
          const s = h.tracker.get(key)!;
          assert.equal(s.task?.status, 'completed');
          const asked = h.responders.calls.filter((c) => c.kind === 'elicitation');
          assert.equal(asked.length, 1, 'presented once across polls');
          if (wire.generation === '2026-07-28') {
            assert.equal(asked[0]!.ctx.taskId, undefined, 'a direct request, not a received task (same trust model)');
            assert.deepEqual(asked[0]!.ctx.sentTask, { key, serverId: 'fx', serverName: 'fx', taskId: s.task!.taskId, inputKey: 'name' });
            assert.match(JSON.stringify(s.outcome), /Hello, Luca!/);
          }
        } finally {
          h.dispose();
        }
      });

      test('reload: a stored task resumes polling on the wire it was sent on (§Task Polling: persist task ids)', TIMEOUT, async () => {
        const storage = new MemoryStorage();
        const h = await host(wire, transport, storage);
        try {
          const key = await h.call(h.tracker, wire.count(4, 150));
          await h.tracker.flush();
          h.tracker.dispose();
          const again = h.newTracker();
          assert.equal(again.get(key)?.phase, 'paused');
          assert.equal(again.get(key)?.wire, wire.generation, 'the wire is stored with the task');
          await again.onServerRunning(h.connection);
          await h.until(again, key, (s) => s.phase === 'done', 'done after reload');
          assert.equal(again.get(key)?.task?.status, 'completed');
        } finally {
          h.dispose();
        }
      });

      test('pollInterval: tasks/get never faster than the latest pollInterval (§Task Polling)', TIMEOUT, async () => {
        const h = await host(wire, transport);
        try {
          const key = await h.call(h.tracker, wire.count(8, 150));
          await h.until(h.tracker, key, (s) => s.phase === 'done', 'done');
          // How many polls fit depends on the machine's load and on status notifications; their spacing must not.
          assert.ok(h.getTimes.length >= 1, `polled (${h.getTimes.length})`);
          for (let i = 1; i < h.getTimes.length; i++) {
            const gap = h.getTimes[i]! - h.getTimes[i - 1]!;
            assert.ok(gap >= POLL_MS - 2, `tasks/get ${i} came ${gap} ms after the previous one (pollInterval ${POLL_MS} ms)`);
          }
        } finally {
          h.dispose();
        }
      });
    });
  }
}
