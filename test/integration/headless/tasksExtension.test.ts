/**
 * The headless client on the 2026-07-28 Tasks extension: against the demo server's
 * Tasks extension mode (`dist/demo-server.js --http --tasks-extension`) it picks that wire, the
 * server decides which calls become tasks, the input a task needs mid-way is answered through
 * the same deterministic responders (tasks/update), and a failed task's JSON-RPC error is reported.
 * Needs `node esbuild.mjs` first.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HeadlessReport } from '../../../src/headless/run.js';
import { ROOT, startHttpFixture } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const CLIENT = join(ROOT, 'dist', 'headless-client.js');
const DEMO = join(ROOT, 'dist', 'demo-server.js');
const FAST = JSON.stringify({ ext_count: { steps: 3, stepMs: 100 }, ext_fail: { stepMs: 50 } });

function runClient(args: string[]): Promise<{ code: number | null; stderr: string; report: HeadlessReport }> {
  const dir = mkdtempSync(join(tmpdir(), 'headless-ext-'));
  const file = join(dir, 'report.json');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT, '--report', file, '--timeout', '30000', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve({ code, stderr, report: JSON.parse(readFileSync(file, 'utf8')) as HeadlessReport });
      } catch (e) {
        reject(new Error(`no report (${String(e)}); stderr:\n${stderr}`));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

describe('headless client on the 2026-07-28 Tasks extension (HTTP)', () => {
  let server: { url: string; child: ChildProcess };
  before(async () => {
    process.env.DEMO_POLL_INTERVAL_MS = '100';
    server = await startHttpFixture(DEMO, ['--port', '0', '--tasks-extension'], 'demo server', 15_000);
  });
  after(() => server?.child.kill('SIGTERM'));

  test('speaks the extension: tasks where the server makes them, plain answers accepted, input answered with tasks/update', { timeout: 60_000 }, async () => {
    const run = await runClient(['--tool-args', FAST, '--skip', 'ext_fail,ext_stats', server.url]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.report.failures, []);
    assert.equal(run.report.server?.taskWire, '2026-07-28');
    const byTool = new Map(run.report.tools.map((t) => [t.tool, t]));
    assert.equal(byTool.get('ext_count')?.mode, 'task');
    assert.equal(byTool.get('ext_count')?.wire, '2026-07-28');
    assert.equal(byTool.get('ext_count')?.text, 'Counted to 3.');
    assert.equal(byTool.get('ext_echo')?.mode, 'plain', 'the server answered it at once');
    assert.match(byTool.get('ext_ask_name')?.text ?? '', /^Hello, /);
    const asked = run.report.received.filter((r) => r.method === 'elicitation/create');
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.mode, 'plain', 'answered like a direct request');
    assert.equal(asked[0]!.sentTask?.inputKey, 'name');
  });

  test('a failed task is a protocol-level failure with its JSON-RPC error', { timeout: 60_000 }, async () => {
    const run = await runClient(['--tool-args', FAST, '--only', 'ext_fail', server.url]);
    assert.equal(run.code, 1);
    const t = run.report.tools[0]!;
    assert.equal(t.status, 'failed');
    assert.deepEqual(t.error, { code: -32603, message: 'API rate limit exceeded' });
  });
});
