/**
 * One headless run against one server over Streamable HTTP: connect through `McpConnection`,
 * list every tool, call each one through `TaskTracker.callTool` (as a task wherever the server's
 * capability and the tool's `execution.taskSupport` allow or require it, R-CAP-3/4), answer every
 * request the server sends with the deterministic responders, and keep serving until all our
 * calls have finished and no task in either direction is active. Waits on events, never sleeps.
 */
import { type Tool, type VersionNegotiationMode } from '@modelcontextprotocol/client';
import type { ServerDefinition } from '../core/config/config.js';
import { McpConnection, describeState, type ServerLog } from '../core/connection/connection.js';
import { defaultAnswer, parseForm, validateAnswer } from '../core/forms/elicitationForm.js';
import { errorMessage } from '../core/base/errors.js';
import { type Event } from '../core/base/event.js';
import { DisposableStore } from '../core/base/lifecycle.js';
import { TaskLedger } from '../core/receiver/ledger.js';
import { TaskTracker, taskModeFor } from '../core/requestor/tracker.js';
import { HeadlessResponders } from './responders.js';
import { wireForCapabilities } from '../core/requestor/wire/select.js';
import type { ServerAuth } from '../core/connection/auth/serverAuth.js';
import { isUnauthorized, SignInRequiredError } from '../core/connection/auth/signInRequired.js';
import { statesOf } from '../core/connection/registry.js';
import { argumentsFromListing } from './scenarios.js';
import { failureOf, summarizeReport, toolReport, type HeadlessReport, type ReceivedRequestReport, type ToolCallReport } from './report.js';
import { hostSides } from '../core/requestor/hostSides.js';
import { receiverOf } from '../core/receiver/wire/receiverSide.js';

export type { HeadlessReport, ReceivedRequestReport, ToolCallReport } from './report.js';

export interface HeadlessOptions {
  readonly url: string;
  readonly log: ServerLog;
  readonly clientInfo: { name: string; version: string };
  readonly scenario?: string;
  /** Per-tool arguments merged over the generated ones: `{ toolName: { arg: value } }`. */
  readonly toolArgs?: Readonly<Record<string, Record<string, unknown>>>;
  /** Only call these tools (default: all). */
  readonly only?: readonly string[];
  /** Never call these tools. */
  readonly skip?: readonly string[];
  /** Give up after this long (ms). */
  readonly timeoutMs?: number;
  /** Extra HTTP headers (e.g. Authorization). */
  readonly headers?: Readonly<Record<string, string>>;
  /** OAuth for the server (see auth.ts); a "sign-in required" is then answered by signing in, without a person. */
  readonly authFor?: (definition: ServerDefinition) => ServerAuth | undefined;
  /** How the revision is chosen (default `'auto'`, as in the extension: `server/discover`, else `initialize`). */
  readonly versionNegotiation?: VersionNegotiationMode;
}

/** Sign-ins one run does at most (a server that keeps asking is a failure, not a loop). */
const MAX_SIGN_INS = 3;

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_TIMEOUT = 3;

export async function runHeadless(options: HeadlessOptions): Promise<HeadlessReport> {
  const started = Date.now();
  const log = options.log;
  const failures: string[] = [];
  const toolReports: ToolCallReport[] = [];
  const definition: ServerDefinition = {
    id: 'server',
    name: hostOf(options.url),
    source: { kind: 'user', file: '(command line)' },
    transport: { type: 'http', url: options.url, headers: { ...options.headers } },
    inputs: [],
  };
  const ledger = new TaskLedger();
  const responders = new HeadlessResponders(log);
  const connection = new McpConnection(definition, {
    sides: hostSides(ledger, responders),
    log,
    variables: { env: process.env, workspaceFolder: process.cwd() },
    clientInfo: options.clientInfo,
    auth: options.authFor?.(definition),
    versionNegotiation: options.versionNegotiation,
  });
  const tracker = new TaskTracker({ connectionFor: (id) => (id === connection.id ? connection : undefined) });
  const store = new DisposableStore();
  let exitCode = EXIT_OK;
  let serverInfo: HeadlessReport['server'];

  // Narrate what happens, from the events the UI would use.
  const lastSeen = new Map<string, string>();
  store.add(
    tracker.onDidChange(({ key, kind }) => {
      if (kind === 'removed') return;
      const s = tracker.get(key);
      if (!s) return;
      const line = `${s.phase}${s.task ? ` ${s.task.status}${s.task.statusMessage ? ` "${s.task.statusMessage}"` : ''}` : ''}${s.progress ? ` progress ${s.progress.progress}${s.progress.total !== undefined ? `/${s.progress.total}` : ''}` : ''}`;
      if (lastSeen.get(key) === line) return;
      lastSeen.set(key, line);
      log.info(`call ${s.toolName} [${s.mode}${s.task ? ` ${s.task.taskId}` : ''}]: ${line}`);
    }),
  );
  store.add(
    ledger.onDidChange((c) => {
      if (!c.statusChanged) return;
      log.info(`received task ${c.task.taskId} (${ledger.tasksOf(c.serverId)?.get(c.taskId)?.info.method ?? 'request'}): ${c.kind} ${c.task.status}`);
    }),
  );
  store.add(connection.onDidChangeState((s) => log.debug(`connection: ${describeState(s)}`)));
  // Followed as the extension's tracker follows its registry: a reconnect resumes the calls a drop paused.
  const states = store.add(statesOf([connection]));
  store.add(tracker.followServers(states));

  const timeoutMs = options.timeoutMs ?? 300_000;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);

  try {
    if (options.scenario) log.info(`scenario: ${options.scenario}`);
    log.info(`connecting to ${options.url}`);
    // Sign in whenever the server asks (at start, mid-session, after a step-up), a few times at most.
    let signIns = 0;
    const signInIfAsked = async (e?: unknown): Promise<boolean> => {
      const asked = e instanceof SignInRequiredError || isUnauthorized(e);
      if (!asked && connection.state.kind !== 'needs-sign-in') return false;
      // An Unauthorized answer mid-session moves the connection to needs-sign-in right after.
      await waitUntil(() => connection.state.kind === 'needs-sign-in', [connection.onDidChangeState], deadline.signal);
      if (connection.state.kind !== 'needs-sign-in') return false;
      if (++signIns > MAX_SIGN_INS) throw new Error(`the server asked for a sign-in more than ${MAX_SIGN_INS} times; giving up`);
      log.info(`signing in at ${connection.state.authorizationServer}${connection.state.scope ? ` (scope ${connection.state.scope})` : ''}`);
      await raceAbort(connection.signIn(deadline.signal), deadline.signal);
      return true;
    };
    const withSignIn = async <T>(op: () => Promise<T>): Promise<T> => {
      for (;;) {
        try {
          return await op();
        } catch (e) {
          if (!(await signInIfAsked(e))) throw e;
        }
      }
    };
    await raceAbort(
      withSignIn(() => connection.start()),
      deadline.signal,
    );
    const caps = connection.serverCapabilities ?? {};
    // The server's task wire: the 2026-07-28 Tasks extension when it declares it (the server then decides per call).
    const wire = wireForCapabilities(caps);
    const tasksToolsCall = wire.toolCallsAsTasks(caps);
    const info = connection.client.getServerVersion();
    const protocolVersion = connection.state.kind === 'running' ? connection.state.protocolVersion : undefined;
    const negotiatedBy = connection.client.isModern ? 'server/discover' : 'initialize';
    serverInfo = { name: info?.name, version: info?.version, protocolVersion, negotiatedBy, tasksToolsCall, taskWire: wire.generation };
    log.info(`negotiated MCP ${protocolVersion ?? '(unknown revision)'} with ${negotiatedBy}`);
    log.info(`server capabilities: ${JSON.stringify(caps)}`);

    const tools = caps.tools ? await raceAbort(withSignIn(() => listAllTools(connection)), deadline.signal) : [];
    if (!caps.tools) log.info('the server declares no tools capability; nothing to call');
    log.info(`tools: ${tools.length ? tools.map((t) => `${t.name} (taskSupport ${t.execution?.taskSupport ?? 'absent'})`).join(', ') : '(none)'}`);

    const selected = tools.filter((t) => (!options.only || options.only.includes(t.name)) && !options.skip?.includes(t.name));
    const fromListing = argumentsFromListing(options.scenario, tools);
    const calls = selected.map(async (tool) => {
      const args = argumentsFor(tool, { ...fromListing[tool.name], ...options.toolArgs?.[tool.name] }, log);
      const mode = wire.serverDecides && tasksToolsCall ? 'server-decides' : taskModeFor(tasksToolsCall, tool, true);
      log.info(`calling ${tool.name} ${mode === 'task' ? 'as a task' : mode === 'plain' ? 'plainly' : `(${wire.generation}: the server decides whether it becomes a task)`} with ${JSON.stringify(args)}`);
      try {
        const key = await tracker.callTool(connection, tool, args);
        return { tool, args, key };
      } catch (e) {
        return { tool, args, error: errorMessage(e) };
      }
    });
    let sent = await raceAbort(Promise.all(calls), deadline.signal);

    // Serve until every call has finished and no task is active on either side.
    await waitUntil(
      () => tracker.activeCount === 0 && ledger.activeCount === 0,
      [tracker.onDidChange, ledger.onDidChange],
      deadline.signal,
    );
    // A call that ended in "sign-in required" (step-up: insufficient_scope) is made again after signing in.
    while (await signInIfAsked()) {
      const again = sent.filter((s) => failureOf(toolReport(s.tool, s.args, s.key ? tracker.get(s.key) : undefined, s.error)));
      log.info(`calling again after the sign-in: ${again.map((s) => s.tool.name).join(', ') || '(none)'}`);
      const redone = await raceAbort(
        Promise.all(
          again.map(async (s) => {
            try {
              return { ...s, key: await tracker.callTool(connection, s.tool, s.args), error: undefined };
            } catch (e) {
              return { ...s, key: undefined, error: errorMessage(e) };
            }
          }),
        ),
        deadline.signal,
      );
      sent = sent.map((s) => redone.find((r) => r.tool === s.tool) ?? s);
      await waitUntil(() => tracker.activeCount === 0 && ledger.activeCount === 0, [tracker.onDidChange, ledger.onDidChange], deadline.signal);
    }
    if (tracker.activeCount === 0 && ledger.activeCount === 0) log.info('all calls finished and no task is active');

    for (const s of sent) {
      const report = toolReport(s.tool, s.args, s.key ? tracker.get(s.key) : undefined, s.error);
      toolReports.push(report);
      const failure = failureOf(report);
      if (failure) failures.push(failure);
      log.info(`result ${s.tool.name}: ${summarizeReport(report)}`);
    }
  } catch (e) {
    if (deadline.signal.aborted) {
      exitCode = EXIT_TIMEOUT;
      failures.push(`${errorMessage(deadline.signal.reason)}: ${tracker.activeCount} call(s) and ${ledger.activeCount} received task(s) still active`);
      for (const s of tracker.snapshot()) if (s.phase === 'sending' || s.phase === 'tracking') log.error(`still active: ${s.toolName} [${s.mode}] ${s.task?.status ?? s.phase}`);
    } else {
      failures.push(errorMessage(e));
    }
  } finally {
    clearTimeout(timer);
  }

  const received: ReceivedRequestReport[] = responders.answered.map((a) => {
    const finalStatus = a.taskId ? receiverOf(connection)?.tasks.get(a.taskId)?.task.status : undefined;
    return finalStatus ? { ...a, finalStatus } : a;
  });
  if (failures.length && exitCode === EXIT_OK) exitCode = EXIT_FAILED;
  for (const f of failures) log.error(`FAILED: ${f}`);

  store.dispose();
  tracker.dispose();
  await connection.stop().catch(() => undefined);
  connection.dispose();
  ledger.dispose();

  const report: HeadlessReport = {
    client: options.clientInfo,
    ...(options.scenario ? { scenario: options.scenario } : {}),
    url: options.url,
    ...(serverInfo ? { server: serverInfo } : {}),
    tools: toolReports,
    received,
    failures,
    exitCode,
    durationMs: Date.now() - started,
  };
  log.info(
    `done in ${report.durationMs} ms: ${toolReports.length} call(s) (${toolReports.filter((t) => t.mode === 'task').length} as tasks), ` +
      `${received.length} server request(s) answered (${received.filter((r) => r.mode === 'task').length} as tasks), ${failures.length} failure(s); exit ${exitCode}`,
  );
  return report;
}

async function listAllTools(connection: McpConnection): Promise<Tool[]> {
  const tools: Tool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const res = await connection.client.listTools(cursor ? { cursor } : undefined);
    tools.push(...res.tools);
    if (!res.nextCursor || seen.has(res.nextCursor)) break;
    seen.add(res.nextCursor);
    cursor = res.nextCursor;
  }
  return tools;
}

/** Arguments from the tool's inputSchema: defaults applied, required fields filled (the form engine), then overrides. */
export function argumentsFor(tool: Pick<Tool, 'name' | 'inputSchema'>, overrides: Record<string, unknown> | undefined, log: ServerLog): Record<string, unknown> {
  const form = parseForm(tool.inputSchema, { source: 'tool' });
  if (form.unsupported) log.debug(`${tool.name}: the form can't express all of its inputSchema (${form.unsupported}); minimal values used`);
  const args = { ...defaultAnswer(form, { fillRequired: true }), ...overrides };
  const problems = validateAnswer(form, args);
  if (problems.length) log.warn(`${tool.name}: arguments may be invalid: ${problems.map((p) => p.message).join('; ')}`);
  return args;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** Rejects with the signal's reason when it aborts first. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Resolves once `check()` holds, re-checking whenever one of `events` fires; rejects when `signal` aborts. */
function waitUntil(check: () => boolean, events: ReadonlyArray<Event<unknown>>, signal: AbortSignal): Promise<void> {
  if (check()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const subs = new DisposableStore();
    const done = (err?: unknown) => {
      subs.dispose();
      signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve();
    };
    const onAbort = () => done(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    for (const e of events) {
      subs.add(
        e(() => {
          // Events fire mid-update; check once the emitter's caller has finished.
          queueMicrotask(() => {
            if (!subs.isDisposed && check()) done();
          });
        }),
      );
    }
  });
}
