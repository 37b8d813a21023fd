/**
 * Composition root: builds the core (ledger, registry, tracker, view) and the UI adapters,
 * and registers every disposable. Nothing here waits: servers start in the background.
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { HostResponders } from './core/receiver/wire/responders.js';
import type { CodeCacheReport } from './core/startup/codeCache.js';
import { CONSENT_STATE_KEY, ConsentStore, LEGACY_SAMPLING_CONSENT_KEY } from './core/config/consent.js';
import { TaskLedger } from './core/receiver/ledger.js';
import { ServerRegistry } from './core/connection/registry.js';
import { ledgerLimitsFrom } from './core/config/settings.js';
import { TaskTracker } from './core/requestor/tracker.js';
import { TaskView, type TaskViewItem } from './core/view/taskView.js';
import { isSentInFlight } from './core/view/causal.js';
import { ProcessJournal } from './core/connection/processJournal.js';
import { defaultHostDir } from './core/serverHost/hostDir.js';
import { OpenRequests } from './core/view/openRequests.js';
import { sentRowId } from './core/view/rowIds.js';
import { registerCommands, updateContextKeys } from './ui/commands/commands.js';
import { Commands, Views } from './ui/commands/commandIds.js';
import { QuickPickElicitor } from './ui/prompts/elicitation.js';
import { InputValueStore } from './ui/prompts/inputStore.js';
import { ServerLogs } from './ui/servers/logs.js';
import { PromptQueue } from './ui/prompts/prompts.js';
import { TASK_SCHEME, TASK_TEXT_SCHEME, TaskDocumentProvider, taskUri } from './ui/documents/resultDocuments.js';
import { LanguageModelSampler } from './ui/prompts/sampling.js';
import { REPLY_SCHEME, ReplyEditors } from './ui/prompts/replyEditor.js';
import { REQUEST_SCHEME, RequestDocuments } from './ui/documents/requestDocuments.js';
import { ServerConfigSource } from './ui/servers/serverConfig.js';
import { StartGate } from './ui/servers/startGate.js';
import { TaskStatusBar } from './ui/view/statusBar.js';
import { TaskEndSignals } from './ui/view/taskEnds.js';
import { ServerErrorSignals } from './ui/servers/serverErrors.js';
import { FAILURE_MEMORY_STATE_KEY, FailureMemory } from './core/config/failureMemory.js';
import { UntrustedServersSignal } from './ui/view/trustSignal.js';
import { maybeShowTwoHostsNotice } from './ui/servers/twoHosts.js';
import { TasksTreeProvider } from './ui/view/tasksTree.js';
import { TaskActions } from './core/view/taskActions.js';
import { plainRequestCanceller } from './ui/commands/cancelWithChildren.js';
import { toVs } from './ui/adapters/vsDisposable.js';
import { liveNoticeTexts } from './ui/adapters/notify.js';
import { UserSettings } from './ui/adapters/userSettings.js';
import { ToolRunner } from './ui/commands/toolRunner.js';
import { ExtensionApi } from './ui/api/extensionApi.js';
import type { McpTasksExports } from '../api/mcp-tasks';
import { registerAgentTools } from './ui/api/agentTools.js';
import { extensionAuthFor, registerSignIn } from './ui/servers/signIn.js';
import { registerCredentialsRejected } from './ui/servers/credentialsRejected.js';
import { sentTasksStorage } from './ui/adapters/sentTasksStorage.js';

/** Workspace-state key of the sent tasks (kept across reloads). */
const SENT_TASKS_KEY = 'mcpTasks.sentTasks';
/** Prefix of the workspace-state keys of kept Streamable HTTP sessions (connection/httpSession.ts). */
const SESSION_KEY_PREFIX = 'mcpTasks.session ';

/**
 * What `activate` returns: the API for other extensions (`api/mcp-tasks.d.ts`); outside
 * production mode also the internals its own extension-host tests use.
 */
export interface McpTasksApi extends McpTasksExports {
  readonly activationTimeMs: number;
  /** CPU of the extension-host process during `activate()` (ms): unlike the wall time, not stretched by other processes on a loaded machine. */
  readonly activationCpuMs: number;
  readonly registry: ServerRegistry;
  readonly ledger: TaskLedger;
  readonly tracker: TaskTracker;
  readonly view: TaskView;
  readonly prompts: PromptQueue;
  /** Sampling through `vscode.lm` and the remembered "always allow" consents. */
  readonly sampler: LanguageModelSampler;
  /** Remembered consents and approvals, keyed by definition fingerprint. */
  readonly consents: ConsentStore;
  readonly config: ServerConfigSource;
  /** The user's `mcpTasks.*` values, read at their first need. */
  readonly settings: UserSettings;
  /** The open reply editors ("Write the reply myself"). */
  readonly replies: ReplyEditors;
  /** The status-bar text as shown ('' when hidden). */
  statusBarText(): string;
  /** The Tasks tree as its provider and VS Code see it (tests: why rows did not change). */
  treeState(): Record<string, unknown>;
  /** Fires when VS Code has fetched every change of the Tasks tree told to it (tests: a hover is not cut by a redraw). */
  readonly onDidFetchTree: vscode.Event<void>;
  /** Failed-server notifications and the status-bar error item. */
  readonly serverErrors: ServerErrorSignals;
  /** The texts of the notifications shown now that are withdrawn when stale (a waiting request's). */
  liveNotices(): string[];
  /** Resolves when the current configuration has been read and applied. */
  ready(): Promise<void>;
  /** The URI of a task's document with this window's token (resultDocuments.ts): tests open it as the Tasks view would. */
  taskDocumentUri(item: TaskViewItem): vscode.Uri;
}

let tracker: TaskTracker | undefined;

/**
 * `codeCache`: what the entry (src/start.ts) tells of the code cache it loaded this bundle through; absent when the
 * bundle is loaded directly (tests, the bench's older rows).
 */
export function activate(context: vscode.ExtensionContext, codeCache?: CodeCacheReport): McpTasksApi {
  const started = performance.now();
  const startedCpu = process.cpuUsage();
  const subs = context.subscriptions;
  // The ledger starts on the defaults and takes the user's limits when the settings are read: before a connection can
  // bring it a task (the registry's sides read them) and right after activation at the latest.
  const ledger = new TaskLedger();
  const userSettings = new UserSettings((s) => ledger.updateLimits(ledgerLimitsFrom(s)));
  const settings = () => userSettings.current;
  const logs = new ServerLogs();
  const prompts = new PromptQueue(() => settings()['prompts.open']);
  const requestDocs = new RequestDocuments();
  const replies = new ReplyEditors(requestDocs);
  // Consent was once stored by server name, which another server can take: such entries are dropped, never honoured.
  if (context.globalState.get(LEGACY_SAMPLING_CONSENT_KEY) !== undefined) void context.globalState.update(LEGACY_SAMPLING_CONSENT_KEY, undefined);
  const consents = new ConsentStore({ get: () => context.globalState.get(CONSENT_STATE_KEY), set: (v) => context.globalState.update(CONSENT_STATE_KEY, v) });
  const inputs = new InputValueStore(context.secrets);
  const config = new ServerConfigSource(inputs);
  // What ${workspaceFolder} and ${userHome} stand for, to show them resolved in the approval and read the envFile there.
  const gate = new StartGate(consents, (def) => {
    const { workspaceFolder, userHome } = config.variablesFor(def);
    return { workspaceFolder, userHome };
  });
  const sampler = new LanguageModelSampler(consents, prompts, (server) => settings()['sampling.modelByServer'][server], requestDocs, replies);
  const connectionFor = (id: string) => registry.get(id);
  const elicitor = new QuickPickElicitor(prompts, connectionFor);
  // Plain requests (not tasks) are open in the view while they are answered (core/view/openRequests.ts).
  const requests = new OpenRequests();
  const responders: HostResponders = {
    sampling: (params, ctx) => requests.serve(ctx, 'sampling/createMessage', params, (c) => sampler.sample(params, c)),
    elicitation: (params, ctx) => requests.serve(ctx, 'elicitation/create', params, (c) => elicitor.elicit(params, c)),
  };
  // The stdio servers a window that is gone left running (a reload did not get to stop them) are stopped first.
  // One not provably the process that was started (a reused pid) is left alone; why goes to a log of its own, made only then.
  const processes = new ProcessJournal(join((context.storageUri ?? context.globalStorageUri).fsPath, 'server-processes.json'), {
    log: (message) => logs.logFor('#leftover-processes', vscode.l10n.t('leftover server processes')).warn(message),
  });
  processes.stopLeftovers();
  const registry = new ServerRegistry({
    sides: (definition) => {
      // The tasks a connection's server sends are held to the user's limits: read before the first connection.
      void userSettings.current;
      return hostSidesModule().hostSides(ledger, responders)(definition);
    },
    logFor: (def) => logs.logFor(def.id, def.name),
    variablesFor: (def) => config.variablesFor(def),
    // Workspace trust and first-start approval (src/core/config/gate.ts): every connection asks it
    // before each connect; nothing of a definition is resolved, spawned or contacted before it says yes.
    gate: gate.gate,
    // OAuth for HTTP servers: tokens in SecretStorage, sign-in through the system browser (ui/servers/signIn.ts).
    authFor: (def) => extensionAuthFor(def, context.secrets),
    processes,
    // Streamable HTTP sessions outlive a window reload: offered again to their server (kept per definition and URL).
    sessions: {
      get: (key) => context.workspaceState.get(`${SESSION_KEY_PREFIX}${key}`),
      set: (key, session) => void context.workspaceState.update(`${SESSION_KEY_PREFIX}${key}`, session),
    },
    // Stdio servers run in the server host (src/core/serverHost/), so a reload reattaches to them (not on Windows: no Unix socket).
    serverHost:
      process.platform === 'win32'
        ? undefined
        : {
            launch: { dir: defaultHostDir(), hostScript: join(context.extensionPath, 'dist', 'serverHost.js') },
            graceMs: () => settings()['serverHost.graceSeconds'] * 1000,
            hosts: (def) => settings()['serverHost.enabled'] && !settings()['serverHost.excludedServers'].includes(def.name),
          },
    // A server the user has calls in flight on is restarted for as long as it takes (capped backoff).
    hasWork: (def) => (tracker?.snapshotsWhere((s) => s.serverId === def.id && isSentInFlight(s)).length ?? 0) > 0,
  });
  tracker = new TaskTracker({
    connectionFor,
    storage: sentTasksStorage(context, SENT_TASKS_KEY),
    ttlMs: () => settings()['requestor.ttlMs'],
    maxQuestionsPerCall: () => settings()['requestor.maxQuestionsPerCall'],
    optionalAsTask: () => settings()['requestor.optionalToolsAsTasks'],
    defaultPollIntervalMs: () => settings()['requestor.defaultPollIntervalMs'],
    maxStoredTasks: () => settings()['requestor.maxStoredTasks'],
    maxConcurrentPerServer: () => settings()['requestor.maxConcurrentTasksPerServer'],
    maxFinishedAgeMs: () => settings()['requestor.maxFinishedAgeHours'] * 3_600_000,
  });
  const sent = tracker;
  const view = new TaskView(ledger, sent, { requests });
  const actions = new TaskActions(sent, ledger, plainRequestCanceller(prompts, requests));
  const tree = new TasksTreeProvider(registry, view);
  const treeView = vscode.window.createTreeView(Views.tasks, { treeDataProvider: tree, showCollapseAll: true });
  const statusBar = new TaskStatusBar(view);
  // The ends seen before this window are not told again (taken when the tracker reads its tasks).
  const taskEnds = new TaskEndSignals(sent);
  const failureMemory = new FailureMemory({ get: () => context.workspaceState.get<string[]>(FAILURE_MEMORY_STATE_KEY, []), set: (keys) => context.workspaceState.update(FAILURE_MEMORY_STATE_KEY, keys) });
  const serverErrors = new ServerErrorSignals({ registry, showLog: (c) => logs.show(c.id, c.name), memory: failureMemory });
  const untrusted = new UntrustedServersSignal(registry);
  const documents = new TaskDocumentProvider(view);
  const extensionApi = new ExtensionApi(registry, sent, view);
  const toolRunner = new ToolRunner(
    registry,
    sent,
    () => settings()['requestor.optionalToolsAsTasks'],
    (key) => {
      const item = view.item(sentRowId(key));
      if (item && treeView.visible) void treeView.reveal(tree.nodeForTask(item.id), { select: true, focus: false }).then(undefined, () => undefined);
    },
    prompts,
  );

  const refreshChrome = () => {
    updateContextKeys(view, registry, prompts);
    // The requests waiting for you: the view's one list, which the status bar and Respond… read too.
    const waiting = view.counts().waiting;
    treeView.badge = waiting ? { value: waiting, tooltip: waiting === 1 ? vscode.l10n.t('1 request waiting for you') : vscode.l10n.t('{0} requests waiting for you', waiting) } : undefined;
  };

  if (codeCache) {
    // A cache that cannot be read or written costs later windows some milliseconds, nothing else: said in a log made only then.
    const logProblem = (problem: string) => logs.logFor('#start-up', vscode.l10n.t('start-up')).warn(`the code cache: ${problem}; the extension loads from its text instead (slower to start, nothing else changes)`);
    codeCache.problems.forEach(logProblem);
    // Before the logs in this list: unsubscribed before they are disposed.
    subs.push(toVs(codeCache.onProblem(logProblem)));
  }
  subs.push(
    { dispose: () => ledger.dispose() },
    { dispose: () => consents.dispose() },
    gate,
    logs,
    prompts,
    config,
    { dispose: () => registry.dispose() },
    { dispose: () => sent.dispose() },
    { dispose: () => view.dispose() },
    { dispose: () => requests.dispose() },
    extensionApi,
    tree,
    treeView,
    statusBar,
    taskEnds,
    serverErrors,
    untrusted,
    documents,
    vscode.workspace.registerTextDocumentContentProvider(TASK_SCHEME, documents),
    vscode.workspace.registerTextDocumentContentProvider(TASK_TEXT_SCHEME, documents),
    vscode.languages.registerCodeLensProvider({ scheme: TASK_TEXT_SCHEME }, documents),
    requestDocs,
    replies,
    vscode.workspace.registerTextDocumentContentProvider(REQUEST_SCHEME, requestDocs),
    vscode.workspace.registerFileSystemProvider(REPLY_SCHEME, replies, { isCaseSensitive: true }),
    vscode.languages.registerCodeLensProvider({ scheme: REPLY_SCHEME }, replies),
    vscode.commands.registerCommand(Commands.sendReply, (uri?: vscode.Uri) => replies.send(uri instanceof vscode.Uri ? uri : undefined)),
    treeView.onDidChangeVisibility((e) => tree.setVisible(e.visible)),
    toVs(view.onDidChange(refreshChrome)),
    toVs(prompts.onDidChange(refreshChrome)),
    toVs(registry.onDidChangeConnections(refreshChrome)),
    toVs(
      registry.onDidChangeState(() => refreshChrome()),
    ),
    toVs(sent.followServers(registry)),
    toVs(
      ledger.onAudit((a) => {
        logs.logFor(a.serverId, a.serverName).info(`[audit] ${a.event}${a.taskId ? ` task ${a.taskId}` : ''}${a.detail ? `: ${a.detail}` : ''} (server "${a.serverName}")`);
      }),
    ),
    toVs(
      config.onDidChange(() => {
        // First: tasks follow their definition (or become orphaned) before connections are replaced.
        sent.setConfiguredServers(config.definitions);
        void registry.setDefinitions(config.definitions);
        maybeShowTwoHostsNotice(context.globalState, config.definitions);
      }),
    ),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void registry.reevaluate()),
    // The gate decides from the user's firstStart setting *now*: "ask" stops workspace servers running
    // without an approval, "allow" starts those that waited for one — as trust granted does.
    gate.onDidChangeFirstStart(() => void registry.reevaluate()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('mcpTasks')) return;
      userSettings.reload();
      sent.prune();
      sent.startQueued();
    }),
    ...registerCommands({ registry, ledger, tracker: sent, view, actions, logs, prompts, requests, consents, inputs, config, toolRunner, documents, madeByTree: (node) => tree.madeTaskNode(node) }),
    ...registerAgentTools({ connections: () => registry.connections, tracker: sent, optionalAsTask: () => settings()['requestor.optionalToolsAsTasks'] }),
    ...registerSignIn(registry),
    registerCredentialsRejected({ registry, inputs }),
  );
  // The configuration is read once activate() has returned: applying servers evaluates the protocol
  // part (the SDK, zod; scripts/lib/lazyParts.mjs), which activation itself does not wait for
  // (bench: "startup activation, with servers"). So are the values the user set, each checked as it is read
  // (bench: "startup user values read"), and the tasks an earlier window kept (bench: "startup kept tasks read");
  // what shows those tasks (the tree, the status bar, the badge) is first drawn from them here. Whatever needs
  // either sooner (a command) reads them then. Disposed first: none of them is ever read.
  let configRead: NodeJS.Immediate | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    configRead = setImmediate(() => {
      void userSettings.current;
      sent.restore();
      tree.setVisible(treeView.visible);
      statusBar.update();
      refreshChrome();
      config.reload().then(resolve, reject);
    });
    subs.push({ dispose: () => (clearImmediate(configRead), resolve()) });
  });
  const activationTimeMs = performance.now() - started;
  const cpu = process.cpuUsage(startedCpu);
  const exports: McpTasksExports = { version: extensionApi.version, getApi: (id) => extensionApi.getApi(id) };
  // Other extensions get the API only; the internals (consents, prompts, …) stay out of reach in production.
  if (context.extensionMode === vscode.ExtensionMode.Production) return exports as McpTasksApi;
  return {
    ...exports,
    activationTimeMs,
    activationCpuMs: (cpu.user + cpu.system) / 1000,
    registry,
    ledger,
    tracker: sent,
    view,
    prompts,
    sampler,
    consents,
    config,
    settings: userSettings,
    replies,
    statusBarText: () => statusBar.text,
    treeState: () => ({ ...tree.diagnostics, viewVisible: treeView.visible }),
    onDidFetchTree: tree.onDidFetchAll,
    serverErrors,
    liveNotices: () => liveNoticeTexts(),
    ready: () => ready,
    taskDocumentUri: taskUri,
  };
}

export function deactivate(): Promise<void> | undefined {
  const t = tracker;
  tracker = undefined;
  return t?.windowClosing();
}

/**
 * The sides a connection installs (the task wire, the receiver's side) hold the SDK: they are in the
 * protocol part (scripts/lib/lazyParts.mjs), required when the first connection is made, which
 * loaded that part already.
 */
function hostSidesModule(): typeof import('./core/requestor/hostSides.js') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
  return require('./core/requestor/hostSides.js') as typeof import('./core/requestor/hostSides.js');
}
