/**
 * R-CAP-1, per side: a connection declares what the sides installed on it answer, and nothing
 * else. Against a real SDK v2 server (test/fixtures/capabilitiesServer.ts) that answers with the
 * client capabilities it received — from `initialize` on 2025-11-25, from the request's own envelope
 * on 2026-07-28 — a requestor-only connection (`requestorSides`) declares no sampling, elicitation
 * or tasks, and a connection with the receiver's side (`hostSides`) declares sampling and elicitation, and
 * on 2025-11-25 the tasks for them (a 2026-07-28 envelope has no `tasks`: that revision's capabilities
 * dropped the word, hostClient.ts).
 * Needs `node esbuild.mjs` first.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { VersionNegotiationMode } from '@modelcontextprotocol/client';
import { McpConnection } from '../../../src/core/connection/connection.js';
import { hostSides, requestorSides } from '../../../src/core/requestor/hostSides.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { MemoryLog, ScriptedResponders, fixture, stdioDefinition, textOf } from '../../helpers/host.js';

const TIMEOUT = { timeout: 60_000 };
const ERAS: ReadonlyArray<{ readonly name: string; readonly era: 'legacy' | 'modern'; readonly negotiation: VersionNegotiationMode }> = [
  { name: '2025-11-25', era: 'legacy', negotiation: 'legacy' },
  { name: '2026-07-28', era: 'modern', negotiation: { pin: '2026-07-28' } },
];

describe('R-CAP-1: each side declares its own capabilities', () => {
  const owned: Array<{ dispose(): void }> = [];
  after(() => {
    for (const d of owned) d.dispose();
  });

  async function received(id: string, negotiation: VersionNegotiationMode, withReceiver: boolean): Promise<{ era: string; capabilities: Record<string, unknown> }> {
    const ledger = new TaskLedger({});
    owned.push(ledger);
    const sides = withReceiver ? hostSides(ledger, new ScriptedResponders()) : requestorSides();
    const connection = new McpConnection(stdioDefinition(id, process.execPath, [fixture('capabilitiesServer')]), {
      sides,
      log: new MemoryLog(),
      versionNegotiation: negotiation,
      variables: { env: process.env, workspaceFolder: process.cwd() },
    });
    owned.push(connection);
    await connection.start();
    const result = await connection.client.callTool({ name: 'client_capabilities', arguments: {} }, { timeout: 20_000 });
    return JSON.parse(textOf(result)) as { era: string; capabilities: Record<string, unknown> };
  }

  for (const { name, era, negotiation } of ERAS) {
    test(`${name}: a requestor-only connection declares no sampling, elicitation or tasks`, TIMEOUT, async () => {
      const got = await received(`caps-requestor-${era}`, negotiation, false);
      assert.equal(got.era, era, 'the server saw the revision asked for');
      assert.ok(got.capabilities && typeof got.capabilities === 'object', JSON.stringify(got));
      for (const key of ['sampling', 'elicitation', 'tasks']) assert.equal(got.capabilities[key], undefined, `${key} must not be declared: ${JSON.stringify(got.capabilities)}`);
    });

    test(`${name}: a connection with the receiver's side declares sampling, elicitation${era === 'legacy' ? ' and the tasks for them' : ', and no 2025 tasks capability'}`, TIMEOUT, async () => {
      const got = await received(`caps-receiver-${era}`, negotiation, true);
      assert.equal(got.era, era);
      assert.deepEqual(got.capabilities.sampling, {});
      assert.deepEqual(got.capabilities.elicitation, { form: {}, url: {} });
      if (era === 'legacy') {
        const tasks = got.capabilities.tasks as { requests?: Record<string, unknown> } | undefined;
        assert.deepEqual(tasks?.requests, { sampling: { createMessage: {} }, elicitation: { create: {} } }, JSON.stringify(got.capabilities));
      } else {
        assert.equal(got.capabilities.tasks, undefined, `2026-07-28 capabilities have no tasks: ${JSON.stringify(got.capabilities)}`);
      }
    });
  }
});
