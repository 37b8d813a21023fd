/**
 * Client credentials configured in mcp.json: a server whose `"oauth"` block names a
 * client id and a `${input:…}` (password) client secret connects to the OAuth fixture
 * (test/fixtures/oauthServer.ts) through the same auth factory as the extension and the
 * headless client — no browser, no sign-in — and the trace log holds neither the secret nor
 * the access token. A wrong secret ends in a readable state, still without a browser. The same
 * for private_key_jwt: a JWT client assertion signed with the key from mcp.json, verified by the
 * fixture with `jose` (RFC 7523); a wrong key is refused like a wrong secret.
 */
import { generateKeyPairSync } from 'node:crypto';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ServerRegistry } from '../../../src/core/connection/registry.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { parseMcpConfig, type InputDefinition } from '../../../src/core/config/config.js';
import { MemorySecretStore } from '../../../src/core/connection/auth/secretStore.js';
import { serverAuthFor } from '../../../src/core/connection/auth/authFactory.js';
import { CC_CLIENT_ID, CC_CLIENT_SECRET, PKJWT_CLIENT_ID, PKJWT_PRIVATE_KEY, serveOAuthFixture, type OAuthFixture } from '../../fixtures/oauthServer.js';
import { MemoryLog, ScriptedResponders, textOf, waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

let fx: OAuthFixture;
before(async () => {
  fx = await serveOAuthFixture();
});
after(async () => {
  await fx?.close();
});

function host(secret: string, issuer = fx.authServerUrl, kind: 'secret' | 'private-key-jwt' = 'secret') {
  const log = new MemoryLog();
  const asked: InputDefinition[] = [];
  const opened: URL[] = [];
  const ledger = new TaskLedger();
  const registry = new ServerRegistry({
    sides: hostSides(ledger, new ScriptedResponders()),
    logFor: () => log,
    variablesFor: () => ({ env: process.env, input: async (i) => (asked.push(i), secret) }),
    restart: { maxCrashes: 1 },
    authFor: (def) => serverAuthFor(def, { store: new MemorySecretStore(), clientName: 'mcp-tasks-test', openBrowser: async (url) => void opened.push(url) }),
  });
  const { servers, problems } = parseMcpConfig(
    { kind: 'workspace', file: '/ws/.vscode/mcp.json', folder: '/ws' },
    JSON.stringify({
      inputs: [{ type: 'promptString', id: 'cc-secret', description: 'Client secret', password: true }],
      servers: {
        protected: {
          type: 'http',
          url: fx.url,
          oauth:
            kind === 'secret'
              ? { issuer, clientCredentials: { clientId: CC_CLIENT_ID, clientSecret: '${input:cc-secret}' }, scope: 'mcp:tools' }
              : { issuer, privateKeyJwt: { clientId: PKJWT_CLIENT_ID, privateKey: '${input:cc-secret}', algorithm: 'ES256' }, scope: 'mcp:tools' },
        },
      },
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
      await waitFor(c.onDidChangeState, () => ['running', 'error', 'needs-sign-in', 'credentials-rejected'].includes(c.state.kind), 'started');
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

  test('a wrong client secret: "credentials refused" naming the server and the authorization server, not retried, no browser, the wrong secret not logged either', async () => {
    const wrong = 'wrong-secret-0c1d2e3f4a5b';
    const h = host(wrong);
    try {
      const rejected = fx.provider.counters.rejectedClients;
      const c = await h.start();
      assert.deepEqual(h.opened, [], 'no browser');
      assert.equal(c.state.kind, 'credentials-rejected', JSON.stringify(c.state));
      if (c.state.kind === 'credentials-rejected') {
        assert.equal(c.state.authorizationServer, fx.authServerUrl);
        assert.equal(
          c.state.message,
          `the authorization server ${fx.authServerUrl} refused the client credentials of "protected" (invalid_client): check the client id and its secret or private key in /ws/.vscode/mcp.json, or enter the input again`,
        );
      }
      // The SDK's auth() tries once more after invalid_client (it forgets the client first); then nothing.
      assert.equal(fx.provider.counters.rejectedClients, rejected + 2, 'the token request and the SDK\'s one retry');
      // Not handed to the crash backoff (it would reconnect with the same credentials, or give up with a generic error).
      assert.ok(!h.log.lines.some((l) => /reconnecting|connection failures within/.test(l)), h.log.lines.join('\n'));
      for (const l of h.log.lines) assert.ok(!l.includes(wrong), `secret in log line: ${l.slice(0, 200)}`);
    } finally {
      h.dispose();
    }
  });

  test('private_key_jwt: a JWT client assertion signed with the key from a password input gets a token; no browser; neither key nor token logged', async () => {
    const h = host(PKJWT_PRIVATE_KEY, fx.authServerUrl, 'private-key-jwt');
    try {
      const before = fx.provider.counters.clientAssertions;
      const c = await h.start();
      assert.equal(c.state.kind, 'running', JSON.stringify(c.state));
      assert.match(textOf(await c.client.callTool({ name: 'whoami', arguments: {} })), new RegExp(`client ${PKJWT_CLIENT_ID} with scopes mcp:tools`));
      assert.equal(fx.provider.counters.clientAssertions, before + 1, 'one verified client assertion');
      assert.deepEqual(h.asked.map((i) => i.id), ['cc-secret'], 'the key came from the input');
      assert.deepEqual(h.opened, [], 'no browser');
      const tokens = [...fx.provider.access.keys()];
      const keyBody = PKJWT_PRIVATE_KEY.split('\n')[1]!;
      for (const s of [keyBody, ...tokens]) for (const l of h.log.lines) assert.ok(!l.includes(s), `secret in log line: ${l.slice(0, 200)}`);
    } finally {
      h.dispose();
    }
  });

  test('private_key_jwt with a key the authorization server does not know: "credentials refused", no browser', async () => {
    const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const h = host(otherKey, fx.authServerUrl, 'private-key-jwt');
    try {
      const before = { assertions: fx.provider.counters.clientAssertions, rejected: fx.provider.counters.rejectedClients };
      const c = await h.start();
      assert.equal(c.state.kind, 'credentials-rejected', JSON.stringify(c.state));
      if (c.state.kind === 'credentials-rejected') assert.match(c.state.message, /refused the client credentials of "protected" \(invalid_client\)/);
      assert.equal(fx.provider.counters.clientAssertions, before.assertions, 'no assertion accepted');
      assert.equal(fx.provider.counters.rejectedClients, before.rejected + 2, 'the token request and the SDK\'s one retry');
      assert.deepEqual(h.opened, [], 'no browser');
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
      if (c.state.kind === 'error') assert.match(c.state.message, /bound to authorization server https:\/\/auth\.elsewhere\.example\/, but the server names http:\/\/127\.0\.0\.1:\d+\/; they were not sent there/);
      assert.deepEqual(h.opened, [], 'no browser');
      for (const l of h.log.lines) assert.ok(!l.includes(CC_CLIENT_SECRET), `secret in log line: ${l.slice(0, 200)}`);
    } finally {
      h.dispose();
    }
  });
});
