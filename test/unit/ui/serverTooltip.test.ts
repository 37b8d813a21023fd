/**
 * A server's tooltip in the Tasks view (src/ui/view/tasksTree.ts, `vscode` stubbed) names the MCP
 * revision its connection negotiated, and says so when it took up a session of before a reload.
 */
import '../../helpers/vscodeStub.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Continuity, ConnectionState } from '../../../src/core/connection/connection.js';
import { serverTooltip } from '../../../src/ui/view/serverPresentation.js';
import { definition } from '../../helpers/fakeTaskServer.js';

function connection(state: ConnectionState, continuity: Continuity = { kind: 'first' }) {
  return { name: 'demo', definition: definition('demo'), state, continuity };
}

test('a running server\'s tooltip names the negotiated revision, and a resumed session', () => {
  const modern = serverTooltip(connection({ kind: 'running', capabilities: {}, protocolVersion: '2026-07-28' })).value;
  assert.match(modern, /MCP 2026-07-28\n/);
  const resumed = serverTooltip(connection({ kind: 'running', capabilities: {}, protocolVersion: '2025-11-25' }, { kind: 'resumed' })).value;
  assert.match(resumed, /MCP 2025-11-25 \(session resumed after a reload\)/);
  assert.doesNotMatch(serverTooltip(connection({ kind: 'stopped' })).value, /MCP \d/, 'no revision while not running');
});
