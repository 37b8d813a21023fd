import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assignUniqueIds, definitionFingerprint, definitionKey, formatProblem, parseEnvFile, parseMcpConfig, resolveTransport, type ConfigSource } from '../../../src/core/config/config.js';
import { readSettings, readUserSettings } from '../../../src/core/config/settings.js';
import type { InspectedSetting } from '../../../src/core/config/trust.js';
import { z } from 'zod';

const SRC: ConfigSource = { kind: 'workspace', file: '/ws/.vscode/mcp.json', folder: '/ws' };

describe('mcp.json parsing', () => {
  test('reads stdio and http servers in VS Code’s format (JSONC: comments, trailing commas)', () => {
    const text = `{
      // servers
      "inputs": [{ "type": "promptString", "id": "key", "description": "API key", "password": true }],
      "servers": {
        "local": { "type": "stdio", "command": "node", "args": ["s.js"], "env": { "A": "1", "N": 2, "X": null }, "envFile": "\${workspaceFolder}/.env", "cwd": "/tmp" },
        "remote": { "type": "http", "url": "http://127.0.0.1:3000/mcp", "headers": { "Authorization": "Bearer \${input:key}" } },
        "inferred": { "command": "python3" },
        "legacySse": { "type": "sse", "url": "http://127.0.0.1:3001/sse" },
      },
    }`;
    const { servers, problems } = parseMcpConfig(SRC, text);
    assert.deepEqual(problems, []);
    assert.deepEqual(servers.map((s) => s.name), ['local', 'remote', 'inferred', 'legacySse']);
    assert.deepEqual(servers[0]!.transport, { type: 'stdio', command: 'node', args: ['s.js'], env: { A: '1', N: '2', X: null }, envFile: '${workspaceFolder}/.env', cwd: '/tmp' });
    assert.equal(servers[1]!.transport.type, 'http');
    assert.equal(servers[2]!.transport.type, 'stdio');
    assert.equal(servers[0]!.inputs[0]!.id, 'key');
  });

  test('a broken file gives one readable problem naming the file and where', () => {
    const { servers, problems } = parseMcpConfig(SRC, '{ "servers": { "a": { "command": "x" } ');
    assert.equal(servers.length, 0);
    assert.equal(problems.length, 1);
    assert.match(formatProblem(problems[0]!), /^\/ws\/\.vscode\/mcp\.json: not valid JSON: .* at line 1, column \d+$/);
  });

  test('a broken entry names the key; every other server is still returned', () => {
    const { servers, problems } = parseMcpConfig(
      SRC,
      JSON.stringify({ servers: { good: { command: 'node' }, bad: { type: 'stdio', command: 42 }, worse: { type: 'carrier-pigeon' }, empty: {}, good2: { url: 'http://x' } } }),
    );
    assert.deepEqual(servers.map((s) => s.name), ['good', 'good2']);
    assert.deepEqual(
      problems.map((p) => p.key),
      ['servers.bad.command', 'servers.worse.type', 'servers.empty'],
    );
    assert.match(problems[1]!.message, /unknown server type "carrier-pigeon"/);
    assert.match(formatProblem(problems[0]!), /mcp\.json: "servers\.bad\.command": /);
  });

  test('wrong top-level shapes are reported, not thrown', () => {
    assert.equal(parseMcpConfig(SRC, '[]').problems[0]!.message, 'expected an object with a "servers" map');
    assert.equal(parseMcpConfig(SRC, '{"servers": []}').problems[0]!.key, 'servers');
    assert.equal(parseMcpConfig(SRC, '{"inputs": 3, "servers": {}}').problems[0]!.key, 'inputs');
    assert.deepEqual(parseMcpConfig(SRC, ''), { servers: [], problems: [] });
  });

  test('a key beside "servers" (a server written outside it) is reported with its line; the servers inside still load', () => {
    const text = `{
  "servers": {
    "inside": { "command": "node" }
  },
  // a brace closed too early:
  "outside": { "command": "python3", "args": ["s.py"] },
  "sevrers": 1,
  "$schema": "https://example.com/mcp.schema.json"
}`;
    const parsed = parseMcpConfig(SRC, text);
    assert.deepEqual(parsed.servers.map((s) => s.name), ['inside']);
    assert.deepEqual(
      parsed.problems.map((p) => [formatProblem(p), p.position?.line, p.misplaced]),
      [
        ['/ws/.vscode/mcp.json: "outside": is outside "servers" (line 6) and is ignored: move this server inside "servers"', 6, true],
        ['/ws/.vscode/mcp.json: "sevrers": is not an mcp.json key (line 7) and is ignored (the file has "servers" and "inputs")', 7, true],
      ],
    );
    // The file's own keys are no problem.
    assert.deepEqual(parseMcpConfig(SRC, '{ "$schema": "x", "inputs": [], "servers": {} }').problems, []);
  });

  test('the user setting in the same shape (an object, not text)', () => {
    const { servers } = parseMcpConfig({ kind: 'user', file: 'Settings' }, { servers: { s: { url: 'http://h/mcp' } } });
    assert.equal(servers[0]!.source.kind, 'user');
  });

  test('clashing names across folders get unique ids', () => {
    const a = parseMcpConfig({ kind: 'workspace', file: '/a/.vscode/mcp.json', folder: '/a' }, '{"servers":{"s":{"command":"x"}}}').servers;
    const b = parseMcpConfig({ kind: 'workspace', file: '/b/.vscode/mcp.json', folder: '/b' }, '{"servers":{"s":{"command":"x"},"t":{"command":"y"}}}').servers;
    assert.deepEqual(assignUniqueIds([...a, ...b]).map((d) => d.id), ['a:s', 'b:s', 't']);
  });
});

describe('server ids a server name cannot forge', () => {
  const USER: ConfigSource = { kind: 'user', file: 'Settings (mcpTasks.servers)' };
  const REPO: ConfigSource = { kind: 'workspace', file: '/w/repo/.vscode/mcp.json', folder: '/w/repo' };
  const servers = (source: ConfigSource, names: string[]) => parseMcpConfig(source, { servers: Object.fromEntries(names.map((n) => [n, { command: 'x' }])) }).servers;
  const idOf = (defs: ReturnType<typeof assignUniqueIds>, source: ConfigSource, name: string) => defs.find((d) => d.source === source && d.name === name)?.id;

  test('the user\'s server keeps its id, whatever a workspace defines: no workspace server takes it or renames it', () => {
    const alone = assignUniqueIds(servers(USER, ['github']));
    assert.equal(idOf(alone, USER, 'github'), 'github');
    // The workspace comes first in the list (as the extension reads it) and tries every spelling.
    const forged = assignUniqueIds([...servers(REPO, ['github', 'user/github', 'repo:github', 'github#2', 'repo/github']), ...servers(USER, ['github'])]);
    assert.equal(idOf(forged, USER, 'github'), 'github', 'same id as before the workspace defined anything');
    const ids = forged.map((d) => d.id);
    assert.equal(new Set(ids).size, ids.length, `unique: ${ids.join(', ')}`);
    assert.equal(ids.filter((id) => id === 'github').length, 1);
    assert.equal(idOf(forged, REPO, 'github'), 'repo:github');
    assert.equal(idOf(forged, REPO, 'repo:github'), 'repo%3Agithub', 'a name cannot spell the qualified id of another');
  });

  test('no id contains "/", so the task keys <serverId>/<taskId> of two servers never collide', () => {
    const defs = assignUniqueIds([...servers(REPO, ['a', 'a/b', 'a%2Fb']), ...servers(USER, ['a/b'])]);
    for (const d of defs) assert.ok(!d.id.includes('/'), d.id);
    const keys = new Set<string>();
    for (const d of defs) for (const taskId of ['x', 'b/x', '2Fb/x', 'a/b/x']) keys.add(`${d.id}/${taskId}`);
    assert.equal(keys.size, defs.length * 4, 'every (server, task) pair has its own key');
  });
});

describe('variable substitution', () => {
  test('${workspaceFolder}, ${env:…}, ${userHome} and ${input:…} (asked once per id)', async () => {
    const { servers } = parseMcpConfig(
      SRC,
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'tok' }],
        servers: {
          s: { command: '${workspaceFolder}/bin/${env:TOOL}', args: ['${input:tok}', '--home=${userHome}', '${input:tok}'], env: { T: '${input:tok}' } },
        },
      }),
    );
    let asked = 0;
    const t = await resolveTransport(servers[0]!, {
      workspaceFolder: '/ws',
      userHome: '/home/u',
      env: { TOOL: 'srv' },
      input: async () => (asked++, 'secret'),
    });
    assert.deepEqual(t, { type: 'stdio', command: '/ws/bin/srv', args: ['secret', '--home=/home/u', 'secret'], env: { T: 'secret' }, envFile: undefined, cwd: '/ws' }, 'no cwd: the workspace folder of the server (never the host\'s working directory)');
    assert.equal(asked, 1);
  });

  test('an undeclared input names the server and the file', async () => {
    const { servers } = parseMcpConfig(SRC, JSON.stringify({ servers: { s: { url: 'http://x/${input:nope}' } } }));
    await assert.rejects(resolveTransport(servers[0]!, { env: {}, input: async () => 'x' }), /input:nope.*server "s".*\/ws\/\.vscode\/mcp\.json/);
  });

  test('envFile syntax', () => {
    assert.deepEqual(parseEnvFile('# c\nA=1\nexport B = "two words"\nC=\'x y\'\nD=v # trailing\nbad line\n'), { A: '1', B: 'two words', C: 'x y', D: 'v' });
  });
});

describe('settings', () => {
  test('valid values are taken; an invalid one falls back to its default and is reported by key', () => {
    const values: Record<string, unknown> = { 'receiver.maxTtlMs': 5000, 'receiver.listPageSize': -3, 'requestor.optionalToolsAsTasks': 'yes' };
    const { settings, problems } = readSettings((k) => values[k]);
    assert.equal(settings['receiver.maxTtlMs'], 5000);
    assert.equal(settings['receiver.listPageSize'], 50);
    assert.equal(settings['requestor.optionalToolsAsTasks'], true);
    assert.deepEqual(problems.map((p) => p.key).sort(), ['mcpTasks.receiver.listPageSize', 'mcpTasks.requestor.optionalToolsAsTasks']);
  });

  test('a refused value is reported in English, whatever zod configuration another extension set in the host', () => {
    const values: Record<string, unknown> = {
      'receiver.listPageSize': 5000,
      'requestor.maxConcurrentTasksPerServer': -1,
      'requestor.ttlMs': 1.5,
      'requestor.optionalToolsAsTasks': 'yes',
      'prompts.open': 'sometimes',
      'sampling.modelByServer': [],
      'serverHost.excludedServers': ['x'.repeat(300)],
    };
    // zod's configuration is global to the extension host (every copy of zod reads it).
    z.config({ customError: () => "another extension's message" });
    try {
      const { problems } = readSettings((k) => values[k]);
      assert.deepEqual(Object.fromEntries(problems.map((p) => [p.key, p.message])), {
        'mcpTasks.receiver.listPageSize': 'Too big: expected number to be <=1000 (using the default)',
        'mcpTasks.requestor.maxConcurrentTasksPerServer': 'Too small: expected number to be >=0 (using the default)',
        'mcpTasks.requestor.ttlMs': 'Invalid input: expected int, received number (using the default)',
        'mcpTasks.requestor.optionalToolsAsTasks': 'Invalid input: expected boolean, received string (using the default)',
        'mcpTasks.prompts.open': 'Invalid option: expected one of "notify"|"immediately" (using the default)',
        'mcpTasks.sampling.modelByServer': 'Invalid input: expected record, received array (using the default)',
        'mcpTasks.serverHost.excludedServers': 'Too big: expected string to have <=256 characters (using the default)',
      });
    } finally {
      z.config({ customError: undefined });
    }
  });

  test('only the user\'s own values count: a workspace or folder value (limits, the model behind "Always allow", prompts) is ignored and named', () => {
    const inspected: Record<string, InspectedSetting> = {
      'receiver.operationsPerSecond': { globalValue: 50, workspaceValue: 100_000 },
      'sampling.modelByServer': { workspaceFolderValue: { demo: 'expensive-model' } },
      'prompts.open': { workspaceValue: 'immediately' },
      'requestor.maxStoredTasks': { globalValue: 300 },
    };
    const { settings, problems, ignored } = readUserSettings((k) => inspected[k]);
    assert.equal(settings['receiver.operationsPerSecond'], 50, 'the user value, not the workspace one');
    assert.deepEqual(settings['sampling.modelByServer'], {});
    assert.equal(settings['prompts.open'], 'notify');
    assert.equal(settings['requestor.maxStoredTasks'], 300);
    assert.deepEqual(problems, []);
    assert.deepEqual(ignored.sort(), ['mcpTasks.prompts.open', 'mcpTasks.receiver.operationsPerSecond', 'mcpTasks.sampling.modelByServer']);
  });
});

describe('adding a server to mcp.json', () => {
  test('keeps comments and other servers; a broken file is refused, not overwritten', async () => {
    const { addServerToConfigText } = await import('../../../src/core/config/config.js');
    const text = '{\n  // my servers\n  "servers": {\n    "a": { "command": "x" }, // keep me\n  }\n}\n';
    const out = addServerToConfigText(text, 'b', { type: 'http', url: 'http://127.0.0.1:1/mcp' });
    assert.match(out, /\/\/ my servers/);
    assert.match(out, /\/\/ keep me/);
    assert.deepEqual(parseMcpConfig(SRC, out).servers.map((s) => s.name), ['a', 'b']);
    assert.deepEqual(parseMcpConfig(SRC, addServerToConfigText('', 'c', { command: 'y' })).servers.map((s) => s.name), ['c']);
    assert.throws(() => addServerToConfigText('{ "servers": ', 'd', { command: 'z' }), /not a valid JSON object; fix it first/);
  });
});

describe('definition identity', () => {
  const a: ConfigSource = { kind: 'workspace', file: '/w1/.vscode/mcp.json', folder: '/w1' };
  const b: ConfigSource = { kind: 'workspace', file: '/w2/.vscode/mcp.json', folder: '/w2' };
  const def = (source: ConfigSource, text: string) => parseMcpConfig(source, text).servers[0]!;
  const text = '{ "servers": { "demo": { "command": "node", "args": ["x.js"] } } }';

  test('the same name in two files has two identities', () => {
    assert.notEqual(definitionKey(def(a, text)), definitionKey(def(b, text)));
    assert.notEqual(definitionFingerprint(def(a, text)), definitionFingerprint(def(b, text)));
  });

  test('the key survives an edit of the definition; the fingerprint does not', () => {
    const edited = '{ "servers": { "demo": { "command": "node", "args": ["y.js"] } } }';
    assert.equal(definitionKey(def(a, text)), definitionKey(def(a, edited)));
    assert.notEqual(definitionFingerprint(def(a, text)), definitionFingerprint(def(a, edited)));
  });

  test('the fingerprint ignores key order and formatting', () => {
    const reordered = '{ "servers": { "demo": { "args": ["x.js"], "command": "node" } } }';
    assert.equal(definitionFingerprint(def(a, text)), definitionFingerprint(def(a, reordered)));
  });
});
