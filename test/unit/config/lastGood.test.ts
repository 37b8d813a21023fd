// A half-typed mcp.json keeps the last good servers; the error has its position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMcpConfig } from '../../../src/core/config/config.js';
import { LastGoodConfig, serverPosition } from '../../../src/core/config/lastGood.js';

const source = { kind: 'workspace', file: '/ws/.vscode/mcp.json', folder: '/ws' } as const;
const good = JSON.stringify({ servers: { a: { command: 'node', args: ['a.js'] }, b: { url: 'http://127.0.0.1:1/mcp' } } }, null, 2);

test('a parse error keeps the last good servers of that file; the next good text replaces them', () => {
  const last = new LastGoodConfig();
  const first = last.apply(source.file, parseMcpConfig(source, good));
  assert.deepEqual(first.servers.map((s) => s.name), ['a', 'b']);
  assert.equal(first.keptLastGood, false);

  const halfTyped = good.replace('"b": {', '"b": {\n    "url": "http://127.0.0.1:2/mcp",\n    "hea');
  const broken = parseMcpConfig(source, halfTyped);
  assert.equal(broken.servers.length, 0);
  const p = broken.problems[0]!;
  assert.equal(p.unparsable, true);
  assert.deepEqual(p.position, { line: 11, column: 5 });
  assert.match(p.message, /not valid JSON: .* at line 11, column 5/);
  const kept = last.apply(source.file, broken);
  assert.equal(kept.keptLastGood, true);
  assert.deepEqual(kept.servers, first.servers, 'the very same definitions: nothing restarts');

  const fixed = last.apply(source.file, parseMcpConfig(source, good.replace('a.js', 'a2.js')));
  assert.equal(fixed.keptLastGood, false);
  assert.deepEqual(fixed.servers[0]!.transport.type === 'stdio' && fixed.servers[0]!.transport.args, ['a2.js']);
});

test('a file that never parsed has nothing to keep; a file that is gone is forgotten', () => {
  const last = new LastGoodConfig();
  assert.deepEqual(last.apply(source.file, parseMcpConfig(source, '{ "servers": {')), { servers: [], keptLastGood: false });
  last.apply(source.file, parseMcpConfig(source, good));
  last.retain(new Set());
  assert.deepEqual(last.apply(source.file, parseMcpConfig(source, '{ "servers": {')).servers, []);
});

test('a valid file with a bad entry is not "unparsable": its other servers are taken as they are', () => {
  const parsed = parseMcpConfig(source, JSON.stringify({ servers: { a: { command: 'node' }, bad: { type: 'ftp' } } }));
  assert.equal(parsed.problems[0]!.unparsable, undefined);
  assert.deepEqual(new LastGoodConfig().apply(source.file, parsed).servers.map((s) => s.name), ['a']);
});

test('serverPosition: the line and column of servers.<name>', () => {
  assert.deepEqual(serverPosition(good, 'b'), { line: 9, column: 5 });
  assert.equal(serverPosition(good, 'nope'), undefined);
});
