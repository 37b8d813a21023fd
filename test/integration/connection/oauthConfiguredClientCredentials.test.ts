/**
 * Issue 13, client credentials configured in mcp.json: a server whose `"oauth"` block names a
 * client id and a `${input:…}` (password) client secret connects to the OAuth fixture
 * (test/fixtures/oauthServer.ts) through the same auth factory as the extension and the
 * headless client — no browser, no sign-in — and the trace log holds neither the secret nor
 * the access token. A wrong secret ends in a readable state, still without a browser.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ServerRegistry } from '../../../src/core/connection/registry.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { parseMcpConfig, type InputDefinition } from '../../../src/core/config/config.js';
import { MemorySecretStore } from '../../../src/core/connection/auth/secretStore.js';
import { serverAuthFor } from '../../../src/core/connection/auth/authFactory.js';
import { CC_CLIENT_ID, CC_CLIENT_SECRET, serveOAuthFixture, type OAuthFixture } from '../../fixtures/oauthServer.js';
import { MemoryLog, ScriptedResponders, textOf, waitFor } from '../../helpers/host.js';

let fx: OAuthFixture;
before(async () => {
  fx = await serveOAuthFixture();
});
after(async () => {
  await fx?.close();
});

function host(secret: string, issuer = fx.authServerUrl) {
  const log = new MemoryLog();
  const asked: InputDefinition[] = [];
  const opened: URL[] = [];
  const ledger = new TaskLedger();
  const registry = new ServerRegistry({
    ledger,
    responders: new ScriptedResponders(),
    logFor: () => log,
    variablesFor: () => ({ env: process.env, input: async (i) => (asked.push(i), secret) }),
    restart: { maxCrashes: 1 },
    authFor: (def) => serverAuthFor(def, { store: new MemorySecretStore(), clientName: 'mcp-tasks-test', openBrowser: async (url) => void opened.push(url) }),
  });
  const { servers, problems } = parseMcpConfig(
    { kind: 'workspace', file: '/ws/.vscode/mcp.json', folder: '/ws' },
    JSON.stringify({
      inputs: [{ type: 'promptString', id: 'cc-secret', description: 'Client secret', password: true }],
      servers: { protected: { type: 'http', url: fx.url, oauth: { issuer, clientCredentials: { clientId: CC_CLIENT_ID, clientSecret: '${input:cc-secret}' }, scope: 'mcp:tools' } } },
    }),
  );
  assert.deepEqual(problems, []);
  return {
    log,
    asked,
    opened,
    async start() {
      await registry.setDefinitions(servers);
      const c = registry.get('protected')!;
      await waitFor(c.onDidChangeState, () => c.state.kind === 'running' || c.state.kind === 'error' || c.state.kind === 'needs-sign-in', 'started');
      return c;
    },
    dispose() {
      registry.dispose();
      ledger.dispose();
    },
  };
}

describe('client credentials from mcp.json ("oauth" block)', () => {
  test('connects with client credentials: no browser, the secret from a password input, nothing secret in the trace log', async () => {
    const h = host(CC_CLIENT_SECRET);
    try {
      const before = fx.provider.counters.clientCredentials;
      const c = await h.start();
      assert.equal(c.state.kind, 'running', JSON.stringify(c.state));
      assert.match(textOf(await c.client.callTool({ name: 'whoami', arguments: {} })), new RegExp(`client ${CC_CLIENT_ID} with scopes mcp:tools`));
      assert.equal(fx.provider.counters.clientCredentials, before + 1, 'one client_credentials token request');
      assert.deepEqual(h.asked.map((i) => i.id), ['cc-secret'], 'the secret came from the input');
      assert.deepEqual(h.opened, [], 'no browser');

      const tokens = [...fx.provider.access.keys()];
      assert.ok(tokens.length > 0);
      assert.ok(h.log.lines.some((l) => l.startsWith('trace ')), 'the log has trace lines to look at');
      // Whatever writes them (a server echoing a request, an error quoting a body), the server's log knows both.
      c.log.trace(`echo ${CC_CLIENT_SECRET} ${tokens.join(' ')} ${JSON.stringify({ quoted: CC_CLIENT_SECRET })}`);
      assert.match(h.log.lines.at(-1)!, /^trace echo \[redacted\]/);
      for (const s of [CC_CLIENT_SECRET, ...tokens]) for (const l of h.log.lines) assert.ok(!l.includes(s), `secret in log line: ${l.slice(0, 200)}`);
    } finally {
      h.dispose();
    }
  });

  test('a wrong client secret: a readable failure, no browser, the wrong secret not logged either', async () => {
    const wrong = 'wrong-secret-0c1d2e3f4a5b';
    const h = host(wrong);
    try {
      const c = await h.start();
      assert.notEqual(c.state.kind, 'running');
      assert.deepEqual(h.opened, [], 'no browser');
      assert.equal(c.state.kind, 'error');
      if (c.state.kind === 'error') assert.match(c.state.message, /"protected" failed to start: the authorization server answered "invalid_client" \(the client id or its secret\/key was refused\)/);
      for (const l of h.log.lines) assert.ok(!l.includes(wrong), `secret in log line: ${l.slice(0, 200)}`);
    } finally {
      h.dispose();
    }
  });

  test('the server names another authorization server than "issuer": the secret is not sent there', async () => {
    const h = host(CC_CLIENT_SECRET, 'https://auth.elsewhere.example/');
    try {
      const before = fx.provider.counters.clientCredentials;
      const c = await h.start();
      assert.notEqual(c.state.kind, 'running');
      assert.equal(fx.provider.counters.clientCredentials, before, 'no token request reached the advertised authorization server');
      assert.equal(c.state.kind, 'error');
      if (c.state.kind === 'error') assert.match(c.state.message, /bound to authorization server https:\/\/auth\.elsewhere\.example\//);
      assert.deepEqual(h.opened, [], 'no browser');
      for (const l of h.log.lines) assert.ok(!l.includes(CC_CLIENT_SECRET), `secret in log line: ${l.slice(0, 200)}`);
    } finally {
      h.dispose();
    }
  });
});
