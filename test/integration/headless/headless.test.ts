/**
 * The built headless client (dist/headless-client.js) against the built demo server
 * (dist/demo-server.js --http): every tool called the right way (task vs plain, R-CAP-3/4),
 * the task-augmented sampling and elicitation round-trips completed (R-CREATE-1, R-RESULT-4),
 * exit codes. Assertions come from the client's `--report` JSON and its stderr log.
 *
 * Run: node --import tsx --test test/integration/headless.test.ts
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROFILE_FORM } from '../../../examples/demo-server/demoServer.js';
import { parseForm, validateAnswer } from '../../../src/core/forms/elicitationForm.js';
import type { HeadlessReport, ToolCallReport } from '../../../src/headless/run.js';
import { ROOT } from '../../helpers/host.js';
import { checkLeaks } from '../../helpers/leaks.js';

// Every test of this file fails if a disposable it made is left undisposed (test/helpers/leaks.ts).
checkLeaks();

const CLIENT = join(ROOT, 'dist', 'headless-client.js');
const DEMO = join(ROOT, 'dist', 'demo-server.js');
/** Keep the demo's slow tools short; everything else uses the arguments the form engine generates. */
const FAST_ARGS = JSON.stringify({ long_build: { steps: 3, stepMs: 100 }, confirm_deploy: { prepareMs: 50, deployMs: 50 }, flaky_job: { delayMs: 50 } });

interface ClientRun {
  code: number | null;
  stderr: string;
  stdout: string;
  report?: HeadlessReport;
}

function runClient(args: string[], timeoutMs = 60_000, env: Record<string, string> = {}): Promise<ClientRun> {
  const dir = mkdtempSync(join(tmpdir(), 'headless-'));
  const reportFile = join(dir, 'report.json');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT, '--report', reportFile, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`headless client timed out; stderr:\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      let report: HeadlessReport | undefined;
      try {
        report = JSON.parse(readFileSync(reportFile, 'utf8')) as HeadlessReport;
      } catch {
        /* no report (usage error) */
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stderr, stdout, report });
    });
  });
}

/** Starts `node dist/demo-server.js --http --port 0`; resolves with its URL from the "listening on" line. */
function startDemo(): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DEMO, '--http', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEMO_POLL_INTERVAL_MS: '200' } });
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`demo server did not start:\n${stderr}`)), 15_000);
    child.stderr!.on('data', (d) => {
      stderr += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child, stderr: () => stderr });
      }
    });
    child.on('exit', (code) => reject(new Error(`demo server exited (${code}):\n${stderr}`)));
  });
}

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe('headless client against the demo server (HTTP)', () => {
  let demo: Awaited<ReturnType<typeof startDemo>>;
  let run: ClientRun;
  const tool = (name: string): ToolCallReport => {
    const t = run.report!.tools.find((x) => x.tool === name);
    assert.ok(t, `tool ${name} in the report`);
    return t;
  };

  before(async () => {
    execFileSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, stdio: 'ignore' });
    demo = await startDemo();
    run = await runClient(['--tool-args', FAST_ARGS, demo.url]);
  });

  after(() => {
    demo?.child.kill('SIGTERM');
  });

  test('exits 0 with a report, after waiting until nothing is active', () => {
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.report, 'report written');
    assert.deepEqual(run.report.failures, []);
    assert.equal(run.report.exitCode, 0);
    assert.equal(run.report.server?.name, 'mcp-tasks-demo');
    assert.equal(run.report.server?.protocolVersion, '2025-11-25');
    assert.equal(run.report.server?.tasksToolsCall, true);
    assert.match(run.stderr, /all calls finished and no task is active/);
    assert.equal(run.stdout, '', 'logs go to stderr only');
  });

  test('calls every tool, as a task exactly where taskSupport is required/optional (R-CAP-3, R-CAP-4)', () => {
    const expected: Record<string, ['task' | 'plain', string | null]> = {
      long_build: ['task', 'required'],
      quick_echo: ['task', 'optional'],
      forbidden_echo: ['plain', 'forbidden'],
      plain_time: ['plain', null],
      confirm_deploy: ['task', 'required'],
      flaky_job: ['task', 'required'],
      ask_model: ['task', 'optional'],
      collect_profile: ['task', 'optional'],
    };
    assert.deepEqual(run.report!.tools.map((t) => t.tool).sort(), Object.keys(expected).sort());
    for (const [name, [mode, support]] of Object.entries(expected)) {
      const t = tool(name);
      assert.equal(t.mode, mode, `${name} mode`);
      assert.equal(t.taskSupport, support, `${name} taskSupport`);
      assert.equal(t.phase, 'done', `${name} phase`);
      assert.equal(t.outcome, 'result', `${name} got its result`);
      assert.equal(t.resultFetches, 1, `${name} result fetched once`);
      if (mode === 'task') assert.ok(t.taskId, `${name} has a task id`);
      else assert.equal(t.taskId, undefined);
    }
  });

  test('task results: completed tasks carry the tool result; a failed task carries its isError result (R-LIFE-3, R-RESULT-1)', () => {
    assert.equal(tool('long_build').status, 'completed');
    assert.match(tool('long_build').text!, /Build succeeded: 3 steps/);
    assert.equal(tool('quick_echo').text, tool('quick_echo').args.text);
    assert.equal(tool('forbidden_echo').text, tool('forbidden_echo').args.text);
    const flaky = tool('flaky_job');
    assert.equal(flaky.status, 'failed');
    assert.equal(flaky.isError, true);
    assert.match(flaky.text!, /flaky_job failed/);
    assert.match(flaky.statusMessage ?? '', /flaky_job failed/);
  });

  test('task-augmented sampling round-trip: our ledger task completed and the server got the echo (R-CREATE-1)', () => {
    const ask = tool('ask_model');
    const sampling = run.report!.received.filter((r) => r.method === 'sampling/createMessage');
    assert.equal(sampling.length, 1);
    const s = sampling[0]!;
    assert.equal(s.mode, 'task');
    assert.ok(s.taskId);
    assert.equal(s.finalStatus, 'completed');
    assert.equal(s.relatedTaskId, ask.taskId, 'sent on behalf of the ask_model task');
    assert.equal(s.answer, 'mcp-tasks-headless');
    const sc = ask.structuredContent as { model: string; route: string; clientTaskId: string | null };
    assert.equal(sc.model, 'mcp-tasks-headless');
    assert.match(sc.route, /client task/);
    assert.equal(sc.clientTaskId, s.taskId, 'the server polled our task');
    assert.equal(ask.text, `echo: ${ask.args.prompt}`);
  });

  test('task-augmented elicitation round-trip: the profile form answered with defaults + valid required values', () => {
    const profile = tool('collect_profile');
    const elicit = run.report!.received.find((r) => r.method === 'elicitation/create' && r.relatedTaskId === profile.taskId);
    assert.ok(elicit, 'elicitation for collect_profile');
    assert.equal(elicit.mode, 'task');
    assert.equal(elicit.finalStatus, 'completed');
    assert.equal(elicit.answer, 'accept');
    const sc = profile.structuredContent as { action: string; content: Record<string, unknown>; route: string; clientTaskId: string };
    assert.equal(sc.action, 'accept');
    assert.equal(sc.clientTaskId, elicit.taskId);
    assert.deepEqual(sc.content, elicit.content);
    // SEP-1034: every default applied.
    assert.equal(sc.content.homepage, 'https://example.com');
    assert.equal(sc.content.rating, 4.5);
    assert.equal(sc.content.newsletter, false);
    assert.equal(sc.content.role, 'dev');
    assert.deepEqual(sc.content.languages, ['typescript']);
    assert.deepEqual(validateAnswer(parseForm(PROFILE_FORM), sc.content), []);
  });

  test('input_required: the elicitation arrives on the tasks/result stream and the task completes (R-RESULT-4)', () => {
    const deploy = tool('confirm_deploy');
    const elicit = run.report!.received.find((r) => r.method === 'elicitation/create' && r.relatedTaskId === deploy.taskId);
    assert.ok(elicit, 'elicitation for confirm_deploy');
    assert.equal(elicit.mode, 'plain', 'a plain request on the side channel');
    assert.deepEqual(elicit.content, { environment: 'staging', confirm: false });
    assert.equal(deploy.status, 'completed');
    assert.match(deploy.text!, /not confirmed.*tasks\/result side channel/);
  });

  test('the log narrates each call and each received task', () => {
    assert.match(run.stderr, /calling long_build as a task/);
    assert.match(run.stderr, /calling forbidden_echo plainly/);
    assert.match(run.stderr, /received task \S+ \(sampling\/createMessage\): updated completed/);
    assert.match(run.stderr, /received task \S+ \(elicitation\/create\): updated completed/);
    assert.match(run.stderr, /done in \d+ ms: 8 call\(s\) \(6 as tasks\), 3 server request\(s\) answered \(2 as tasks\), 0 failure\(s\); exit 0/);
  });

  test('says which revision it negotiated and how: with a 2025 server, initialize after the server/discover probe', () => {
    assert.equal(run.report!.server?.negotiatedBy, 'initialize');
    assert.match(run.stderr, /negotiated MCP 2025-11-25 with initialize/);
  });

  test('--protocol: a 2025 revision goes straight to initialize (no probe); 2026-07-28 is pinned, so a 2025-only server is refused', async () => {
    const legacy = await runClient(['--protocol', '2025-11-25', '--verbose', '--only', 'plain_time', demo.url]);
    assert.equal(legacy.code, 0, legacy.stderr);
    assert.match(legacy.stderr, /negotiated MCP 2025-11-25 with initialize/);
    assert.doesNotMatch(legacy.stderr, /server\/discover/);
    const probed = await runClient(['--verbose', '--only', 'plain_time', demo.url]);
    assert.match(probed.stderr, /server\/discover/, 'without --protocol the client probes as the extension does');
    const pinned = await runClient(['--protocol', '2026-07-28', '--only', 'plain_time', demo.url]);
    assert.equal(pinned.code, 1, pinned.stderr);
    assert.equal(pinned.report!.tools.length, 0, 'nothing called in another revision');
  });

  test('calls a tool with the arguments the conformance context names (toolCalls)', async () => {
    const context = JSON.stringify({ toolCalls: [{ name: 'forbidden_echo', arguments: { text: 'from the context' } }] });
    const r = await runClient(['--only', 'forbidden_echo', demo.url], 60_000, { MCP_CONFORMANCE_CONTEXT: context });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.report!.tools[0]?.args.text, 'from the context');
  });

  test('exits 1 when a call fails at protocol level (a JSON-RPC error); an isError result alone is not a failure', async () => {
    const r = await runClient(['--only', 'long_build,forbidden_echo', '--tool-args', JSON.stringify({ long_build: { steps: 0 }, forbidden_echo: { text: 5 } }), demo.url]);
    assert.equal(r.code, 1, r.stderr);
    const build = r.report!.tools.find((t) => t.tool === 'long_build')!;
    assert.equal(build.outcome, 'error');
    assert.equal(build.error?.code, -32602);
    const echo = r.report!.tools.find((t) => t.tool === 'forbidden_echo')!;
    assert.equal(echo.outcome, 'result');
    assert.equal(echo.isError, true);
    assert.equal(r.report!.failures.length, 1);
    assert.match(r.report!.failures[0]!, /^long_build: JSON-RPC error -32602/);
  });
});

describe('headless client: failures and usage', () => {
  test('exits 1 when the server cannot be reached', async () => {
    const r = await runClient([`http://127.0.0.1:${await closedPort()}/mcp`]);
    assert.equal(r.code, 1);
    assert.match(r.report!.failures[0]!, /failed to start/);
  });

  test('exits 2 on usage errors (no URL, unknown option, bad --tool-args, unknown --protocol)', async () => {
    for (const args of [[], ['--nope', 'http://127.0.0.1:1/mcp'], ['--tool-args', '{', 'http://127.0.0.1:1/mcp'], ['ftp://x'], ['--protocol', '2099-01-01', 'http://127.0.0.1:1/mcp']]) {
      const r = await runClient(args);
      assert.equal(r.code, 2, `${JSON.stringify(args)}: ${r.stderr}`);
      assert.match(r.stderr, /usage: headless-client/);
    }
  });

  test('exits 2 on a conformance context that is not JSON, or has a field of the wrong type, naming it', async () => {
    const notJson = await runClient(['http://127.0.0.1:1/mcp'], 60_000, { MCP_CONFORMANCE_CONTEXT: '{' });
    assert.equal(notJson.code, 2);
    assert.match(notJson.stderr, /MCP_CONFORMANCE_CONTEXT is not JSON/);
    const wrongField = await runClient(['http://127.0.0.1:1/mcp'], 60_000, { MCP_CONFORMANCE_CONTEXT: JSON.stringify({ toolCalls: 5 }) });
    assert.equal(wrongField.code, 2);
    assert.match(wrongField.stderr, /MCP_CONFORMANCE_CONTEXT field toolCalls/);
  });
});
