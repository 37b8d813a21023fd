/**
 * The receiver choice, by rule: a few probes of the 2025-11-25 receiver rules (shared/SPEC.md
 * R-*) against (a) this project's receiver (`McpConnection` + `TaskLedger`, the extension's default
 * limits) and (b) `@modelcontextprotocol/ext-tasks` 0.2.2's `bindTaskReceiver` on a bare SDK v2
 * `Client`, configured as close to those defaults as its options go (ttl 15 min, pollInterval
 * 1000 ms, 32 tasks, pages of 50). A real SDK v1 `Server` asks both, over the in-memory transport.
 * Not the project's receiver suite: one probe per rule, each on a fresh host.
 */
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { hostSides } from '../src/core/requestor/hostSides.js';
import { bindTaskReceiver } from '@modelcontextprotocol/ext-tasks/receiver';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RELATED_TASK_META_KEY, type CreateMessageRequest, type CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ErrorCode, ProtocolError } from '../src/core/base/errors.js';
import { McpConnection } from '../src/core/connection/connection.js';
import { TaskLedger } from '../src/core/receiver/ledger.js';
import { ROOT, sampleAnswer, stdioServer } from './common.js';

export type ProbeSide = 'project' | 'binding';

/** What the sampler does with the next request: answer at once, wait for `release`, or fail. */
type Sampler = (params: CreateMessageRequest['params'], signal: AbortSignal) => Promise<CreateMessageResult>;

interface ProbeHost {
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Methods (and `result <id>` for answers) in the order they reached the server. */
  readonly arrivals: string[];
  sampler: Sampler;
  close(): Promise<void>;
}

const AnyResult = z.looseObject({});
const answerNow: Sampler = async (params) => sampleAnswer(params);

async function probeHost(side: ProbeSide): Promise<ProbeHost> {
  const server = new Server({ name: 'probe-requestor', version: '1.0.0' }, { capabilities: {} });
  const [clientT, serverT] = InMemoryTransport.createLinkedPair();
  await server.connect(serverT);
  const arrivals: string[] = [];
  const sdkOnMessage = serverT.onmessage!;
  serverT.onmessage = (m, extra) => {
    arrivals.push('method' in m ? `${m.method} ${(m.params as { taskId?: string; status?: string } | undefined)?.status ?? ''}`.trim() : `result ${String(m.id)}`);
    sdkOnMessage(m, extra);
  };
  const host: ProbeHost = {
    arrivals,
    sampler: answerNow,
    request: (method, params) => server.request({ method, params } as never, AnyResult, { timeout: 10_000 }) as Promise<Record<string, unknown>>,
    close: async () => undefined,
  };
  if (side === 'project') {
    const ledger = new TaskLedger();
    const connection = new McpConnection(stdioServer('probe', 'unused.js'), {
      sides: hostSides(ledger, {
        sampling: (params, ctx) => host.sampler(params as never, ctx.signal),
        elicitation: async () => {
          throw new ProtocolError(ErrorCode.InvalidRequest, 'no elicitation in the probes');
        },
      }),
      variables: { env: process.env, workspaceFolder: ROOT },
      transportFactory: () => clientT,
    });
    await connection.start();
    host.close = async () => {
      connection.dispose();
      ledger.dispose();
      await server.close();
    };
  } else {
    const client = new ClientV2({ name: 'ext-tasks-receiver', version: '0.2.2' }, { capabilities: { sampling: {}, tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } } } });
    const binding = bindTaskReceiver(client, {
      methods: { 'sampling/createMessage': true },
      sampling: (request, { signal }) => host.sampler(request.params as never, signal) as never,
      ttlMs: 900_000,
      pollIntervalMs: 1000,
      maxTasks: 32,
      pageSize: 50,
    });
    await client.connect(clientT);
    host.close = async () => {
      binding.close();
      await client.close();
      await server.close();
    };
  }
  return host;
}

const QUESTION = { messages: [{ role: 'user', content: { type: 'text', text: 'probe' } }], maxTokens: 10 };
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

async function create(h: ProbeHost, ttl = 60_000): Promise<string> {
  const r = await h.request('sampling/createMessage', { ...QUESTION, task: { ttl } });
  return (r.task as { taskId: string }).taskId;
}

/** The JSON-RPC error code a request failed with (undefined: it succeeded). */
async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: number }).code;
  }
}

/** A sampler that holds every request until `release()`. */
function held(): { sampler: Sampler; release(): void } {
  const waiting: Array<() => void> = [];
  return {
    sampler: (params) => new Promise((resolve) => waiting.push(() => resolve(sampleAnswer(params)))),
    release: () => waiting.splice(0).forEach((go) => go()),
  };
}

export interface Probe {
  readonly rule: string;
  readonly what: string;
  /** Resolves to '' when the rule holds, else what was seen. */
  run(h: ProbeHost): Promise<string>;
}

export const PROBES: readonly Probe[] = [
  {
    rule: 'R-CREATE-2',
    what: 'a new task starts `working`',
    async run(h) {
      const gate = held();
      h.sampler = gate.sampler;
      const r = await h.request('sampling/createMessage', { ...QUESTION, task: { ttl: 60_000 } });
      gate.release();
      const status = (r.task as { status?: string }).status;
      return status === 'working' ? '' : `status "${status}"`;
    },
  },
  {
    rule: 'R-GET-2',
    what: 'tasks/get of an unknown task: -32602',
    async run(h) {
      const code = await codeOf(h.request('tasks/get', { taskId: 'no-such-task' }));
      return code === ErrorCode.InvalidParams ? '' : `code ${code}`;
    },
  },
  {
    rule: 'R-ERR-1',
    what: 'tasks/get with a malformed taskId (a number): -32602',
    async run(h) {
      const code = await codeOf(h.request('tasks/get', { taskId: 42 }));
      return code === ErrorCode.InvalidParams ? '' : `code ${code}`;
    },
  },
  {
    rule: 'R-RESULT-1',
    what: 'tasks/result of a failed task: the request\'s own JSON-RPC error',
    async run(h) {
      h.sampler = async () => {
        throw new ProtocolError(-1, 'The user declined the sampling request');
      };
      const id = await create(h);
      await turns();
      try {
        await h.request('tasks/result', { taskId: id });
        return 'a result';
      } catch (e) {
        const { code, message } = e as { code?: number; message?: string };
        return code === -1 && message?.includes('declined') ? '' : `code ${code}: ${message}`;
      }
    },
  },
  {
    rule: 'R-RESULT-3',
    what: 'tasks/result carries the related-task metadata',
    async run(h) {
      const id = await create(h);
      const r = await h.request('tasks/result', { taskId: id });
      const meta = (r._meta as Record<string, { taskId?: string }> | undefined)?.[RELATED_TASK_META_KEY];
      return meta?.taskId === id ? '' : `_meta ${JSON.stringify(r._meta)}`;
    },
  },
  {
    rule: 'R-RESULT-2',
    what: 'a waiting tasks/result is answered within 20 ms of the task\'s end (pollInterval 1000 ms)',
    async run(h) {
      const gate = held();
      h.sampler = gate.sampler;
      const id = await create(h);
      const waiting = h.request('tasks/result', { taskId: id }).then(() => performance.now());
      await new Promise((r) => setTimeout(r, 30));
      const ended = performance.now();
      gate.release();
      const ms = (await waiting) - ended;
      return ms <= 20 ? '' : `${ms.toFixed(0)} ms`;
    },
  },
  {
    rule: 'R-CANCEL-1',
    what: 'tasks/cancel of a completed task: -32602',
    async run(h) {
      const id = await create(h);
      await h.request('tasks/result', { taskId: id });
      const code = await codeOf(h.request('tasks/cancel', { taskId: id }));
      return code === ErrorCode.InvalidParams ? '' : code === undefined ? 'answered with the task' : `code ${code}`;
    },
  },
  {
    rule: 'R-CANCEL-2',
    what: 'tasks/cancel of a working task answers it `cancelled` and stops the work',
    async run(h) {
      let aborted = false;
      h.sampler = (_p, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => ((aborted = true), reject(new Error('aborted')))));
      const id = await create(h);
      const r = await h.request('tasks/cancel', { taskId: id });
      await turns();
      return r.status === 'cancelled' && aborted ? '' : `status ${String(r.status)}, work aborted: ${aborted}`;
    },
  },
  {
    rule: 'R-LIST-2',
    what: 'tasks/list with an invalid cursor: -32602',
    async run(h) {
      await create(h);
      const code = await codeOf(h.request('tasks/list', { cursor: 'not-a-cursor' }));
      return code === ErrorCode.InvalidParams ? '' : `code ${code}`;
    },
  },
  {
    rule: 'R-NOTIFY-1',
    what: 'a task that ends while it is created is announced after its CreateTaskResult',
    async run(h) {
      await create(h);
      await turns(10);
      const result = h.arrivals.findIndex((a) => a.startsWith('result'));
      const done = h.arrivals.indexOf('notifications/tasks/status completed');
      if (done < 0) return 'no status notification';
      return done > result ? '' : `order: ${h.arrivals.join(', ')}`;
    },
  },
  {
    rule: 'R-SEC-3',
    what: 'task operations are rate-limited: 300 tasks/get at once, some refused',
    async run(h) {
      const id = await create(h);
      const codes = await Promise.all(Array.from({ length: 300 }, () => codeOf(h.request('tasks/get', { taskId: id }))));
      const refused = codes.filter((c) => c !== undefined).length;
      return refused > 0 ? '' : 'all 300 answered';
    },
  },
  {
    rule: 'R-SEC-2',
    what: 'live tasks per server are limited: 40 waiting tasks, some refused',
    async run(h) {
      const gate = held();
      h.sampler = gate.sampler;
      const codes = await Promise.all(Array.from({ length: 40 }, () => codeOf(create(h))));
      gate.release();
      const refused = codes.filter((c) => c !== undefined).length;
      return refused > 0 ? '' : 'all 40 created';
    },
  },
  {
    rule: 'R-SEC-2',
    what: 'the maximum ttl is capped and the ttl reported: a 10 h request gets at most 1 h',
    async run(h) {
      const r = await h.request('sampling/createMessage', { ...QUESTION, task: { ttl: 36_000_000 } });
      const ttl = (r.task as { ttl?: number | null }).ttl;
      return typeof ttl === 'number' && ttl <= 3_600_000 ? '' : `ttl ${ttl}`;
    },
  },
  {
    rule: 'R-RESULT-1',
    what: 'a finished task\'s result stays retrievable within its ttl while new tasks arrive (40 tasks, limit 32)',
    async run(h) {
      const first = await create(h);
      await turns();
      for (let i = 0; i < 39; i++) await create(h);
      await turns();
      const code = await codeOf(h.request('tasks/result', { taskId: first }));
      return code === undefined ? '' : `tasks/result of the first task: code ${code}`;
    },
  },
];

export interface ProbeOutcome {
  readonly rule: string;
  readonly what: string;
  /** '' when the rule held, else what was seen. */
  readonly project: string;
  readonly binding: string;
}

/** Every probe on a fresh host of each side. */
export async function runProbes(): Promise<ProbeOutcome[]> {
  const out: ProbeOutcome[] = [];
  for (const probe of PROBES) {
    const seen: Record<ProbeSide, string> = { project: '', binding: '' };
    for (const side of ['project', 'binding'] as const) {
      const h = await probeHost(side);
      try {
        seen[side] = await probe.run(h);
      } catch (e) {
        seen[side] = `threw: ${e instanceof Error ? e.message : String(e)}`;
      } finally {
        await h.close();
      }
    }
    out.push({ rule: probe.rule, what: probe.what, project: seen.project, binding: seen.binding });
  }
  return out;
}
