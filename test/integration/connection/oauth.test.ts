/**
 * OAuth sign-in against a real SDK authorization server and a protected MCP server
 * (test/fixtures/oauthServer.ts), driven headlessly (the "browser" follows redirects with fetch).
 * Full authorization code + PKCE flow through the loopback redirect, a reload that does not ask
 * again, silent refresh, step-up on insufficient_scope, client credentials, and the bad cases
 * (page closed → timeout, cancel, expired refresh token, authorization server down, only a wrong
 * state — a wrong state before the right one is ignored): each ends in a typed SignInError and a registry whose other server keeps working. The whole
 * trace log of the session contains none of the tokens, codes or verifiers.
 */
import { after, before, describe, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import { ServerRegistry } from '../../../src/core/connection/registry.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { MemorySecretStore } from '../../../src/core/connection/auth/secretStore.js';
import { authorizationCodeAuthFor, clientCredentialsAuth } from '../../../src/core/connection/auth/authFactory.js';
import { SignInError, type ServerAuth } from '../../../src/core/connection/auth/serverAuth.js';
import { SignInRequiredError } from '../../../src/core/connection/auth/signInRequired.js';
import type { McpConnection } from '../../../src/core/connection/connection.js';
import { followAuthorizationRedirects } from '../../../src/headless/browser.js';
import { CC_CLIENT_ID, CC_CLIENT_SECRET, serveOAuthFixture, type OAuthFixture } from '../../fixtures/oauthServer.js';
import { serveSecretEchoHttp } from '../../fixtures/secretEchoServer.js';
import type { HttpServing } from '../../fixtures/httpServing.js';
import { httpDefinition, MemoryLog, ScriptedResponders, textOf, waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

type Browser = (url: URL) => Promise<void>;

let fx: OAuthFixture;
let other: HttpServing;
before(async () => {
  fx = await serveOAuthFixture();
  other = await serveSecretEchoHttp();
});
after(async () => {
  await fx?.close();
  await other?.close();
});

async function control(action: string): Promise<Record<string, number | boolean>> {
  const r = await fetch(new URL(`/control/${action}`, fx.url), { method: 'POST' });
  return (await r.json()) as Record<string, number | boolean>;
}

/** A registry with the protected server and an ordinary one, sharing one secret store (a "reload" makes a new registry). */
function host(store: MemorySecretStore, browser: { open: Browser }, options: { timeoutMs?: number; auth?: (def: ServerDefinition) => ServerAuth | undefined; logs?: Map<string, MemoryLog> } = {}) {
  const logs = options.logs ?? new Map<string, MemoryLog>();
  const ledger = new TaskLedger();
  const registry = new ServerRegistry({
    sides: hostSides(ledger, new ScriptedResponders()),
    logFor: (def) => logs.get(def.id) ?? (logs.set(def.id, new MemoryLog()), logs.get(def.id)!),
    variablesFor: () => ({ env: process.env }),
    restart: { maxCrashes: 1 },
    authFor:
      options.auth ??
      ((def) => authorizationCodeAuthFor(def, { store, clientName: 'mcp-tasks-test', openBrowser: (url) => browser.open(url), timeoutMs: options.timeoutMs })),
  });
  return {
    registry,
    logs,
    async setUp(defs: ServerDefinition[] = [httpDefinition('protected', fx.url), httpDefinition('other', other.url)]) {
      await registry.setDefinitions(defs);
      return registry.get('protected')!;
    },
    dispose() {
      registry.dispose();
      ledger.dispose();
    },
  };
}

async function whoami(c: McpConnection): Promise<string> {
  return textOf(await c.client.callTool({ name: 'whoami', arguments: {} }));
}

function assertOtherRunning(registry: ServerRegistry) {
  assert.equal(registry.get('other')?.state.kind, 'running', 'the other server keeps running');
}

/** Every secret the store holds (tokens, refresh tokens, verifiers), to grep the log for. */
function storedSecrets(store: MemorySecretStore): string[] {
  const out: string[] = [];
  for (const v of store.values.values()) {
    const rec = JSON.parse(v) as { tokens?: { access_token?: string; refresh_token?: string }; codeVerifier?: string };
    for (const s of [rec.tokens?.access_token, rec.tokens?.refresh_token, rec.codeVerifier]) if (s) out.push(s);
  }
  return out;
}

describe('OAuth sign-in (authorization code + PKCE, loopback redirect)', () => {
  const store = new MemorySecretStore();
  const seenCodes: string[] = [];
  const allSecrets = new Set<string>();
  // One log per server for the whole story: each test is a window of its own (a new registry on
  // the same store, as after a reload), and the last test greps what all of them logged.
  const logs = new Map<string, MemoryLog>();
  const browser = {
    open: async (url: URL) => {
      // Watch the code go by (to grep the log for it), then let fetch follow the redirects.
      const r = await fetch(url, { redirect: 'manual' });
      const loc = r.headers.get('location');
      if (loc) seenCodes.push(new URL(loc).searchParams.get('code') ?? '');
      await followAuthorizationRedirects(url);
    },
  };
  /** Runs `steps` in a window of its own (a new registry on the store), disposed after them. */
  async function inWindow(open: { open: Browser }, steps: (h: ReturnType<typeof host>, c: McpConnection) => Promise<void>): Promise<void> {
    const h = host(store, open, { logs });
    try {
      await steps(h, await h.setUp());
    } finally {
      h.dispose();
    }
  }
  const running = (c: McpConnection) => waitFor(c.onDidChangeState, () => c.state.kind === 'running', 'running on the stored tokens');

  test('a 401 with OAuth metadata stops at "needs-sign-in", naming the authorization server', async () => {
    await inWindow(browser, async (h, c) => {
      await waitFor(c.onDidChangeState, () => c.state.kind === 'needs-sign-in', 'needs-sign-in');
      assert.equal(c.state.kind === 'needs-sign-in' && c.state.authorizationServer, new URL(fx.authServerUrl).origin);
      await assert.rejects(c.start(), SignInRequiredError);
      assertOtherRunning(h.registry);
    });
  });

  test('sign-in: the browser round trip ends in tokens in the store and a running connection', async () => {
    await inWindow(browser, async (_h, c) => {
      await waitFor(c.onDidChangeState, () => c.state.kind === 'needs-sign-in', 'needs-sign-in');
      const before = await control('state');
      await c.signIn();
      assert.equal(c.state.kind, 'running');
      assert.match(await whoami(c), /with scopes mcp:tools/);
      const after = await control('state');
      assert.equal(after.codeExchanges, (before.codeExchanges as number) + 1);
      const keys = [...store.values.keys()];
      assert.ok(keys.some((k) => k.startsWith('mcpTasks.oauth/') && k.includes(`|${fx.authServerUrl}`)), `per server and authorization server: ${keys.join(', ')}`);
      for (const s of storedSecrets(store)) allSecrets.add(s);
      assert.ok(allSecrets.size >= 2);
    });
  });

  test('a reload (new registry, same store) does not ask again', async () => {
    const before = await control('state');
    await inWindow({ open: async () => assert.fail('must not open a browser') }, async (_h, c) => {
      await waitFor(c.onDidChangeState, () => c.state.kind === 'running', 'running after reload');
      assert.match(await whoami(c), /mcp:tools/);
      assert.equal((await control('state')).authorizations, before.authorizations);
    });
  });

  test('an expired access token is refreshed silently', async () => {
    await inWindow({ open: async () => assert.fail('must not open a browser') }, async (_h, c) => {
      await running(c);
      const before = await control('expire-access');
      assert.match(await whoami(c), /mcp:tools/);
      assert.equal(c.state.kind, 'running');
      assert.equal((await control('state')).refreshes, (before.refreshes as number) + 1);
      for (const s of storedSecrets(store)) allSecrets.add(s);
    });
  });

  test('step-up: insufficient_scope asks again with the wider scope', async () => {
    await inWindow(browser, async (h, c) => {
      await running(c);
      await assert.rejects(c.client.callTool({ name: 'admin_echo', arguments: { text: 'hi' } }));
      await waitFor(c.onDidChangeState, () => c.state.kind === 'needs-sign-in', 'needs-sign-in after step-up');
      assert.match(c.state.kind === 'needs-sign-in' ? (c.state.scope ?? '') : '', /mcp:admin/);
      await c.signIn();
      assert.equal(textOf(await c.client.callTool({ name: 'admin_echo', arguments: { text: 'hi' } })), 'admin: hi');
      for (const s of storedSecrets(store)) allSecrets.add(s);
      assertOtherRunning(h.registry);
    });
  });

  test('an expired refresh token ends at "needs-sign-in"; signing in again works', async () => {
    await inWindow(browser, async (_h, c) => {
      await running(c);
      await control('expire-refresh');
      await assert.rejects(whoami(c));
      await waitFor(c.onDidChangeState, () => c.state.kind === 'needs-sign-in', 'needs-sign-in after the refresh token expired');
      await c.signIn();
      assert.match(await whoami(c), /mcp:/);
      for (const s of storedSecrets(store)) allSecrets.add(s);
    });
  });

  test('sign-out forgets every secret of the server and asks again', async () => {
    await inWindow(browser, async (_h, c) => {
      await running(c);
      const before = await control('state');
      const old = storedSecrets(store);
      await c.signOut();
      await waitFor(c.onDidChangeState, () => c.state.kind === 'needs-sign-in', 'needs-sign-in after sign-out');
      const left = [...store.values.values()].join('\n');
      for (const s of old) assert.ok(!left.includes(s), 'the old tokens and verifier are forgotten');
      assert.ok(!left.includes('"tokens"'), 'no tokens stored');
      assert.equal((await control('state')).registrations, (before.registrations as number) + 1, 'the client registration was forgotten too');
      await c.signIn();
      assert.match(await whoami(c), /mcp:tools/);
      for (const s of storedSecrets(store)) allSecrets.add(s);
    });
  });

  test('nothing secret in the trace log of the whole session', () => {
    for (const s of seenCodes) if (s) allSecrets.add(s);
    const lines = [...logs.values()].flatMap((l) => l.lines);
    assert.ok(lines.some((l) => l.startsWith('trace ')), 'the log is at trace level');
    assert.ok(allSecrets.size >= 8, `tokens, refresh tokens, verifiers and codes seen: ${allSecrets.size}`);
    for (const s of allSecrets) for (const l of lines) assert.ok(!l.includes(s), `secret in log line: ${l.slice(0, 200)}`);
  });
});

describe('OAuth sign-in: bad cases end in a typed error and a working registry', () => {
  test('wrong or missing state parameter: answered 400 and ignored; the right redirect after it still signs in', async () => {
    const answers: number[] = [];
    const h = host(new MemorySecretStore(), {
      open: async (url) => {
        const r = await fetch(url, { redirect: 'manual' });
        const right = new URL(r.headers.get('location')!);
        const forged = new URL(right);
        forged.searchParams.set('state', 'forged');
        forged.searchParams.set('code', 'forged-code');
        const stateless = new URL(right);
        stateless.searchParams.delete('state');
        for (const wrong of [forged, stateless]) answers.push((await fetch(wrong)).status);
        answers.push((await fetch(right)).status);
      },
    });
    try {
      const c = await h.setUp();
      await waitFor(c.onDidChangeState, () => c.state.kind === 'needs-sign-in', 'needs-sign-in');
      await c.signIn();
      assert.deepEqual(answers, [400, 400, 200], 'the wrong ones refused, the right one taken');
      assert.equal(c.state.kind, 'running');
      assert.match(await whoami(c), /with scopes mcp:tools/);
      assertOtherRunning(h.registry);
    } finally {
      h.dispose();
    }
  });

  test('only a wrong state parameter comes back: the sign-in waits for its timeout, then says so (state-mismatch)', async () => {
    const h = host(
      new MemorySecretStore(),
      {
        open: async (url) => {
          const r = await fetch(url, { redirect: 'manual' });
          const loc = new URL(r.headers.get('location')!);
          loc.searchParams.set('state', 'forged');
          assert.equal((await fetch(loc)).status, 400);
        },
      },
      { timeoutMs: 500 },
    );
    try {
      const c = await h.setUp();
      await waitFor(c.onDidChangeState, () => c.state.kind === 'needs-sign-in', 'needs-sign-in');
      await assert.rejects(c.signIn(), (e) => e instanceof SignInError && e.failure === 'state-mismatch' && /1 redirect ignored/.test(e.message));
      assert.equal(c.state.kind, 'needs-sign-in');
      assertOtherRunning(h.registry);
    } finally {
      h.dispose();
    }
  });

  test('the user closes the page: timeout; the user cancels: cancelled', async () => {
    const h = host(new MemorySecretStore(), { open: async () => undefined }, { timeoutMs: 200 });
    try {
      const c = await h.setUp();
      await waitFor(c.onDidChangeState, () => c.state.kind === 'needs-sign-in', 'needs-sign-in');
      await assert.rejects(c.signIn(), (e) => e instanceof SignInError && e.failure === 'timeout' && /page closed/.test(e.message));
      const abort = new AbortController();
      const p = c.signIn(abort.signal);
      abort.abort();
      await assert.rejects(p, (e) => e instanceof SignInError && e.failure === 'cancelled');
      assert.equal(c.state.kind, 'needs-sign-in');
      assertOtherRunning(h.registry);
    } finally {
      h.dispose();
    }
  });

  test('the authorization server denies: denied', async () => {
    const h = host(new MemorySecretStore(), {
      open: async (url) => {
        const r = await fetch(url, { redirect: 'manual' });
        const loc = new URL(r.headers.get('location')!);
        loc.searchParams.delete('code');
        loc.searchParams.set('error', 'access_denied');
        await fetch(loc);
      },
    });
    try {
      const c = await h.setUp();
      await waitFor(c.onDidChangeState, () => c.state.kind === 'needs-sign-in', 'needs-sign-in');
      await assert.rejects(c.signIn(), (e) => e instanceof SignInError && e.failure === 'denied' && /access_denied/.test(e.message));
      assertOtherRunning(h.registry);
    } finally {
      h.dispose();
    }
  });

  test('client credentials: no browser, no person', async () => {
    const h = host(new MemorySecretStore(), { open: async () => assert.fail('no browser') }, {
      auth: (def) => (def.id === 'protected' ? clientCredentialsAuth({ clientId: CC_CLIENT_ID, clientSecret: CC_CLIENT_SECRET }, 'mcp-tasks-test') : undefined),
    });
    try {
      const c = await h.setUp();
      await waitFor(c.onDidChangeState, () => c.state.kind === 'running' || c.state.kind === 'error', 'started');
      assert.equal(c.state.kind, 'running', JSON.stringify(c.state));
      assert.match(await whoami(c), new RegExp(`client ${CC_CLIENT_ID}`));
    } finally {
      h.dispose();
    }
  });

  // Last: it takes the authorization server down for good.
  test('the authorization server is down: unreachable, naming it, before any browser opens', async () => {
    // The discovery and the client registration are kept from the first 401: the SDK would build the
    // authorization URL without asking the authorization server, and the browser would show an error page.
    const opened: URL[] = [];
    const h = host(new MemorySecretStore(), { open: async (url) => void opened.push(url) });
    try {
      const c = await h.setUp();
      await waitFor(c.onDidChangeState, () => c.state.kind === 'needs-sign-in', 'needs-sign-in');
      await control('stop-as');
      const as = new URL(fx.authServerUrl).origin;
      await assert.rejects(c.signIn(), (e) => e instanceof SignInError && e.failure === 'unreachable' && e.message.includes(`the authorization server ${as} could not be reached`));
      assert.deepEqual(opened, [], 'no browser page for an authorization server that is down');
      assert.equal(c.state.kind, 'needs-sign-in');
      assertOtherRunning(h.registry);
    } finally {
      h.dispose();
    }
  });
});
