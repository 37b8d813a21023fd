/**
 * No secret in the logs: a full session at trace level with secrets planted everywhere a
 * user puts them — an `${input:…}` value (a password input) on the command line and in an HTTP
 * header, an env var named API_TOKEN, an inherited env var with a secret-looking name, an
 * Authorization header, and a password the user types into an elicitation form — against a
 * real SDK server (stdio and Streamable HTTP) that echoes all of it back in tool results, a
 * JSON-RPC error message, a sampling request, stderr and a failed start. The captured log,
 * every level, contains none of the secrets; the results prove the server did see them.
 */
import { after, afterEach, before, describe, test } from 'node:test';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import assert from 'node:assert/strict';
import { McpConnection } from '../../../src/core/connection/connection.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { errorMessage } from '../../../src/core/base/errors.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { REDACTED } from '../../../src/core/base/redact.js';
import { fixture, MemoryLog, ScriptedResponders, textOf, waitFor } from '../../helpers/host.js';
import { serveSecretEchoHttp } from '../../fixtures/secretEchoServer.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const INPUT_SECRET = 'in-PUT.s3cret+/"q"-4711';
const ENV_SECRET = 'env-API_TOKEN-value-0815';
const INHERITED_SECRET = 'inherited-pw-value-1234';
const HEADER_SECRET = 'hdr-Bearer-value-5678';
const APIKEY_SECRET = 'x-api-key-value-9012';
const TYPED_PASSWORD = 'typed-into-form-3456';
const ALL = [INPUT_SECRET, ENV_SECRET, INHERITED_SECRET, HEADER_SECRET, APIKEY_SECRET, TYPED_PASSWORD];

/** Every planted secret found in any line of the log (and where), in any common encoding. */
function leaks(log: MemoryLog): string[] {
  const found: string[] = [];
  for (const s of ALL) {
    const forms = [s, JSON.stringify(s).slice(1, -1), encodeURIComponent(s), s.slice(0, 12)];
    for (const line of log.lines) if (forms.some((f) => line.includes(f))) found.push(`${s} in: ${line.slice(0, 300)}`);
  }
  return found;
}

const ledger = new TaskLedger({ limits: { operationsPerSecond: 10_000, operationsBurst: 10_000 } });
after(() => ledger.dispose());
/** What the current test made: disposed after it (the describe's afterEach, before the leak check). */
let disposables: Array<{ dispose(): void }> = [];
function disposeThisTest(): void {
  const these = disposables.reverse();
  disposables = [];
  for (const d of these) d.dispose();
}

before(() => {
  // What a user's shell exports: the stdio server inherits it.
  process.env.MCP_TEST_SERVICE_PASSWORD = INHERITED_SECRET;
});

function connect(def: ServerDefinition): { connection: McpConnection; log: MemoryLog; responders: ScriptedResponders } {
  const log = new MemoryLog(); // traceEnabled absent: every JSON-RPC message is traced
  const responders = new ScriptedResponders();
  responders.elicitImpl = async () => ({ action: 'accept', content: { password: TYPED_PASSWORD } });
  const connection = new McpConnection(def, {
    sides: hostSides(ledger, responders),
    log,
    variables: { env: process.env, input: async () => INPUT_SECRET },
    restart: { maxCrashes: 1 },
    initializeTimeoutMs: 20_000,
  });
  disposables.push(log, connection);
  return { connection, log, responders };
}

/** The session every transport runs: tools that echo, an error that quotes, sampling, elicitation. */
async function session(connection: McpConnection, beforeStop?: () => Promise<void>): Promise<string> {
  await connection.start();
  const seen: string[] = [];
  const client = connection.client;
  await client.listTools();
  seen.push(textOf(await client.callTool({ name: 'echo_secrets', arguments: {} })));
  seen.push(textOf(await client.callTool({ name: 'sample_secrets', arguments: {} })));
  seen.push(textOf(await client.callTool({ name: 'ask_password', arguments: {} })));
  try {
    await client.getPrompt({ name: 'leak' });
    assert.fail('the prompt should fail');
  } catch (e) {
    // What the extension does with a failed request: shows it, and logs it.
    connection.log.warn(`prompts/get failed: ${errorMessage(e)}`);
    seen.push(errorMessage(e));
  }
  await beforeStop?.();
  await connection.stop();
  return seen.join('\n');
}

describe('no secret reaches the log, at trace level', () => {
  afterEach(disposeThisTest);

  test('stdio: input value in the arguments, API_TOKEN in env, an inherited secret env var', async () => {
    const def: ServerDefinition = {
      id: 'secret-stdio',
      name: 'secret-stdio',
      source: { kind: 'user', file: 'test settings' },
      transport: { type: 'stdio', command: process.execPath, args: [fixture('secretEchoServer'), '--token=${input:token}', '--password', '${input:token}'], env: { API_TOKEN: ENV_SECRET, DEBUG: 'visible-debug-value' } },
      inputs: [{ type: 'promptString', id: 'token', password: true }],
    };
    const { connection, log, responders } = connect(def);
    // stderr is read apart from stdout: wait for the echo there before stopping.
    const seen = await session(connection, () => waitFor(log.onLine, () => log.lines.some((l) => l.startsWith('info [stderr] echo_secrets called')), 'the echo on stderr'));

    // The server did see (and echo) the secrets: the test can fail.
    for (const s of [INPUT_SECRET, ENV_SECRET, INHERITED_SECRET, TYPED_PASSWORD]) assert.ok(seen.includes(s), `the server echoed ${s}: ${seen.slice(0, 500)}`);
    assert.ok(responders.calls.some((c) => c.kind === 'sampling'), 'the sampling request quoting the secrets arrived');

    assert.deepEqual(leaks(log), []);
    // …and the log is still useful: the launch, the traffic, the echo (redacted), stderr.
    const starting = log.lines.find((l) => l.startsWith('info starting:'));
    assert.ok(starting, 'a starting line');
    assert.match(starting, /--token=\[redacted\] --password \[redacted\]/);
    assert.match(starting, /API_TOKEN=\[redacted\], DEBUG=visible-debug-value/);
    assert.ok(log.lines.some((l) => l.startsWith('trace ▶') && l.includes('"method":"tools/call"')), 'requests are traced');
    assert.ok(log.lines.some((l) => l.startsWith('trace ◀') && l.includes('I know:') && l.includes(REDACTED)), 'the echo is traced, redacted');
    assert.ok(log.lines.some((l) => l.startsWith('trace ▶') && l.includes('"password":"[redacted]"')), 'the typed password is traced, redacted');
    assert.ok(log.lines.some((l) => l.startsWith('info [stderr] echo_secrets called') && l.includes(REDACTED)), 'stderr is logged, redacted');
    assert.ok(log.lines.some((l) => l.startsWith('warn prompts/get failed: MCP error -32603') && l.includes('cannot build the prompt with --token=[redacted]')), log.lines.filter((l) => l.startsWith('warn')).join('\n'));
  });

  test('Streamable HTTP: Authorization with an input value, X-Api-Key, secrets echoed from the headers', async () => {
    const http = await serveSecretEchoHttp();
    disposables.push({ dispose: () => void http.close() });
    const def: ServerDefinition = {
      id: 'secret-http',
      name: 'secret-http',
      source: { kind: 'user', file: 'test settings' },
      transport: { type: 'http', url: http.url, headers: { Authorization: `Bearer ${HEADER_SECRET}-\${input:token}`, 'X-Api-Key': APIKEY_SECRET, 'X-Trace': 'visible-trace-header' } },
      inputs: [{ type: 'promptString', id: 'token', password: true }],
    };
    const { connection, log } = connect(def);
    const seen = await session(connection);

    for (const s of [HEADER_SECRET, INPUT_SECRET, APIKEY_SECRET, TYPED_PASSWORD]) assert.ok(seen.includes(s), `the server echoed ${s}: ${seen.slice(0, 500)}`);
    assert.deepEqual(leaks(log), []);
    const connecting = log.lines.find((l) => l.startsWith('info connecting:'));
    assert.ok(connecting, 'a connecting line');
    assert.match(connecting, /Authorization=\[redacted\], X-Api-Key=\[redacted\], X-Trace=visible-trace-header/);
    assert.ok(log.lines.some((l) => l.startsWith('trace ◀') && l.includes('I know:') && l.includes(REDACTED)));
  });

  test('a server that fails to start printing its secrets: neither the log nor the error state has them', async () => {
    const def: ServerDefinition = {
      id: 'secret-crash',
      name: 'secret-crash',
      source: { kind: 'user', file: 'test settings' },
      transport: { type: 'stdio', command: process.execPath, args: [fixture('secretEchoServer'), '--exit-with-secrets', '--token=${input:token}'], env: { API_TOKEN: ENV_SECRET } },
      inputs: [{ type: 'promptString', id: 'token', password: true }],
    };
    const { connection, log } = connect(def);
    const failure = await connection.start().then(
      () => assert.fail('the start should fail'),
      (e: unknown) => errorMessage(e),
    );
    assert.equal(connection.state.kind, 'error');
    const shown = `${failure}\n${(connection.state as { message: string }).message}`;
    assert.match(shown, /fatal: refusing to start with/, 'the stderr reason is kept');
    for (const s of ALL) assert.ok(!shown.includes(s), `${s} in the error shown to the user: ${shown}`);
    assert.ok(log.lines.some((l) => l.includes('[stderr] fatal: refusing to start with') && l.includes(REDACTED)));
    assert.deepEqual(leaks(log), []);
  });
});
