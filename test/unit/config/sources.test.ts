// Which sources this extension reads, and when both hosts may start a server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMcpConfig } from '../../../src/core/config/config.js';
import { parseServerSources, serversBothHostsMayStart, vsCodeMcpActive } from '../../../src/core/config/sources.js';

const ws = parseMcpConfig({ kind: 'workspace', file: '/w/.vscode/mcp.json', folder: '/w' }, JSON.stringify({ servers: { s: { command: 'node' }, h: { url: 'http://x/mcp' } } })).servers;
const user = parseMcpConfig({ kind: 'user', file: 'settings' }, { servers: { u: { command: 'node' } } }).servers;

test('mcpTasks.serverSources: both by default; anything else invalid reads as both', () => {
  assert.equal(parseServerSources(undefined), 'both');
  assert.equal(parseServerSources('userSettings'), 'userSettings');
  assert.equal(parseServerSources('workspaceFile'), 'workspaceFile');
  assert.equal(parseServerSources('nonsense'), 'both');
});

test("VS Code's MCP support: absent, off, or on", () => {
  assert.equal(vsCodeMcpActive({}), false, 'a VS Code without the setting');
  assert.equal(vsCodeMcpActive({ enabled: false }), false);
  assert.equal(vsCodeMcpActive({ access: 'none' }), false);
  assert.equal(vsCodeMcpActive({ enabled: true, aiDisabled: true }), false);
  assert.equal(vsCodeMcpActive({ enabled: true }), true);
  assert.equal(vsCodeMcpActive({ access: 'all' }), true);
});

test('only workspace stdio servers can run twice, and only when this extension reads the file', () => {
  const defs = [...ws, ...user];
  assert.deepEqual(serversBothHostsMayStart(defs, 'both', { enabled: true }).map((d) => d.name), ['s']);
  assert.deepEqual(serversBothHostsMayStart(defs, 'workspaceFile', { access: 'all' }).map((d) => d.name), ['s']);
  assert.deepEqual(serversBothHostsMayStart(defs, 'userSettings', { enabled: true }), []);
  assert.deepEqual(serversBothHostsMayStart(defs, 'both', { enabled: false }), []);
});
