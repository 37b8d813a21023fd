/**
 * Activation evaluates none of the SDK, zod, OAuth or the forms (bench: "startup load +
 * activation, no server"): the built extension (dist/, `npm run test:integration` builds it), from
 * its entry dist/start.js as the extension host loads it (through the code cache: a later window
 * compiles from what the first left), is activated in a fresh process (activationChild.ts) with no server configured and with two stdio
 * demo servers. With servers, the protocol part (scripts/lib/lazyParts.mjs) is evaluated once the
 * configuration is applied — after activate() returned — and a tool call sent as a task through
 * the bundles reaches its result: the part works with the modules it reads from the extension.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

interface Evaluated {
  readonly bundles: string[];
  readonly zod: boolean;
}
interface ChildReport {
  readonly atActivation: Evaluated;
  readonly afterConfig: Evaluated;
  /** Two of the settings as the extension holds them once the configuration is applied. */
  readonly values: { readonly 'requestor.ttlMs': unknown; readonly 'prompts.open': unknown };
  /** The sent tasks the tracker held once activate() returned (read at that first need). */
  readonly kept: ReadonlyArray<{ readonly key: string; readonly phase: string; readonly outcome?: string }>;
  readonly call?: { readonly mode: string; readonly outcome?: string; readonly result?: { content?: Array<{ text?: string }> } };
  readonly codeCache: Record<string, string>;
  /** What the extension logged as a warning or an error, by channel name. */
  readonly logged: ReadonlyArray<{ readonly channel: string; readonly level: string; readonly message: string }>;
}

/** `leftBehind`: what a window's storage holds when the window opens (file name → text); `settings`: other user values. */
async function activate(servers: number, leftBehind: Record<string, string> = {}, settings: Record<string, unknown> = {}): Promise<ChildReport> {
  const storage = mkdtempSync(join(tmpdir(), 'mcp-tasks-activation-'));
  try {
    for (const [name, text] of Object.entries(leftBehind)) writeFileSync(join(storage, name), text);
    return await activateIn(storage, servers, settings);
  } finally {
    rmSync(storage, { recursive: true, force: true });
  }
}

/** One window on `storage` (kept: a later window opens on what this one left). */
async function activateIn(storage: string, servers: number, settings: Record<string, unknown> = {}): Promise<ChildReport> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'activationChild.ts'), join(ROOT, 'dist') + '/', String(servers), storage, join(ROOT, 'dist', 'demo-server.js'), JSON.stringify(settings)],
    { cwd: ROOT, timeout: 60_000 },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as ChildReport;
}

describe('activation', () => {
  test('no server configured: only dist/start.js and dist/extension.js are evaluated, no zod (so no SDK), before and after the configuration is read', async () => {
    const r = await activate(0);
    assert.deepEqual(r.atActivation, { bundles: ['extension.js', 'start.js'], zod: false });
    assert.deepEqual(r.afterConfig, { bundles: ['extension.js', 'start.js'], zod: false });
    assert.deepEqual(r.codeCache, { 'extension.js': 'missing' }, 'a first window has no code cache yet: Node loads the extension');
    assert.deepEqual(r.logged, [], 'its first cache written as the window went, with nothing to say');
  });

  test('a later window: an empty journal of server processes and an empty store of sent tasks are read without the protocol part', async () => {
    // What a workspace's storage holds once its first window's servers ended and its tasks were cleared.
    const r = await activate(0, { 'server-processes.json': '[]', 'sent-tasks.json': '{"mcpTasksSentTasks":1}\n{"removed":"s/call-1"}\n' });
    assert.deepEqual(r.atActivation, { bundles: ['extension.js', 'start.js'], zod: false });
    assert.deepEqual(r.afterConfig, { bundles: ['extension.js', 'start.js'], zod: false });
  });

  test('a user who set some mcpTasks values: they are read right after activation, not in it, with their checks (dist/checks.js, zod/mini), not the protocol part', async () => {
    const r = await activate(0, {}, { 'mcpTasks.requestor.ttlMs': 60_000, 'mcpTasks.prompts.open': 'immediately' });
    assert.deepEqual(r.atActivation, { bundles: ['extension.js', 'start.js'], zod: false });
    // zod/mini's checks make no global registry (zod's classic API and the SDK's schemas do).
    assert.deepEqual(r.afterConfig, { bundles: ['checks.js', 'extension.js', 'start.js'], zod: false });
    assert.deepEqual(r.values, { 'requestor.ttlMs': 60_000, 'prompts.open': 'immediately' }, 'the values the user set, not the defaults');
  });

  test('a later window with tasks an earlier one kept: they are read right after activation, not in it, with their checks (dist/checks.js, zod/mini), not the protocol part; a damaged one is dropped', async () => {
    const at = new Date(Date.now() - 60_000).toISOString();
    const finished = {
      key: 'kept-1',
      serverId: 'gone',
      serverName: 'gone',
      toolName: 'echo',
      argsSummary: '{"text":"hi"}',
      mode: 'task',
      origin: 'local',
      sentAt: Date.now() - 60_000,
      phase: 'done',
      task: { taskId: 'task-1', status: 'completed', createdAt: at, lastUpdatedAt: at, ttl: 3_600_000 },
      outcome: { kind: 'result', result: { content: [{ type: 'text', text: 'echo: hi' }] } },
      finishedAt: Date.now() - 59_000,
    };
    const damaged = { ...finished, key: 'kept-2', phase: 'not a phase' };
    const r = await activate(0, { 'sent-tasks.json': ['{"mcpTasksSentTasks":1}', JSON.stringify(finished), JSON.stringify(damaged), ''].join('\n') });
    assert.deepEqual(r.kept, [{ key: 'kept-1', phase: 'done', outcome: 'result' }]);
    // Nothing of the checks when activate() returned: the tasks were not read in it.
    assert.deepEqual(r.atActivation, { bundles: ['extension.js', 'start.js'], zod: false });
    assert.deepEqual(r.afterConfig, { bundles: ['checks.js', 'extension.js', 'start.js'], zod: false });
  });

  test('two stdio servers: the protocol part is evaluated after activate() returned, the servers run and a task call through it ends with its result', async () => {
    const r = await activate(2);
    assert.deepEqual(r.atActivation, { bundles: ['extension.js', 'start.js'], zod: false });
    assert.deepEqual(r.afterConfig, { bundles: ['extension.js', 'protocol.js', 'start.js'], zod: true });
    assert.equal(r.call?.mode, 'task');
    assert.equal(r.call?.outcome, 'result');
    assert.equal(r.call?.result?.content?.[0]?.text, 'from the bundle');
  });

  test('later windows compile the extension and the protocol part from the code cache the first window left, and a task call through them still ends with its result', async () => {
    const storage = mkdtempSync(join(tmpdir(), 'mcp-tasks-activation-'));
    try {
      const cacheFiles = () => readdirSync(join(storage, 'code-cache')).map((f) => f.replace(/-[\w.]+-\d+-\d+/, '')).sort();
      const first = await activateIn(storage, 1);
      assert.deepEqual(first.codeCache, { 'extension.js': 'missing' }, 'a first window loads the extension through Node, the protocol part with it');
      assert.deepEqual(cacheFiles(), ['extension.first.bin', 'protocol.first.bin'], 'the first window wrote the first caches of both as it went');
      // The first window's task call is kept: later windows read it right after activation, with the checks' part (dist/checks.js),
      // which the second window loads first (its first cache written as it goes) and the third from that cache.
      for (const [window, checks, files] of [
        ['second', 'missing', ['checks.first.bin', 'extension.bin', 'protocol.bin']],
        ['third', 'used', ['checks.bin', 'extension.bin', 'protocol.bin']],
      ] as const) {
        const later = await activateIn(storage, 1);
        assert.ok(later.kept.length > 0, `${window}: the earlier windows' calls were kept`);
        assert.deepEqual(later.codeCache, { 'extension.js': 'used', 'checks.js': checks, 'protocol.js': 'used' }, window);
        assert.deepEqual(later.afterConfig, { bundles: ['checks.js', 'extension.js', 'protocol.js', 'start.js'], zod: true });
        assert.equal(later.call?.outcome, 'result');
        assert.equal(later.call?.result?.content?.[0]?.text, 'from the bundle');
        assert.deepEqual(cacheFiles(), files, 'the caches were written again with what the window ran');
      }
    } finally {
      rmSync(storage, { recursive: true, force: true });
    }
  });

  test('a storage folder where the code cache cannot be written: the extension starts as without a cache, and its log says why once', async () => {
    const storage = mkdtempSync(join(tmpdir(), 'mcp-tasks-activation-'));
    try {
      // A file where the cache folder would be made.
      writeFileSync(join(storage, 'code-cache'), 'not a folder');
      const r = await activateIn(storage, 0);
      assert.deepEqual(r.codeCache, { 'extension.js': 'missing' });
      assert.deepEqual(r.atActivation, { bundles: ['extension.js', 'start.js'], zod: false });
      assert.equal(r.logged.length, 1, JSON.stringify(r.logged));
      assert.equal(r.logged[0]!.channel, 'MCP Tasks: start-up');
      assert.equal(r.logged[0]!.level, 'warn');
      assert.match(r.logged[0]!.message, /^the code cache: writing .*code-cache.*(EEXIST|ENOTDIR).*; the extension loads from its text instead/);
    } finally {
      rmSync(storage, { recursive: true, force: true });
    }
  });
});
