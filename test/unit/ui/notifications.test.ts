/**
 * Notifications that could outlive what they announce (src/ui/prompts/prompts.ts, serverErrors.ts,
 * trustSignal.ts; `vscode` faked, test/helpers/vscodeFake.ts): a request waiting for Respond, a
 * server being retried and servers kept from starting in an untrusted workspace are shown by
 * things the extension withdraws the moment they stop being true (a progress notification, a
 * status-bar item); what stays true (a server that failed for good) is one message per episode;
 * and a request on screen that goes away says why.
 */
import '../../helpers/vscodeStub.js';
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Emitter } from '../../../src/core/base/event.js';
import type { ConnectionState, McpConnection } from '../../../src/core/connection/connection.js';
import type { ConnectionStateChange, ServerRegistry } from '../../../src/core/connection/registry.js';
import { PROMPT_HIDDEN, PromptCancelledError, PromptQueue, type PromptHidden } from '../../../src/ui/prompts/prompts.js';
import { ServerErrorSignals, unlessShownByState } from '../../../src/ui/servers/serverErrors.js';
import { UntrustedServersSignal } from '../../../src/ui/view/trustSignal.js';
import { liveNoticeTexts } from '../../../src/ui/adapters/notify.js';
import { FailureMemory, MAX_REMEMBERED_FAILURES } from '../../../src/core/config/failureMemory.js';
import { fake, window as fakeWindow } from '../../helpers/vscodeFake.js';
import { definition } from '../../helpers/fakeTaskServer.js';
import { checkLeaks } from '../../helpers/leaks.js';

afterEach(() => fake.reset());

const tick = () => new Promise((r) => setImmediate(r));

describe('a request waiting for Respond', () => {
  /** A prompt that stays on screen until its token is cancelled (or answers `answer` when given). */
  const prompt = (id: string, o: { answer?: () => Promise<string | PromptHidden> } = {}) => ({
    id,
    serverName: 'everything',
    title: 'asks: The research query "quantum" could have multiple interpretations',
    run: (token: { onCancellationRequested(l: () => void): unknown }) => o.answer?.() ?? new Promise<string | PromptHidden>((resolve) => token.onCancellationRequested(() => resolve(PROMPT_HIDDEN))),
    cancelAnswer: () => 'cancel',
  });

  test('its notification is withdrawn when the request goes away: nothing offers to answer a request that ended', async () => {
    const prompts = new PromptQueue();
    const request = new AbortController();
    const answer = prompts.request(prompt('request:everything/request-1'), request.signal).catch((e: unknown) => e);
    assert.equal(fake.shownProgress().length, 1, 'one notification while it waits');
    assert.match(fake.shownProgress()[0]!.message!, /MCP server "everything" asks: The research query/);
    // Respond beside Cancel: a link of ours that opens this request (a progress notification's only button is Cancel).
    assert.ok(
      liveNoticeTexts()[0]!.endsWith(` [Respond](command:mcpTasks.respond?${encodeURIComponent(JSON.stringify(['request:everything/request-1']))}) (Cancel answers "cancel")`),
      liveNoticeTexts()[0],
    );
    request.abort(new Error('The tool call "simulate-research-query" it was asked for was cancelled'));
    assert.ok((await answer) instanceof PromptCancelledError);
    await tick();
    assert.deepEqual(fake.shownProgress(), [], 'withdrawn with its request');
    assert.deepEqual(liveNoticeTexts(), []);
    assert.deepEqual(
      fake.messages.filter((m) => m.items.length > 0),
      [],
      'no message with a Respond button stays behind',
    );
    prompts.dispose();
  });

  test('opened with Respond: its notification goes; closed unanswered it comes back; its Cancel answers "cancel"', async () => {
    const prompts = new PromptQueue();
    let hide: (v: string | PromptHidden) => void = () => undefined;
    const answer = prompts.request(prompt('p1', { answer: () => new Promise((r) => (hide = r)) }), new AbortController().signal);
    assert.equal(fake.shownProgress().length, 1);
    assert.ok(prompts.respond('p1'));
    await tick();
    assert.equal(fake.shownProgress().length, 0, 'on screen: no notification');
    hide(PROMPT_HIDDEN);
    await tick();
    assert.equal(fake.shownProgress().length, 1, 'closed unanswered: it waits again');
    assert.match(fake.shownProgress()[0]!.message!, /closed unanswered: what you typed is kept/);
    fake.shownProgress()[0]!.cancel();
    assert.equal(await answer, 'cancel');
    await tick();
    assert.equal(fake.shownProgress().length, 0);
    prompts.dispose();
  });

  test('on screen when its request goes away: it closes and says why', async () => {
    const prompts = new PromptQueue(() => 'immediately');
    const request = new AbortController();
    const answer = prompts.request(prompt('p2'), request.signal).catch((e: unknown) => e);
    await tick();
    assert.equal(prompts.activeId, 'p2');
    request.abort(new Error('The tool call "research" it was asked for was cancelled; nothing waits for this answer any more'));
    assert.ok((await answer) instanceof PromptCancelledError);
    const said = fake.messages.map((m) => m.message);
    assert.ok(
      said.some((m) => /the request from "everything" was withdrawn: The tool call "research" it was asked for was cancelled/.test(m)),
      said.join('\n'),
    );
    prompts.dispose();
  });
});

/** The emitters of the fake registries made in a test: disposed after it (before the leak check). */
const registryEmitters: Array<{ dispose(): void }> = [];
const disposeRegistries = () => {
  for (const e of registryEmitters.splice(0)) e.dispose();
};

/** A registry whose connections' states the test sets. */
function fakeRegistry(...names: string[]) {
  const changes = new Emitter<ConnectionStateChange>();
  const connectionsChanged = new Emitter<void>();
  registryEmitters.push(changes, connectionsChanged);
  const stopped: string[] = [];
  const connections = names.map((n) => {
    let state: ConnectionState = { kind: 'stopped' };
    return {
      id: n,
      name: n,
      definition: definition(n),
      get state() {
        return state;
      },
      set(s: ConnectionState) {
        state = s;
        changes.fire({ connection: this as unknown as McpConnection, state: s });
      },
    };
  });
  const registry = {
    connections,
    get: (id: string) => connections.find((c) => c.id === id),
    onDidChangeState: changes.event,
    onDidChangeConnections: connectionsChanged.event,
    stop: async (id: string) => void stopped.push(id),
  } as unknown as ServerRegistry;
  return { registry, connections, stopped };
}

describe('a server that fails', () => {
  afterEach(disposeRegistries);
  checkLeaks();

  const errors = () => fake.messages.filter((m) => m.severity === 'error');
  const item = () => fake.statusBarItems.find((i) => i.id === 'mcpTasks.serverErrors')!;
  const tooltip = () => String((item().tooltip as { value?: string } | undefined)?.value ?? '');

  test('retried by itself: one message with its cause and no "restarting in 1 s" that goes stale; the status bar follows the retries and is gone when it is back', () => {
    const { registry, connections } = fakeRegistry('everything-stdio');
    const c = connections[0]!;
    const signals = new ServerErrorSignals({ registry, showLog: () => undefined });
    c.set({ kind: 'running', capabilities: {} });
    c.set({ kind: 'error', message: '"everything-stdio" exited unexpectedly; restarting in 1 s', retryAt: Date.now() + 1000 });
    assert.deepEqual(
      errors().map((m) => m.message),
      ['MCP Tasks: "everything-stdio" exited unexpectedly'],
    );
    assert.deepEqual(errors()[0]!.items, ['Show Log', 'Retry', 'Open Settings']);
    assert.equal(signals.text, '$(error) everything-stdio');
    assert.match(tooltip(), /restarting in 1 s/, 'what happens now is in the status bar');
    c.set({ kind: 'starting', attempt: 2 });
    assert.equal(signals.text, '$(sync~spin) everything-stdio');
    assert.match(tooltip(), /starting \(attempt 2\)/);
    c.set({ kind: 'error', message: '"everything-stdio" exited unexpectedly; restarting in 2 s', retryAt: Date.now() + 2000 });
    assert.match(tooltip(), /restarting in 2 s/);
    c.set({ kind: 'running', capabilities: {} });
    assert.equal(signals.text, '', 'back: nothing says it is restarting');
    assert.equal(errors().length, 1, 'one message for the episode');
    assert.deepEqual(fake.shownProgress(), []);
    signals.dispose();
  });

  test('back after a crash: a short "running again" follows its failure message, once per episode; a stop the user made, none', () => {
    const { registry, connections } = fakeRegistry('everything-stdio');
    const c = connections[0]!;
    const signals = new ServerErrorSignals({ registry, showLog: () => undefined });
    const infos = () => fake.messages.filter((m) => m.severity === 'info').map((m) => m.message);
    c.set({ kind: 'running', capabilities: {} });
    assert.deepEqual(infos(), [], 'a first start is no "back"');
    c.set({ kind: 'error', message: '"everything-stdio" was killed by SIGKILL; restarting in 1 s', retryAt: Date.now() + 1000 });
    c.set({ kind: 'starting', attempt: 2 });
    c.set({ kind: 'running', capabilities: {} });
    assert.deepEqual(infos(), ['MCP Tasks: "everything-stdio" is running again.']);
    c.set({ kind: 'running', capabilities: {} });
    assert.equal(infos().length, 1, 'once for the episode');
    // The user stops it after a failure: nothing says it is back.
    c.set({ kind: 'error', message: '"everything-stdio" exited unexpectedly' });
    c.set({ kind: 'stopped' });
    c.set({ kind: 'starting', attempt: 1 });
    c.set({ kind: 'running', capabilities: {} });
    assert.equal(infos().length, 1);
    assert.equal(errors().length, 2);
    assert.deepEqual(signals.shownBack, ['everything-stdio']);
    signals.dispose();
  });

  test('Retry pressed on a failure message that went stale (the server runs again): nothing is restarted, and it says why', async () => {
    const { registry, connections } = fakeRegistry('everything-stdio');
    const c = connections[0]!;
    const restarted: string[] = [];
    Object.assign(registry, { restart: async (id: string) => void restarted.push(id) });
    let press: (choice: string) => void = () => undefined;
    const original = fakeWindow.showErrorMessage;
    fakeWindow.showErrorMessage = ((message: string, ...rest: unknown[]) => {
      void original(message, ...(rest as []));
      return new Promise<string>((resolve) => (press = resolve));
    }) as unknown as typeof original;
    try {
      const signals = new ServerErrorSignals({ registry, showLog: () => undefined });
      c.set({ kind: 'error', message: '"everything-stdio" was killed by SIGKILL; restarting in 1 s', retryAt: Date.now() + 1000 });
      c.set({ kind: 'running', capabilities: {} });
      press('Retry');
      await tick();
      await tick();
      assert.deepEqual(restarted, [], 'a running server is not restarted (its tasks would end)');
      assert.ok(fake.messages.some((m) => m.message === 'MCP Tasks: "everything-stdio" is running again; nothing to retry.'));
      // While it is still down, Retry restarts it as before.
      c.set({ kind: 'error', message: '"everything-stdio" exited unexpectedly' });
      press('Retry');
      await tick();
      await tick();
      assert.deepEqual(restarted, ['everything-stdio']);
      signals.dispose();
    } finally {
      fakeWindow.showErrorMessage = original;
    }
  });

  test('retried, then given up: still that one message; the status bar says it gave up', () => {
    const { registry, connections } = fakeRegistry('everything-http');
    const c = connections[0]!;
    const signals = new ServerErrorSignals({ registry, showLog: () => undefined });
    c.set({ kind: 'starting', attempt: 1 });
    c.set({ kind: 'error', message: '"everything-http" is unreachable: fetch failed; reconnecting in 1 s', retryAt: Date.now() + 1000 });
    c.set({ kind: 'starting', attempt: 2 });
    c.set({ kind: 'error', message: '"everything-http" is unreachable: fetch failed. 5 connection failures within 300 s; not reconnecting again.' });
    assert.deepEqual(
      errors().map((m) => m.message),
      ['MCP Tasks: "everything-http" is unreachable: fetch failed'],
      'no "reconnecting in 1 s" left after it gave up',
    );
    assert.equal(signals.text, '$(error) everything-http');
    assert.match(tooltip(), /not reconnecting again/);
    signals.dispose();
  });

  test('a server name with $(icon) or a line break: the status bar draws it as written, no icon of its own, on one line', () => {
    const name = '$(pass-filled) Verified by your organisation\n$(shield)';
    const { registry, connections } = fakeRegistry(name);
    const signals = new ServerErrorSignals({ registry, showLog: () => undefined });
    connections[0]!.set({ kind: 'error', message: 'failed' });
    // VS Code's own escape: `\$(` shows the characters instead of the icon; the break shows as \u000A.
    assert.equal(signals.text, '$(error) \\$(pass-filled) Verified by your organisation\\u000A\\$(shield)');
    assert.equal(item().text, signals.text);
    signals.dispose();
  });

  test('a manual Start that fails: one message (the command adds none of its own)', () => {
    const { registry, connections } = fakeRegistry('srv');
    const c = connections[0]!;
    const signals = new ServerErrorSignals({ registry, showLog: () => undefined });
    c.set({ kind: 'error', message: '"srv" failed to start: MCP error -32000: Connection closed' });
    c.set({ kind: 'stopped' });
    // The user's Start: a new episode, one message for its failure…
    c.set({ kind: 'starting', attempt: 1 });
    c.set({ kind: 'error', message: '"srv" failed to start: MCP error -32000: Connection closed; restarting in 1 s', retryAt: Date.now() + 1000 });
    assert.equal(errors().length, 2, 'one per episode');
    // …and the command's own error is not shown: the state shows it.
    const failure = new Error('"srv" failed to start: MCP error -32000: Connection closed');
    assert.doesNotThrow(() => unlessShownByState(registry, 'srv')(failure));
    c.set({ kind: 'running', capabilities: {} });
    assert.throws(() => unlessShownByState(registry, 'srv')(failure), /Connection closed/, 'a failure no state shows is the command\'s to report');
    signals.dispose();
  });
});

describe('a broken entry after a reload', () => {
  afterEach(disposeRegistries);
  checkLeaks();

  const errors = () => fake.messages.filter((m) => m.severity === 'error');
  const ENOENT = 'cannot start "srv": the program "no-such-program" was not found: is it on PATH? (ENOENT)';

  test('the same failure of the same unchanged entry is not announced again in the next window; an edit, another cause or a Retry is', () => {
    let kept: unknown = undefined;
    const store = { get: () => (kept ?? []) as string[], set: (k: readonly string[]) => void (kept = [...k]) };
    const window = () => {
      const { registry, connections } = fakeRegistry('srv');
      const signals = new ServerErrorSignals({ registry, showLog: () => undefined, memory: new FailureMemory(store) });
      return { c: connections[0]!, signals };
    };
    // First window: announced.
    const first = window();
    first.c.set({ kind: 'error', message: ENOENT });
    assert.equal(errors().length, 1);
    first.signals.dispose();
    // Reloaded: the same entry fails the same way: no new toast; the status bar still shows it.
    const second = window();
    second.c.set({ kind: 'error', message: ENOENT });
    assert.equal(errors().length, 1, 'not re-announced after the reload');
    assert.equal(second.signals.text, '$(error) srv');
    // The user's Start in this window fails again: that one is announced.
    second.c.set({ kind: 'starting', attempt: 1 });
    second.c.set({ kind: 'error', message: ENOENT });
    assert.equal(errors().length, 2, 'a failure after the user\'s own start is announced');
    second.signals.dispose();
    // Another cause after a reload is new.
    const third = window();
    third.c.set({ kind: 'error', message: 'cannot start "srv": EACCES' });
    assert.equal(errors().length, 3);
    third.signals.dispose();
    // An edited entry (another fingerprint) is new too.
    const { registry, connections } = fakeRegistry('srv');
    Object.assign(connections[0]!, { definition: { ...connections[0]!.definition, transport: { type: 'stdio', command: 'fixed', args: [], env: {} } } });
    const fourth = new ServerErrorSignals({ registry, showLog: () => undefined, memory: new FailureMemory(store) });
    connections[0]!.set({ kind: 'error', message: ENOENT });
    assert.equal(errors().length, 4);
    fourth.dispose();
    // Bounded, and a store holding anything else is read as empty.
    assert.ok(Array.isArray(kept) && kept.length <= MAX_REMEMBERED_FAILURES);
    kept = { not: 'an array' };
    assert.equal(new FailureMemory(store).shouldAnnounce('x', 'y'), true);
  });
});

describe('servers kept from starting in an untrusted workspace', () => {
  afterEach(disposeRegistries);
  checkLeaks();

  test('a status-bar item says so while it lasts and is gone once the workspace is trusted (no notification left saying "not trusted")', () => {
    const { registry, connections } = fakeRegistry('ws-stdio', 'ws-http');
    let trusted = false;
    const granted = new Emitter<void>();
    const signal = new UntrustedServersSignal(registry, { isTrusted: () => trusted, onDidGrantTrust: granted.event });
    assert.equal(signal.text, '');
    for (const c of connections) c.set({ kind: 'blocked', reason: 'this workspace is not trusted' });
    assert.equal(signal.text, '$(shield) 2 MCP servers not started');
    assert.deepEqual(fake.messages, [], 'no message');
    trusted = true;
    granted.fire();
    assert.equal(signal.text, '', 'withdrawn when trusted');
    signal.dispose();
    granted.dispose();
  });
});
