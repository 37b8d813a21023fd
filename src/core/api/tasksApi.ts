/**
 * The extension API (`api/mcp-tasks.d.ts`, version 1): `TasksApiFactory.getApi(label)` gives each
 * consumer its own API object. Ownership of tasks is bound to that object (a private token), not
 * to the label: handles are capabilities, and another API object (another extension, or the same
 * label asked for twice) sees those tasks only through `listTasks`/`watchTasks`, which carry no
 * arguments or results. Tasks go through `TaskTracker.callTool` (the same queue, connections,
 * consent prompts and forms as the Tasks view); nothing here answers a server's sampling or
 * elicitation request. See SECURITY.md for what this does and does not protect against.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { McpTaskFilter, McpTaskHandle, McpTaskListChange, McpTaskRequest, McpTaskSummary, McpTasksApiV1, McpTasksExports } from '../../../api/mcp-tasks';
import { errorMessage } from '../base/errors.js';
import { Disposable, DisposableStore, toDisposable } from '../base/lifecycle.js';
import type { RequestorConnection } from '../connection/connection.js';
import type { TaskTracker } from '../requestor/tracker.js';
import type { TaskView, TaskViewItem } from '../view/taskView.js';
import { TaskApiError } from './apiErrors.js';
import { apiState } from './apiMapping.js';
import { taskUri } from './taskUris.js';
import { TaskDirectory, type DirectoryEntry } from './taskDirectory.js';
import { TaskHandle } from './taskHandle.js';

export interface TasksApiDeps {
  readonly tracker: TaskTracker;
  readonly view: TaskView;
  /** Every configured server's connection. */
  readonly connections: () => readonly RequestorConnection[];
  /** The server's tool by name (default: pages of `tools/list`). */
  readonly findTool?: (connection: RequestorConnection, name: string) => Promise<Tool | undefined>;
}

/** The object `activate()` exports (plus dispose for the composition root). */
export class TasksApiFactory extends Disposable implements McpTasksExports {
  readonly version = 1 as const;
  private readonly _directory: TaskDirectory;
  private readonly _apis = new Set<ConsumerTasksApi>();

  constructor(private readonly _deps: TasksApiDeps) {
    super();
    this._directory = this._register(new TaskDirectory(_deps.tracker));
    // Registered after the directory, so disposed before it: the handles leave its events first.
    this._register(toDisposable(() => [...this._apis].forEach((api) => api.dispose())));
  }

  getApi(extensionId: string): McpTasksApiV1 {
    const label = schemas().parseInput(schemas().extensionIdSchema, extensionId, 'extensionId');
    const api = new ConsumerTasksApi(label, this._deps, this._directory, () => this._apis.delete(api));
    this._apis.add(api);
    return api;
  }
}

/** One consumer's API object. */
export class ConsumerTasksApi extends Disposable implements McpTasksApiV1 {
  readonly version = 1 as const;
  private readonly _token = Symbol('mcp-tasks api owner');
  private readonly _handles = new Map<string, TaskHandle>();
  /** The open `watchTasks` subscriptions. */
  private readonly _watches = this._register(new DisposableStore());

  constructor(
    readonly consumer: string,
    private readonly _deps: TasksApiDeps,
    private readonly _directory: TaskDirectory,
    private readonly _onDispose: () => void,
  ) {
    super();
  }

  servers(): { name: string; id: string; running: boolean }[] {
    this._alive();
    return this._deps.connections().map((c) => ({ name: c.name, id: c.id, running: c.state.kind === 'running' }));
  }

  async createTask(request: McpTaskRequest): Promise<McpTaskHandle> {
    this._alive();
    const req = schemas().parseInput(schemas().requestSchema, request, 'request');
    const connection = this._server(req.server);
    if (connection.state.kind !== 'running') throw new TaskApiError('server_not_running', `Server "${connection.name}" is not running (${connection.state.kind}).`);
    let tool: Tool | undefined;
    try {
      tool = await (this._deps.findTool ?? findTool)(connection, req.params.name);
    } catch (e) {
      throw new TaskApiError('server_not_running', `Server "${connection.name}" did not list its tools: ${errorMessage(e)}`);
    }
    if (!tool) throw new TaskApiError('unknown_tool', `Server "${connection.name}" has no tool "${req.params.name}".`);
    this._alive();
    // The tracker adds the record (queued or sending) before its first await: its key is the
    // first `added` of this call.
    let key: string | undefined;
    const sub = this._deps.tracker.onDidChange((e) => {
      if (key === undefined && e.kind === 'added') key = e.key;
    });
    let sent: Promise<string>;
    try {
      sent = this._deps.tracker.callTool(connection, tool, req.params.arguments ?? {}, { priority: req.priority ?? 'normal' });
    } finally {
      sub.dispose();
    }
    if (key === undefined) {
      try {
        await sent;
      } catch (e) {
        throw new TaskApiError('unsupported', `Server "${connection.name}" cannot take "${req.params.name}": ${errorMessage(e)}`);
      }
      throw new TaskApiError('unsupported', `Server "${connection.name}" did not take "${req.params.name}".`);
    }
    sent.catch(() => undefined); // its failures land in the task's state
    const entry = this._directory.register(key, connection.name, this._token, req.priority ?? 'normal', req.hint ?? {});
    return this._handle(entry);
  }

  getTask(uri: string): McpTaskHandle {
    this._alive();
    const ref = schemas().parseInput(schemas().uriSchema, uri, 'uri');
    if (ref.direction === 'received') throw new TaskApiError('forbidden', `Task ${uri} was created on this window by server "${ref.server}"; it is only listed (listTasks/watchTasks).`);
    const entry = this._directory.byId(ref.id);
    if (!entry || entry.server !== ref.server) throw new TaskApiError('not_found', `No task ${uri}.`);
    if (entry.owner !== this._token) throw new TaskApiError('forbidden', `Task ${uri} was not created through this API object; it is only listed (listTasks/watchTasks).`);
    if (entry.removed) throw entry.removed;
    return this._handle(entry);
  }

  listTasks(filter?: McpTaskFilter): McpTaskSummary[] {
    this._alive();
    const f = schemas().parseInput(schemas().filterSchema, filter, 'filter');
    return this._summaries()
      .filter((s) => matches(s.summary, s.serverId, f))
      .map((s) => s.summary);
  }

  watchTasks(listener: (change: McpTaskListChange) => unknown, filter?: McpTaskFilter): { dispose(): void } {
    this._alive();
    if (typeof listener !== 'function') throw new TaskApiError('invalid_input', 'Invalid listener: a function is required');
    const f = schemas().parseInput(schemas().filterSchema, filter, 'filter');
    let previous = new Map(this.listTasks(f).map((s) => [s.uri, s]));
    let scheduled = false;
    let stopped = false;
    const viewSub = this._deps.view.onDidChange(() => {
      // After the tracker's current change is through (one change may fire several events).
      if (scheduled) return;
      scheduled = true;
      queueMicrotask(() => {
        scheduled = false;
        if (!stopped) diff();
      });
    });
    const diff = () => {
      if (this._isDisposed) return;
      const now = new Map(this.listTasks(f).map((s) => [s.uri, s]));
      const changes: McpTaskListChange[] = [];
      for (const [uri, s] of now) {
        const before = previous.get(uri);
        if (!before) changes.push({ kind: 'added', task: s });
        else if (before.state !== s.state || before.title !== s.title || before.mine !== s.mine) changes.push({ kind: 'updated', task: s });
      }
      for (const [uri, s] of previous) if (!now.has(uri)) changes.push({ kind: 'removed', task: s });
      previous = now;
      for (const c of changes) {
        try {
          listener(c);
        } catch {
          /* a consumer's listener must not break the others */
        }
      }
    };
    const sub = { dispose: () => ((stopped = true), viewSub.dispose()) };
    this._watches.add(sub);
    return { dispose: () => this._watches.delete(sub) };
  }

  override dispose(): void {
    if (this._isDisposed) return;
    // The handles first: their pending result() calls reject with "disposed" before anything else goes.
    for (const h of this._handles.values()) h.dispose();
    this._handles.clear();
    super.dispose();
    this._onDispose();
  }

  /** The one handle of a task of this API object (made once, disposed with the object). */
  private _handle(entry: DirectoryEntry): TaskHandle {
    let handle = this._handles.get(entry.id);
    if (!handle) {
      handle = new TaskHandle(entry, this._deps.tracker, this._directory);
      this._handles.set(entry.id, handle);
    }
    return handle;
  }

  private _alive(): void {
    if (this._isDisposed) throw new TaskApiError('disposed', `The MCP Tasks API object of "${this.consumer}" was disposed.`);
  }

  /** A configured server by id, else by name (unique). */
  private _server(nameOrId: string): RequestorConnection {
    const all = this._deps.connections();
    const byId = all.find((c) => c.id === nameOrId);
    if (byId) return byId;
    const byName = all.filter((c) => c.name === nameOrId);
    if (byName.length === 1) return byName[0]!;
    if (byName.length > 1) throw new TaskApiError('unknown_server', `Two configured servers are named "${nameOrId}"; use the id: ${byName.map((c) => `"${c.id}"`).join(', ')}.`);
    throw new TaskApiError('unknown_server', `No configured server "${nameOrId}" (configured: ${all.map((c) => `"${c.name}"`).join(', ') || 'none'}).`);
  }

  private _summaries(): Array<{ summary: McpTaskSummary; serverId: string }> {
    // Tasks only: an open plain request a server sent (not a task) is not one.
    return this._deps.view
      .items()
      .filter((i) => i.kind !== 'request')
      .map((i) => ({ summary: this._summary(i), serverId: i.serverId }));
  }

  private _summary(i: TaskViewItem): McpTaskSummary {
    switch (i.kind) {
      case 'received':
      case 'request':
        return { uri: taskUri(i.serverName, 'received', i.taskId), direction: 'received', server: i.serverName, title: i.title, state: apiState(i.state), mine: false, createdAt: i.createdAt };
      case 'sent': {
        const entry = this._directory.forKey(i.key, i.serverName);
        return { uri: entry.uri, direction: 'sent', server: i.serverName, title: i.title, state: apiState(i.state), mine: entry.owner === this._token, createdAt: i.createdAt };
      }
    }
  }
}

function matches(s: McpTaskSummary, serverId: string, f: McpTaskFilter | undefined): boolean {
  if (!f) return true;
  if (f.server !== undefined && f.server !== s.server && f.server !== serverId) return false;
  if (f.direction && f.direction !== 'both' && f.direction !== s.direction) return false;
  if (f.states && !f.states.includes(s.state)) return false;
  if (f.mine !== undefined && f.mine !== s.mine) return false;
  return true;
}

/** The tool named `name`, from every page of `tools/list`. */
async function findTool(connection: RequestorConnection, name: string): Promise<Tool | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await connection.client.listTools(cursor ? { cursor } : undefined);
    const tool = r.tools.find((t) => t.name === name);
    if (tool) return tool;
    if (!r.nextCursor) return undefined;
    cursor = r.nextCursor;
  }
  return undefined;
}

/** The API's input schemas (zod), in the protocol part (scripts/lib/lazyParts.mjs): evaluated at the first call, not at activation. */
function schemas(): typeof import('./apiSchemas.js') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy part is required at first need (lazyParts.mjs)
  return require('./apiSchemas.js') as typeof import('./apiSchemas.js');
}
