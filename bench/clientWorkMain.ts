/**
 * Section 8 (`rev2026`), the client side alone (clientWork.ts starts this in a child process with
 * `node --no-opt`): the host CPU each side spends on one `tools/call` when the server's answer costs
 * nothing — no pipe, no socket, no other process — in the regime of the round-trip rows, where 200
 * calls on a fresh connection leave most of the call's code to V8's interpreter and baseline tier.
 * Without the optimizing compiler that regime is the same every round, so the figures move by a few
 * per cent where the round-trip rows move by tens: what each layer of a call costs can be read off.
 *
 * The answers are the bench server's own (rev2026Server.ts, SDK v2, in process): the first request of
 * each kind goes to it and its answer is kept; every later one of that kind is answered with it (its
 * id set) a microtask later ({@link ReplayTransport}). Sides, each on a fresh client and transport
 * per round, in rotating order:
 * - `bare`: a bare SDK v2 `Client` pinned to 2026-07-28, awaiting `callTool`;
 * - `options`: the same client, each call with the options the host gives every request (an
 *   AbortSignal used again from call to call, a progress callback, the no-timeout timeout);
 * - `connection` (`echo` only): the project's `McpConnection`, its client's `callTool` called with
 *   those options (what sending.ts does, without the task's record);
 * - `project`: `McpConnection` + `TaskTracker`, the call tracked to its result, as in the row;
 * - `raw` (`echo` only): no SDK `Client`: the `tools/call` message the bare client sends (its `_meta` included),
 *   written to the same transport with a new id, its answer matched by id and checked with the SDK's
 *   `CallToolResultSchema` (zod). What any client must do for the call: the floor of the client side.
 *
 * Prints one JSON line: for each tool, each side's host CPU per call (µs), one figure per round.
 *
 * Usage: node --no-opt clientWorkMain.js <calls per round> <warm-up calls> <rounds>
 */
import { InMemoryTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { bareCall, definition, measure, newBareClient, startProjectHost, type Rev2026Tool } from './rev2026.js';
import { createBench2026Server } from './rev2026Server.js';
import { rotate } from './stats.js';
import { CallToolResultSchema } from '@modelcontextprotocol/core';

type Tool = Rev2026Tool;
type Side = 'bare' | 'options' | 'connection' | 'project' | 'raw';

type Message = { id?: string | number; method?: string; params?: { name?: unknown; inputResponses?: unknown }; result?: unknown; error?: unknown };

/** The server's answers by kind of request: the method, the tool, and for a retried call whether it carries answers. */
const kept = new Map<string, Message>();
/** The `tools/call` the bare client sent while the `raw` side asked for it ({@link rawSide}), as sent. */
let bareToolsCall: JSONRPCMessage | undefined;
let keepNextToolsCall = false;
const kindOf = (m: Message) => `${m.method} ${String(m.params?.name ?? '')}${m.params?.inputResponses !== undefined ? '+answers' : ''}`;

/**
 * The client's transport: a request of a kind already answered is answered again from {@link kept}
 * in a microtask; any other goes to the bench server over the SDK's in-memory pair, and its answer
 * is kept. Notifications from the client are dropped (a stateless 2026-07-28 call sends none that
 * the answers depend on).
 */
class ReplayTransport implements Transport {
  /**
   * It stands in for a stdio server's pipes, so it has the shape a client tells stdio by (a `pid` and a
   * `stderr`, as the SDK's probe and the host's own `tools/call` path read it: connection/toolCall2026.ts):
   * each side takes the path it takes over stdio.
   */
  readonly pid = process.pid;
  readonly stderr = null;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly _server: Transport;
  private readonly _waiting = new Map<string | number, string>();

  constructor() {
    const [client, server] = InMemoryTransport.createLinkedPair();
    serveStdio(() => createBench2026Server(), { legacy: 'reject', transport: server });
    this._server = client;
  }

  async start(): Promise<void> {
    this._server.onmessage = (message) => {
      const m = message as Message;
      const kind = m.id !== undefined ? this._waiting.get(m.id) : undefined;
      if (kind !== undefined && m.method === undefined) {
        this._waiting.delete(m.id!);
        kept.set(kind, m);
      }
      this.onmessage?.(message);
    };
    await this._server.start();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const m = message as Message;
    if (m.method === undefined || m.id === undefined) return;
    if (m.method === 'tools/call' && keepNextToolsCall) {
      keepNextToolsCall = false;
      bareToolsCall = structuredClone(message);
    }
    const kind = kindOf(m);
    const answer = kept.get(kind);
    if (!answer) {
      this._waiting.set(m.id, kind);
      return this._server.send(message);
    }
    const text = JSON.stringify({ ...answer, id: m.id });
    queueMicrotask(() => this.onmessage?.(JSON.parse(text) as JSONRPCMessage));
  }

  async close(): Promise<void> {
    await this._server.close();
    this.onclose?.();
  }
}

/** Host CPU per call (µs) of `count` calls after `warm` (rev2026.ts `measure`, as the round-trip rows). */
async function perCall(call: () => Promise<void>, count: number, warm: number): Promise<number> {
  return (await measure(call, count, warm)).cpuPerCallMs * 1000;
}

async function bareSide(tool: Tool, withOptions: boolean, count: number, warm: number): Promise<number> {
  const client = newBareClient();
  await client.connect(new ReplayTransport());
  try {
    return await perCall(() => bareCall(client, tool, withOptions), count, warm);
  } finally {
    await client.close();
  }
}

async function projectSide(tool: Tool, tracked: boolean, count: number, warm: number): Promise<number> {
  const host = await startProjectHost(definition('stdio'), () => new ReplayTransport());
  try {
    return await perCall(tracked ? () => host.call(tool) : () => host.callOnConnection(tool), count, warm);
  } finally {
    host.dispose();
  }
}

/** `tools/call` with no SDK `Client` (the `raw` side): the bare client's message again, its answer matched by id and checked. */
async function rawSide(count: number, warm: number): Promise<number> {
  if (!bareToolsCall) {
    const client = newBareClient();
    await client.connect(new ReplayTransport());
    keepNextToolsCall = true;
    await bareCall(client, 'echo', false).finally(() => client.close());
  }
  const request = bareToolsCall!;
  const transport = new ReplayTransport();
  const waiting = new Map<string | number, (m: Message) => void>();
  transport.onmessage = (message) => {
    const m = message as Message;
    const answered = m.id !== undefined ? waiting.get(m.id) : undefined;
    if (!answered) return;
    waiting.delete(m.id!);
    answered(m);
  };
  await transport.start();
  let id = 0;
  try {
    return await perCall(async () => {
      const ownId = `raw-${++id}`;
      const answer = new Promise<Message>((resolve) => waiting.set(ownId, resolve));
      await transport.send({ ...request, id: ownId } as JSONRPCMessage);
      const m = await answer;
      const r = CallToolResultSchema.parse(m.result);
      if (r.content[0]?.type !== 'text') throw new Error(`raw tools/call: ${JSON.stringify(m)}`);
    }, count, warm);
  } finally {
    await transport.close();
  }
}

const SIDES: Record<Tool, Side[]> = { echo: ['bare', 'options', 'connection', 'project', 'raw'], ask: ['bare', 'options', 'project'] };

async function main(): Promise<void> {
  const [count, warm, rounds] = process.argv.slice(2).map(Number);
  if (!count || warm === undefined || !rounds) throw new Error('usage: clientWorkMain.js <calls per round> <warm-up calls> <rounds>');
  const out: Partial<Record<Tool, Partial<Record<Side, number[]>>>> = {};
  for (const tool of ['echo', 'ask'] as const) {
    const sides = SIDES[tool];
    const run = (side: Side) => () =>
      side === 'raw' ? rawSide(count, warm) : side === 'bare' || side === 'options' ? bareSide(tool, side === 'options', count, warm) : projectSide(tool, side === 'project', count, warm);
    const results = await rotate(rounds, sides.map(run));
    out[tool] = Object.fromEntries(sides.map((s, i) => [s, results[i]!]));
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
