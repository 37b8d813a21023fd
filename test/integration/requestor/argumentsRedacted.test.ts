/**
 * Tool arguments are shown and stored by the log's redaction rules (base/redact.ts, through
 * requestor/trackerUtil.ts `summarize`): a call to a REAL SDK server (test/fixtures/secretEchoServer.ts,
 * over stdio) with secrets in its arguments — fields named like secrets (apiKey, password, token,
 * a nested authorization), a credential recognisable by its shape under an ordinary name, and a
 * value the server's own env made secret — shows none of them in the Tasks tree row (description
 * and tooltip), the task document or the stored sent tasks, while the ordinary arguments still
 * show; the server itself received every argument as given. Sent tasks stored in clear by an
 * earlier release are scrubbed when loaded and written back scrubbed.
 */
import '../../helpers/vscodeStub.js';
import { hostSides } from '../../../src/core/requestor/hostSides.js';
import { after, afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { McpConnection } from '../../../src/core/connection/connection.js';
import type { ServerDefinition } from '../../../src/core/config/config.js';
import { TaskLedger } from '../../../src/core/receiver/ledger.js';
import { TaskTracker, type TrackerStorage } from '../../../src/core/requestor/tracker.js';
import { OpenRequests } from '../../../src/core/view/openRequests.js';
import { renderTaskDocument } from '../../../src/core/view/render.js';
import { knownArguments } from '../../../src/core/view/rowText.js';
import { TaskView } from '../../../src/core/view/taskView.js';
import { taskTooltip, taskTreeItem } from '../../../src/ui/view/taskPresentation.js';
import { fixture, MemoryLog, ScriptedResponders, settles, textOf, waitFor } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

/** Known to the host as a secret only because the server's env names it so (`MCP_TEST_API_TOKEN`). */
const SERVER_SECRET = 'srv-env-secret-2718';
const API_KEY = 'sk-live-0123456789abcdefXYZ';
const PASSWORD = 'hunter2';
const TOKEN = 'tok-31415926535';
const BEARER = 'Bearer brr-credential-777';
/** A GitHub token under an ordinary name: caught by its shape. */
const SHAPED = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const SECRETS = [SERVER_SECRET, API_KEY, PASSWORD, TOKEN, 'brr-credential-777', SHAPED];

/** Every secret found in `text` (a 6-character prefix counts: a cut must not leave half of one). */
function leaks(text: string): string[] {
  return SECRETS.filter((s) => text.includes(s) || text.includes(s.slice(0, 6)));
}

function memoryStorage(initial?: string): TrackerStorage & { stored: () => string; saved: Promise<void> } {
  let value: string | undefined = initial;
  let saved!: () => void;
  return {
    load: () => value,
    save: (s) => {
      value = s;
      saved();
    },
    stored: () => value ?? '',
    saved: new Promise<void>((resolve) => (saved = resolve)),
  };
}

const ledger = new TaskLedger({ limits: { operationsPerSecond: 10_000, operationsBurst: 10_000 } });
after(() => ledger.dispose());
/** What the current test made: disposed after it, last made first (the describe's afterEach, before the leak check). */
const disposables: Array<{ dispose(): void }> = [];

function echoServer(): McpConnection {
  const def: ServerDefinition = {
    id: 'args-echo',
    name: 'args-echo',
    source: { kind: 'user', file: 'test settings' },
    transport: { type: 'stdio', command: process.execPath, args: [fixture('secretEchoServer')], env: { MCP_TEST_API_TOKEN: SERVER_SECRET } },
    inputs: [],
  };
  const connection = new McpConnection(def, { sides: hostSides(ledger, new ScriptedResponders()), log: new MemoryLog(), variables: { env: process.env }, restart: { maxCrashes: 1 }, initializeTimeoutMs: 20_000 });
  disposables.push(connection);
  return connection;
}

/** What the user sees of a sent task: its tree row (label, description, tooltip) and its document. */
function shown(view: TaskView, key: string): { row: string; tooltip: string; document: string } {
  const item = view.item(`sent:${key}`);
  assert.ok(item, `the view shows ${key}`);
  const row = taskTreeItem(item);
  return { row: `${String(row.label)} ${String(row.description)}`, tooltip: (taskTooltip(item) as vscode.MarkdownString).value, document: renderTaskDocument(item) };
}

describe('tool arguments are shown and stored redacted', () => {
  afterEach(() => disposables.splice(0).reverse().forEach((d) => d.dispose()));

  test('a real call: row, tooltip, document and storage hide the secrets; ordinary arguments show; the server got them all', { timeout: 30_000 }, async () => {
    const connection = echoServer();
    await connection.start();
    const storage = memoryStorage();
    const tracker = new TaskTracker({ connectionFor: (id) => (id === connection.id ? connection : undefined), storage, saveIntervalMs: 0 });
    const requests = new OpenRequests();
    const view = new TaskView(ledger, tracker, { coalesceMs: 0, requests });
    disposables.push(view, requests, tracker);
    const tool = { name: 'echo_arguments' };

    // Named like secrets (one nested), with the ordinary argument first so the row shows it.
    const named = await tracker.callTool(connection, tool, { q: 'Paris', apiKey: API_KEY, password: PASSWORD, token: TOKEN, nested: { authorization: BEARER } });
    // Ordinary names: a credential by its shape, and a value the server's env holds as a secret.
    const unnamed = await tracker.callTool(connection, tool, { q: 'Lyon', note: SHAPED, pin: SERVER_SECRET });
    await waitFor(view.onDidChange, () => [named, unnamed].every((k) => view.item(`sent:${k}`)?.state === 'completed'), 'both calls done');

    // The server received every argument as given: only what is shown and stored is scrubbed.
    const echoed = [named, unnamed]
      .map((k) => tracker.get(k)?.outcome)
      .map((o) => textOf(o?.kind === 'result' ? o.result : undefined))
      .map((text) => Buffer.from(text.replace(/^received /, ''), 'base64').toString('utf8'))
      .join('\n');
    for (const s of SECRETS) assert.ok(echoed.includes(s), `the server got ${s}: ${echoed}`);

    for (const key of [named, unnamed]) {
      const { row, tooltip, document } = shown(view, key);
      assert.deepEqual(leaks(row), [], `row: ${row}`);
      assert.deepEqual(leaks(tooltip), [], `tooltip: ${tooltip}`);
      assert.deepEqual(leaks(document), [], `document: ${document}`);
    }
    const a = shown(view, named);
    assert.match(a.row, /echo_arguments q: Paris, apiKey: \[redacted\]/);
    // The document escapes Markdown (`\[redacted\]`).
    assert.ok(a.document.replace(/\\(.)/g, '$1').includes('| arguments | {"q":"Paris","apiKey":"[redacted]","password":"[redacted]","token":"[redacted]","nested":{"authorization":"[redacted]"}} |'), a.document);
    const b = shown(view, unnamed);
    assert.match(b.row, /q: Lyon, note: \[redacted\], pin: \[redacted\]/);
    assert.match(b.tooltip, /q.{0,4}:.{0,4}Lyon/);

    await tracker.flush();
    const stored = storage.stored();
    assert.ok(stored.includes('"q\\":\\"Paris') && stored.includes('Lyon'), 'both calls are stored');
    assert.deepEqual(leaks(stored), [], `stored: ${stored}`);

    // "Run Again…": this window keeps the arguments as sent, in memory only; a window reloaded from
    // the same storage has only the summary, and fills in only what it shows whole and unredacted.
    assert.deepEqual(tracker.callArguments(named), { q: 'Paris', apiKey: API_KEY, password: PASSWORD, token: TOKEN, nested: { authorization: BEARER } });
    const reloaded = new TaskTracker({ connectionFor: () => undefined, storage: memoryStorage(stored), saveIntervalMs: 0 });
    disposables.push(reloaded);
    assert.equal(reloaded.callArguments(named), undefined, 'no arguments after a reload');
    assert.deepEqual(knownArguments(reloaded.get(named)?.argsSummary), { q: 'Paris' });
    assert.deepEqual(knownArguments(reloaded.get(unnamed)?.argsSummary), { q: 'Lyon' });
    await connection.stop();
  });

  test('sent tasks stored in clear by an earlier release are scrubbed on load and written back scrubbed', { timeout: 10_000 }, async () => {
    const at = Date.now();
    const clear = (key: string, argsSummary: string) => ({ key, serverId: 'old', serverName: 'old', toolName: 'deploy', argsSummary, mode: 'plain', origin: 'local', sentAt: at, finishedAt: at, phase: 'done', polls: 0, resultFetches: 0 });
    const old = JSON.stringify({
      version: 3,
      tasks: [
        clear('old/c1', JSON.stringify({ q: 'weather in Paris', apiKey: API_KEY, nested: { authorization: BEARER } })),
        // Cut off when stored (120 characters): the secret-named value at its end is cut short too.
        clear('old/c2', `{"q":"Lyon","note":"${SHAPED}","password":"${PASSWORD}-and-more…`),
      ],
    });
    const storage = memoryStorage(old);
    const tracker = new TaskTracker({ connectionFor: () => undefined, storage, saveIntervalMs: 0 });
    disposables.push(tracker);
    const summaries = tracker.snapshot().map((s) => s.argsSummary);
    assert.equal(summaries.length, 2);
    assert.deepEqual(leaks(summaries.join('\n')), [], summaries.join('\n'));
    assert.equal(summaries[0], '{"q":"weather in Paris","apiKey":"[redacted]","nested":{"authorization":"[redacted]"}}');
    assert.equal(summaries[1], '{"q":"Lyon","note":"[redacted]","password":"[redacted]"…');
    // Written back by itself (not only at the next change or when the window closes).
    await settles(storage.saved, 'the scrubbed tasks to be written back', 5_000);
    assert.notEqual(storage.stored(), old, 'written back');
    assert.deepEqual(leaks(storage.stored()), [], storage.stored());
  });
});
