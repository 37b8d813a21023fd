/**
 * Connections made by one integration test file: one ledger for all of them (disposed after the
 * file's tests), each connection's log and state changes at hand, and every connection (plus what
 * a test adds with `track`) disposed after the test that made it, so the leak check
 * (test/helpers/leaks.ts) sees none left. Call `checkLeaks()` after this: hooks run in the order
 * they were added, so the disposal here runs before the check.
 */
import { after, afterEach } from 'node:test';
import { hostSides } from '../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import { parseMcpConfig, type ServerDefinition } from '../../src/core/config/config.js';
import { McpConnection, type ConnectionState, type RestartPolicy } from '../../src/core/connection/connection.js';
import { TaskLedger } from '../../src/core/receiver/ledger.js';
import { MemoryLog, ScriptedResponders } from './host.js';

export { freePort } from './freePort.js';

export function connectionsOfThisFile() {
  const ledger = new TaskLedger();
  after(() => ledger.dispose());
  let disposables: Array<{ dispose(): void }> = [];
  afterEach(() => {
    const these = disposables.reverse();
    disposables = [];
    these.forEach((d) => d.dispose());
  });
  return {
    ledger,
    /** Disposed after the current test (last tracked first). */
    track(d: { dispose(): void }): void {
      disposables.push(d);
    },
    /** A connection (not started), its log, and every state it goes through; disposed after the current test. */
    connect(def: ServerDefinition, restart: Partial<RestartPolicy> = {}, hasWork?: () => boolean) {
      const log = new MemoryLog();
      const c = new McpConnection(def, { sides: hostSides(ledger, new ScriptedResponders()), log, variables: { env: process.env }, restart, initializeTimeoutMs: 20_000, hasWork });
      disposables.push(c);
      const states: ConnectionState[] = [];
      c.onDidChangeState((s) => states.push(s));
      return { c, log, states };
    },
  };
}

/** The one server an mcp.json with just `name: entry` defines (it must parse without problems). */
export function fromMcpJson(name: string, entry: unknown): ServerDefinition {
  const parsed = parseMcpConfig({ kind: 'user', file: 'test mcp.json' }, JSON.stringify({ servers: { [name]: entry } }));
  assert.deepEqual(parsed.problems, []);
  return parsed.servers[0]!;
}
