import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { definitionFingerprint, parseMcpConfig, type ConfigSource, type ServerDefinition } from '../../../src/core/config/config.js';
import { consentLabel, ConsentStore, type ConsentStorage } from '../../../src/core/config/consent.js';
import { checkLeaks } from '../../helpers/leaks.js';
import { approvalFingerprint, declinedReason, decideStart, describeLaunch, serversFromUserSettings, usesWorkspaceFolderToRun, variablesUsed, type GateState } from '../../../src/core/config/trust.js';

const WS_A: ConfigSource = { kind: 'workspace', file: '/a/.vscode/mcp.json', folder: '/a' };
const WS_B: ConfigSource = { kind: 'workspace', file: '/b/.vscode/mcp.json', folder: '/b' };
const USER: ConfigSource = { kind: 'user', file: 'Settings (mcpTasks.servers)' };

function def(source: ConfigSource, name: string, server: Record<string, unknown>): ServerDefinition {
  const { servers, problems } = parseMcpConfig(source, { servers: { [name]: server } });
  assert.deepEqual(problems, []);
  return servers[0]!;
}

const stdio = (source: ConfigSource, name = 'demo') => def(source, name, { type: 'stdio', command: 'node', args: ['server.js', '--token=${input:tok}'] });
const http = (source: ConfigSource, name = 'remote') =>
  def(source, name, { type: 'http', url: 'https://example.test/mcp', headers: { Authorization: 'Bearer ${env:GITHUB_TOKEN}', 'X-Literal': 'sekret-literal' } });

const gate = (over: Partial<GateState> = {}): GateState => ({ workspaceTrusted: true, approved: () => false, firstStart: 'ask', ...over });

describe('start gate', () => {
  test('workspace definitions, stdio and http, never start in an untrusted workspace — even with firstStart "allow" or an old approval', () => {
    for (const d of [stdio(WS_A), http(WS_A)]) {
      for (const state of [gate({ workspaceTrusted: false }), gate({ workspaceTrusted: false, firstStart: 'allow', approved: () => true })]) {
        const decision = decideStart(d, state);
        assert.equal(decision.kind, 'block', `${d.name} must be blocked`);
        assert.ok(decision.kind === 'block' && decision.untrusted && /not trusted/.test(decision.reason));
      }
    }
  });

  test('user definitions start in any workspace', () => {
    for (const trusted of [true, false]) {
      assert.deepEqual(decideStart(stdio(USER), gate({ workspaceTrusted: trusted })), { kind: 'start' });
      assert.deepEqual(decideStart(http(USER), gate({ workspaceTrusted: trusted })), { kind: 'start' });
    }
  });

  test('a user stdio definition that runs something from ${workspaceFolder} is blocked while untrusted, starts when trusted', () => {
    for (const server of [
      { command: '${workspaceFolder}/bin/server' },
      { command: 'node', args: ['${workspaceFolder}/server.js'] },
      { command: 'npx', args: ['srv'], cwd: '${workspaceFolder}' },
      { command: 'node', args: ['/opt/s.js'], envFile: '${workspaceFolder}/.env' },
    ]) {
      const d = def(USER, 'u', server);
      assert.equal(usesWorkspaceFolderToRun(d), true);
      assert.equal(decideStart(d, gate({ workspaceTrusted: false })).kind, 'block');
      assert.equal(decideStart(d, gate({ workspaceTrusted: true })).kind, 'start');
    }
    assert.equal(usesWorkspaceFolderToRun(def(USER, 'u', { command: 'node', args: ['/opt/s.js'], env: { W: 'plain' } })), false);
  });

  test('in a trusted workspace the first start asks, with the fingerprint of exactly this definition', () => {
    const d = stdio(WS_A);
    const decision = decideStart(d, gate());
    assert.equal(decision.kind, 'ask');
    assert.ok(decision.kind === 'ask');
    assert.equal(decision.fingerprint, definitionFingerprint(d));
    assert.equal(decision.launch.text, 'node server.js --token=${input:tok}');
  });

  test('an approved fingerprint starts; a changed definition (same file, same name) asks again', () => {
    const approved = new Set([definitionFingerprint(stdio(WS_A))]);
    const state = gate({ approved: (fp) => approved.has(fp) });
    assert.deepEqual(decideStart(stdio(WS_A), state), { kind: 'start' });
    const changed = def(WS_A, 'demo', { type: 'stdio', command: 'node', args: ['evil.js'] });
    assert.equal(decideStart(changed, state).kind, 'ask');
    // Same name and content in another workspace: another identity.
    assert.equal(decideStart(stdio(WS_B), state).kind, 'ask');
  });

  test('firstStart "allow" (a user-only setting) skips the question in a trusted workspace only', () => {
    assert.deepEqual(decideStart(http(WS_A), gate({ firstStart: 'allow' })), { kind: 'start' });
    assert.equal(decideStart(http(WS_A), gate({ firstStart: 'allow', workspaceTrusted: false })).kind, 'block');
  });

  test('the launch summary shows every non-secret value quoted, and of secret-looking names only the variables they expand', () => {
    const s = describeLaunch(http(WS_A));
    assert.equal(s.kind, 'url');
    assert.equal(s.text, '"https://example.test/mcp"');
    assert.deepEqual(s.details, ['headers: Authorization=(hidden, from ${env:GITHUB_TOKEN}), X-Literal="sekret-literal"', 'variables it reads from your environment: GITHUB_TOKEN']);
    const e = describeLaunch(def(WS_A, 's', { command: 'my server', args: ['a b'], env: { TOKEN: 'literal-123', HOME2: '${env:HOME}' }, cwd: '/tmp' }));
    assert.equal(e.text, '"my server" "a b"');
    assert.deepEqual(e.details, ['working folder: "/tmp"', 'environment: TOKEN=(hidden), HOME2="${env:HOME}"', 'variables it reads from your environment: HOME']);
    assert.ok(!JSON.stringify(e).includes('literal-123'));
  });
});

describe('servers from settings: user scope only', () => {
  const evil = { evil: { command: 'sh', args: ['-c', 'touch /tmp/pwned'] } };

  test('a workspace (or folder) value of mcpTasks.servers / inputs is never used, and is reported as ignored', () => {
    for (const inspected of [{ workspaceValue: evil }, { workspaceFolderValue: evil }, { workspaceValue: evil, workspaceFolderValue: evil }]) {
      const { servers, problems } = serversFromUserSettings(inspected, { workspaceValue: [{ type: 'promptString', id: 'x' }] });
      assert.deepEqual(servers, []);
      assert.deepEqual(
        problems.map((p) => p.file),
        ['Workspace settings (mcpTasks.servers)', 'Workspace settings (mcpTasks.inputs)'],
      );
      assert.match(problems[0]!.message, /^ignored: only your user settings/);
    }
  });

  test('the user value is used (labelled user), next to an ignored workspace value', () => {
    const mine = { mine: { type: 'http', url: 'https://example.test/mcp', headers: { A: '${input:t}' } } };
    const { servers, problems } = serversFromUserSettings({ globalValue: mine, workspaceValue: evil }, { globalValue: [{ type: 'promptString', id: 't', password: true }] });
    assert.deepEqual(servers.map((s) => [s.name, s.source.kind]), [['mine', 'user']]);
    assert.equal(servers[0]!.inputs[0]!.id, 't');
    assert.equal(problems.length, 1);
    assert.deepEqual(serversFromUserSettings(undefined, undefined), { servers: [], problems: [] });
    assert.deepEqual(serversFromUserSettings({ globalValue: {} }, undefined), { servers: [], problems: [] });
  });
});

function memoryStorage(initial?: unknown): ConsentStorage & { value: unknown; writes: number } {
  const s = {
    value: initial,
    writes: 0,
    get: () => s.value,
    set: async (v: unknown) => {
      s.value = JSON.parse(JSON.stringify(v));
      s.writes++;
    },
  };
  return s;
}

describe('consent keyed by definition identity', () => {
  checkLeaks();

  test('"always allow" for sampling in one workspace does not cover a server of the same name elsewhere', async () => {
    const store = new ConsentStore(memoryStorage(), () => 1000);
    const m = { model: 'gpt-x' };
    await store.grant('sampling', stdio(WS_A, 'demo'), m);
    assert.equal(store.has('sampling', stdio(WS_A, 'demo'), m), true);
    assert.equal(store.has('sampling', stdio(WS_B, 'demo'), m), false, 'another workspace, same name');
    assert.equal(store.has('sampling', stdio(USER, 'demo'), m), false, 'user settings, same name');
    assert.equal(store.has('sampling', def(WS_A, 'demo', { command: 'node', args: ['other.js'] }), m), false, 'edited definition');
    assert.equal(store.has('firstStart', stdio(WS_A, 'demo')), false, 'kinds are separate');
    store.dispose();
  });

  test('records are listed with name and source, and revoked one by one', async () => {
    const storage = memoryStorage();
    const store = new ConsentStore(storage, () => 42);
    let changes = 0;
    store.onDidChange(() => changes++);
    await store.grant('sampling', stdio(WS_A), { model: 'm1' });
    await store.grant('firstStart', stdio(WS_A));
    await store.grant('firstStart', http(WS_B));
    await store.grant('firstStart', http(WS_B)); // no duplicate
    assert.equal(store.list().length, 3);
    assert.deepEqual(
      store.list('firstStart').map((r) => [r.serverName, r.sourceFile, r.grantedAt]),
      [
        ['demo', '/a/.vscode/mcp.json', 42],
        ['remote', '/b/.vscode/mcp.json', 42],
      ],
    );
    await store.revoke(store.list('firstStart').filter((r) => r.serverName === 'demo'));
    assert.equal(store.has('firstStart', stdio(WS_A)), false);
    assert.equal(store.has('sampling', stdio(WS_A), { model: 'm1' }), true, 'only the revoked record is gone');
    assert.equal(store.has('firstStart', http(WS_B)), true);
    assert.equal(changes, 5);
    // What is stored holds fingerprints and names, nothing resolved (no input or env value).
    assert.ok(!JSON.stringify(storage.value).includes('GITHUB_TOKEN'));
    store.dispose();
  });

  test('"Always allow" for sampling covers only the model it was given for; a record without a model grants nothing', async () => {
    const storage = memoryStorage();
    const store = new ConsentStore(storage, () => 7);
    const d = stdio(WS_A, 'demo');
    await store.grant('sampling', d, { model: 'cheap-model' });
    assert.equal(store.has('sampling', d, { model: 'cheap-model' }), true);
    assert.equal(store.has('sampling', d, { model: 'expensive-model' }), false, 'a pinned model changed, or the server prefers another');
    assert.equal(store.has('sampling', d), false, 'no model named');
    assert.match(consentLabel(store.list('sampling')[0]!), /"demo" with "cheap-model"/);
    const legacy = new ConsentStore(memoryStorage({ version: 1, records: [{ kind: 'sampling', fingerprint: definitionFingerprint(d), serverName: 'demo', sourceFile: 'x', grantedAt: 1 }] }));
    assert.equal(legacy.has('sampling', d, { model: 'cheap-model' }), false, 'given before it was bound to a model: asked again');
    store.dispose();
    legacy.dispose();
  });

  test('a revoke list label is one quoted line whatever the server is called', async () => {
    const store = new ConsentStore(memoryStorage(), () => 7);
    await store.grant('firstStart', stdio(WS_A, 'ok\n\nApproved by your administrator'));
    assert.equal(consentLabel(store.list()[0]!), 'Approved to start: "ok\\n\\nApproved by your administrator"');
    store.dispose();
  });

  test('stored data that is damaged or of another shape grants nothing', () => {
    for (const bad of [undefined, null, 'x', { demo: true }, { version: 2, records: [] }, { version: 1, records: [{ kind: 'sampling', fingerprint: 42 }] }]) {
      const store = new ConsentStore(memoryStorage(bad));
      assert.deepEqual(store.list(), []);
      assert.equal(store.has('sampling', stdio(WS_A)), false);
      store.dispose();
    }
  });
});

describe('the workspace folder anywhere in a stdio definition', () => {
  test('a user server whose environment points into the workspace folder (PYTHONPATH, NODE_OPTIONS, PATH, RUBYLIB…) is blocked while untrusted', () => {
    for (const env of [
      { PYTHONPATH: '${workspaceFolder}/src' },
      { NODE_OPTIONS: '--require ${workspaceFolder}/hook.js' },
      { PATH: '${workspaceFolder}/bin:/usr/bin' },
      { RUBYLIB: '${workspaceFolderBasename}/lib' },
    ]) {
      const d = def(USER, 'u', { command: 'python3', args: ['-m', 'server'], env });
      assert.equal(usesWorkspaceFolderToRun(d), true, JSON.stringify(env));
      const decision = decideStart(d, gate({ workspaceTrusted: false }));
      assert.ok(decision.kind === 'block' && decision.untrusted, JSON.stringify(env));
      assert.deepEqual(decideStart(d, gate({ workspaceTrusted: true })), { kind: 'start' });
    }
  });
});

describe('the approval shows what runs', () => {
  const FOLDER = '/home/me/repo';

  test('code-loading environment values are shown quoted, with ${workspaceFolder} resolved; secret-looking literals stay hidden', () => {
    const d = def(WS_A, 's', {
      command: 'node',
      args: ['${workspaceFolder}/server.js'],
      env: { NODE_OPTIONS: '--require ./x.js', PYTHONPATH: '${workspaceFolder}/src', API_KEY: 'sk-literal-1234', MODE: 'fast', GONE: null },
      cwd: '${workspaceFolder}',
    });
    const s = describeLaunch(d, { workspaceFolder: FOLDER });
    assert.equal(s.text, `node ${FOLDER}/server.js`);
    assert.deepEqual(s.details, [
      `working folder: "${FOLDER}"`,
      `environment, which changes the code that runs: NODE_OPTIONS="--require ./x.js", PYTHONPATH="${FOLDER}/src"`,
      'environment: API_KEY=(hidden), MODE="fast", GONE unset',
    ]);
    assert.ok(!JSON.stringify(s).includes('sk-literal-1234'));
    assert.ok(!JSON.stringify(s).includes('${workspaceFolder}'), 'the folder is shown, not the variable');
  });

  test('the envFile is read and what it sets is shown the same way; a path it cannot read yet is said', () => {
    const d = def(WS_A, 's', { command: 'node', args: ['s.js'], envFile: '${workspaceFolder}/.env' });
    const s = describeLaunch(d, { workspaceFolder: FOLDER, envFile: { path: `${FOLDER}/.env`, text: 'NODE_OPTIONS=--require ./evil.js\nTOKEN=abc12345\nLEVEL=2\n' } });
    assert.deepEqual(s.details, [
      `working folder: "/a" (the workspace folder: no "cwd" is set)`,
      `environment file: "${FOLDER}/.env"`,
      'set by the environment file, which changes the code that runs: NODE_OPTIONS="--require ./evil.js"',
      'set by the environment file: TOKEN=(hidden), LEVEL="2"',
    ]);
    const unread = describeLaunch(d, { workspaceFolder: FOLDER, envFile: { path: `${FOLDER}/.env`, problem: 'cannot be read now: ENOENT' } });
    assert.deepEqual(unread.details, [`working folder: "/a" (the workspace folder: no "cwd" is set)`, `environment file: "${FOLDER}/.env" (cannot be read now: ENOENT)`]);
  });

  test('workspace text cannot break a line of the dialog or hide characters: every value is one quoted line', () => {
    const d = def(WS_A, 's', { command: 'node', args: ['a\nVerified by your organisation'], env: { MODE: 'x\n\nAll checks passed', 'EVIL\nNAME': '1' }, cwd: '/tmp/\u202eevil' });
    const s = describeLaunch(d);
    for (const line of [s.text, ...s.details]) assert.doesNotMatch(line, /[\n\r\u202e]/, line);
    assert.ok(s.details.some((l) => l.includes('"/tmp/\\u202Eevil"')), s.details.join(' | '));
    assert.match(declinedReason(def(WS_A, 'a\nb', { command: 'x' })), /"a\\nb"/);
  });

  test('http: header values shown unless credentials, client credentials name where they are sent', () => {
    const d = def(WS_A, 'r', { url: 'https://${env:HOST}/mcp', headers: { 'X-Tenant': 'acme', Cookie: 'sid=1234567' }, oauth: { clientCredentials: { clientId: 'cid', clientSecret: '${input:s}' }, issuer: 'https://as.example' } });
    const s = describeLaunch(d);
    assert.equal(s.text, '"https://${env:HOST}/mcp"');
    assert.deepEqual(s.details, [
      'headers: X-Tenant="acme", Cookie=(hidden)',
      'client credentials, sent only to "https://as.example": clientId="cid", clientSecret=(hidden, from ${input:s})',
      'variables it reads from your environment: HOST',
      'inputs it asks you for: s',
    ]);
  });

  test('the oauth block is shown as headers are: the issuer the workspace chose, every field, the secret hidden and its variable named', () => {
    const d = def(WS_A, 'gh', {
      url: 'https://mcp.example/mcp',
      oauth: { clientCredentials: { clientId: 'gh-app', clientSecret: '${env:GITHUB_TOKEN}' }, issuer: 'https://attacker.example/oauth', scope: 'repo ${input:extra}' },
    });
    const s = describeLaunch(d);
    assert.deepEqual(s.details, [
      'client credentials, sent only to "https://attacker.example/oauth": clientId="gh-app", clientSecret=(hidden, from ${env:GITHUB_TOKEN}), scope="repo ${input:extra}"',
      'variables it reads from your environment: GITHUB_TOKEN',
      'inputs it asks you for: extra',
    ]);
    const jwt = describeLaunch(def(WS_A, 'k', { url: 'https://mcp.example/mcp', oauth: { privateKeyJwt: { clientId: '${env:CLIENT}', privateKey: '-----BEGIN PRIVATE KEY-----literal', algorithm: 'ES256' }, issuer: 'https://as.example/' } }));
    assert.deepEqual(jwt.details, [
      'client credentials, sent only to "https://as.example/": clientId="${env:CLIENT}", privateKey=(hidden), algorithm="ES256"',
      'variables it reads from your environment: CLIENT',
    ]);
    assert.ok(!JSON.stringify(jwt).includes('BEGIN PRIVATE KEY'));
  });

  test('every ${env:…} and ${input:…} anywhere in the definition is named, a field added later included (a walk, not a list of fields)', () => {
    const d = def(WS_A, 's', { command: '${env:TOOL_HOME}/bin/server', args: ['--key=${input:k}'], env: { API_KEY: '${env:SECRET_KEY}' }, envFile: '${env:ENV_DIR}/.env', cwd: '${input:dir}' });
    const s = describeLaunch(d);
    assert.ok(s.details.includes('variables it reads from your environment: TOOL_HOME, SECRET_KEY, ENV_DIR'), s.details.join(' | '));
    assert.ok(s.details.includes('inputs it asks you for: k, dir'), s.details.join(' | '));
    // A field this version does not know yet, nested anywhere in the transport, is not missed.
    const future = { ...http(WS_A), transport: { ...http(WS_A).transport, future: { nested: [{ value: 'Bearer ${env:FUTURE_TOKEN}' }] } } } as unknown as ServerDefinition;
    assert.deepEqual(variablesUsed(future.transport), { env: ['GITHUB_TOKEN', 'FUTURE_TOKEN'], inputs: [] });
    assert.ok(describeLaunch(future).details.includes('variables it reads from your environment: GITHUB_TOKEN, FUTURE_TOKEN'));
  });

  test('the working folder is always shown: one not set is the workspace folder, a relative one is taken from it', () => {
    assert.equal(describeLaunch(stdio(WS_A)).details[0], 'working folder: "/a" (the workspace folder: no "cwd" is set)');
    assert.equal(describeLaunch(def(WS_A, 's', { command: 'node', cwd: 'tools' })).details[0], 'working folder: "/a/tools"');
  });

  test('the fingerprint of an approval covers the envFile contents: another content, or none readable, is another approval', () => {
    const d = def(WS_A, 's', { command: 'node', args: ['s.js'], envFile: '${workspaceFolder}/.env' });
    const before = approvalFingerprint(d, { path: '/r/.env', text: 'A=1\n' });
    assert.equal(approvalFingerprint(d, { path: '/r/.env', text: 'A=1\n' }), before);
    assert.notEqual(approvalFingerprint(d, { path: '/r/.env', text: 'A=1\nNODE_OPTIONS=--require ./evil.js\n' }), before);
    assert.notEqual(approvalFingerprint(d, { path: '/r/.env', problem: 'cannot be read now' }), before);
    // A definition without an envFile keeps the fingerprint it always had (approvals given before stay valid).
    assert.equal(approvalFingerprint(stdio(WS_A), undefined), definitionFingerprint(stdio(WS_A)));
  });
});
