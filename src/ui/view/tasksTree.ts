import * as vscode from 'vscode';
import type { ServerRegistry } from '../../core/connection/registry.js';
import { isActive, type TaskView, type TaskViewItem } from '../../core/view/taskView.js';
import { distinguishingArguments } from '../../core/view/rowText.js';
import { groupTreeId, serverTreeId, taskTreeId } from '../../core/view/rowIds.js';
import { emptyGroupItem, serverIcon, serverTooltip, shortState } from './serverPresentation.js';
import { taskTooltip, taskTreeItem } from './taskPresentation.js';
import { Disposable, toDisposable } from '../../core/base/lifecycle.js';
import { HostRows } from './treeHostRows.js';

/** A node of the Tasks tree. */
export type TasksNode =
  | { readonly kind: 'server'; readonly serverId: string }
  | { readonly kind: 'group'; readonly serverId: string; readonly direction: 'sent' | 'received' }
  | { readonly kind: 'task'; readonly id: string }
  /** The empty state of a group: what will appear there and how to start. */
  | { readonly kind: 'empty'; readonly serverId: string; readonly direction: 'sent' | 'received' };

/**
 * The Tasks tree: servers, then "Sent" and "Received", then tasks newest first. Redraws on
 * (coalesced) core events; elapsed times tick once a second only while the view is visible
 * and something is active.
 *
 * Redraws are as narrow as possible: the whole tree only when its shape (servers, the tasks of
 * each group) changed, else just the rows whose item changed. VS Code forgets every row below a
 * refreshed node until the workbench fetches it again, and a command run from such a row in
 * that gap (an inline "Cancel Task", a context menu) gets no argument and falls back to a
 * picker; with a full refresh every second (elapsed times) and on every progress message, that
 * happened often enough to be clicked into — and the picker replaced an open form.
 *
 * Redraws are also paced by VS Code: after telling it of a change, the tree tells it nothing more
 * until VS Code has fetched that change — the root's children after a full redraw, the TreeItem of
 * one of the named rows after a partial one — then tells it, in one event, what changed meanwhile.
 * VS Code's extension host debounces a tree's change events by 200 ms and restarts that wait on
 * every event (`ExtHostTreeView`: `Event.debounce(…, 200, leading)`), so a tree that fires more
 * often than every 200 ms is never heard again: a task reporting progress every 100 ms, with the
 * elapsed-time ticker, left the view at two of five rows, elapsed times frozen, for as long as the
 * task ran (code-server 4.139; the provider fired ~11 times a second, VS Code fetched nothing).
 * A partial redraw names only rows VS Code holds (see {@link _hostRows}): it ignores any other
 * row without a word, and the tree would wait for a fetch that never comes.
 */
export class TasksTreeProvider extends Disposable implements vscode.TreeDataProvider<TasksNode>, vscode.Disposable {
  private readonly _onDidChangeTreeData = this._register(new vscode.EventEmitter<TasksNode | TasksNode[] | undefined | void>());
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private _ticker?: NodeJS.Timeout;
  private _visible = false;
  private readonly _serverNodes = new Map<string, TasksNode>();
  private readonly _groupNodes = new Map<string, TasksNode>();
  private readonly _taskNodes = new Map<string, TasksNode>();
  private readonly _emptyNodes = new Map<string, TasksNode>();
  /** The rows of each group, per array of items the view gave for it (see getChildren). */
  private readonly _groupRows = new WeakMap<readonly TaskViewItem[], TasksNode[]>();
  /** Per array of a Sent group's items: what tells each call apart from the other calls of its tool (taskTreeItem). */
  private readonly _distinguishing = new WeakMap<readonly TaskViewItem[], Map<string, string>>();
  /** The shape last drawn (see {@link _shapeKey}) and each drawn node's item, to redraw only what changed. */
  private _drawnShape?: string;
  private _drawn = new Map<TasksNode, string | TaskViewItem>();
  /** How many times the tree was asked to redraw (tests and the benchmark read it). */
  refreshCount = 0;
  /** The rows VS Code's extension host holds (treeHostRows.ts). */
  private readonly _hostRows = new HostRows<TasksNode>();
  /** The last change told to VS Code, until it fetched it: the whole tree, or the rows named. */
  private _unfetched?: 'all' | ReadonlySet<TasksNode>;
  /** A redraw asked for while a change was unfetched, made once it is fetched (`elapsed`: by the ticker). */
  private _pending?: { elapsed: boolean };
  private readonly _onDidFetchAll = this._register(new vscode.EventEmitter<void>());
  /** VS Code fetched every change told and none waits to be told: the rows on screen stay as they are until the next change. */
  readonly onDidFetchAll = this._onDidFetchAll.event;

  constructor(
    private readonly _registry: ServerRegistry,
    private readonly _view: TaskView,
  ) {
    super();
    this._register(toDisposable(() => this._stopTicker()));
    this._register(_view.onDidChange(() => this.refresh()));
    this._register(_registry.onDidChangeState(() => this.refresh()));
    this._register(_registry.onDidChangeConnections(() => this.refresh()));
  }

  /** What the provider believes of its view, for a test that finds the tree not showing what the view holds. */
  get diagnostics(): { readonly visible: boolean; readonly stale: boolean; readonly refreshes: number; readonly shape?: string; readonly unfetched?: string; readonly pending: boolean } {
    const unfetched = this._unfetched === 'all' ? 'all' : this._unfetched ? `${this._unfetched.size} row(s)` : undefined;
    return { visible: this._visible, stale: this._stale, refreshes: this.refreshCount, shape: this._drawnShape?.replace(/\n/g, ' '), unfetched, pending: !!this._pending };
  }

  /** Called by the extension with the tree view's visibility. */
  setVisible(visible: boolean): void {
    const shown = visible && !this._visible;
    this._visible = visible;
    // A view being shown fetches what it shows: what it had not fetched while hidden is no reason to wait.
    if (shown) this._unfetched = undefined;
    if (shown && (this._stale || this._pending)) {
      this._pending = undefined;
      this.refresh();
    } else this._updateTicker();
  }

  /** A change arrived while the view was hidden: redraw once when it is shown. */
  private _stale = false;

  refresh(): void {
    if (!this._visible) {
      // While hidden, VS Code need not hear of every change: redraw once when shown. (Seen in
      // code-server 4.139: after refreshes fired while the view was hidden, its first render
      // showed the second server's rows replaced by copies of the first server's tasks.)
      this._stale = true;
      return;
    }
    this._stale = false;
    this._redraw();
    this._updateTicker();
  }

  /**
   * Tells VS Code what changed since the last redraw: everything if the shape did, else the
   * changed rows. A task row changed when its item did (the view replaces an item on every
   * change, so a reference compare does; no TreeItem is built for it here), or, on the
   * ticker's redraw (`elapsed`), when it is active (its elapsed time moved on). Server, group and
   * empty rows are compared by their TreeItem. While VS Code has not fetched the last change told,
   * the redraw waits for it (see the class comment).
   */
  private _redraw(elapsed = false): void {
    this.refreshCount++;
    if (this._unfetched) {
      this._pending = { elapsed: elapsed || !!this._pending?.elapsed };
      return;
    }
    const shape = this._shapeKey();
    const drawn = new Map<TasksNode, string | TaskViewItem>();
    /** Rows with nested requests: a parent row says "waiting for you" while one of them waits (taskTreeItem). */
    const parents: Array<[TasksNode, TasksNode[]]> = [];
    for (const serverId of this._serverIds()) {
      const server = this._serverNode(serverId);
      drawn.set(server, JSON.stringify(this._treeItem(server)));
      for (const direction of ['sent', 'received'] as const) {
        const group = this._groupNode(serverId, direction);
        drawn.set(group, JSON.stringify(this._treeItem(group)));
        const items = this._view.group(serverId, direction);
        if (!items.length) {
          const empty = this._emptyNode(serverId, direction);
          drawn.set(empty, JSON.stringify(this._treeItem(empty)));
        }
        for (const i of items) {
          drawn.set(this._taskNode(i.id), i);
          // Nested requests too: their rows change state (waiting for you, completed) on their own.
          const children = this._childItems(i.id);
          for (const c of children) drawn.set(this._taskNode(c.id), c);
          if (children.length) parents.push([this._taskNode(i.id), children.map((c) => this._taskNode(c.id))]);
        }
      }
    }
    const previous = this._drawn;
    this._drawn = drawn;
    if (shape !== this._drawnShape) {
      this._drawnShape = shape;
      this._unfetched = 'all';
      this._onDidChangeTreeData.fire();
      return;
    }
    const changed: TasksNode[] = [];
    for (const [node, now] of drawn) {
      if (!this._hostRows.has(node)) continue; // VS Code asks for it when it shows it
      if (previous.get(node) !== now || (elapsed && typeof now !== 'string' && isActive(now.state) && this._ticks(now))) changed.push(node);
    }
    // A parent row reads its children's states: redrawn when one of them changed.
    for (const [parent, children] of parents) {
      if (this._hostRows.has(parent) && !changed.includes(parent) && children.some((c) => previous.get(c) !== drawn.get(c))) changed.push(parent);
    }
    if (!changed.length) return;
    this._unfetched = new Set(changed);
    this._onDidChangeTreeData.fire(changed);
  }

  /** VS Code fetched a row's children (`undefined`: the root's): it dropped the rows it held below. */
  private _hostFetchedChildren(node: TasksNode | undefined, children: readonly TasksNode[]): void {
    this._hostRows.fetchedChildren(node, children);
    if (node !== undefined) return;
    // VS Code fetches the whole tree again from here: it sees the shape it has now.
    this._drawnShape = this._shapeKey();
    if (this._unfetched === 'all') this._fetched();
  }

  /**
   * VS Code fetched a row's TreeItem: it holds the row as it is now (nothing to tell of it until
   * it changes again), and none of its descendants until it fetches them.
   */
  private _hostFetchedItem(node: TasksNode, item: vscode.TreeItem): void {
    this._hostRows.fetchedItem(node);
    const drawn = node.kind === 'task' ? this._view.item(node.id) : JSON.stringify(item);
    if (drawn) this._drawn.set(node, drawn);
    if (this._unfetched !== undefined && this._unfetched !== 'all' && this._unfetched.has(node)) this._fetched();
  }

  /** VS Code fetched the last change told: what changed meanwhile is told once its call returned. */
  private _fetched(): void {
    this._unfetched = undefined;
    if (this._pending) queueMicrotask(() => this._redrawPending());
    else this._onDidFetchAll.fire();
  }

  private _redrawPending(): void {
    const pending = this._pending;
    if (!pending || this._unfetched) return;
    this._pending = undefined;
    if (this._visible) this._redraw(pending.elapsed);
    else this._stale = true;
  }

  /** Which nodes the tree has, in which order (not what they show): the servers and the view's shape version. */
  private _shapeKey(): string {
    return `${this._serverIds().join('\n')}\n#${this._view.shapeVersion}`;
  }

  getChildren(node?: TasksNode): TasksNode[] {
    const children = this._children(node);
    this._hostFetchedChildren(node, children);
    return children;
  }

  private _children(node?: TasksNode): TasksNode[] {
    if (!node) return this._serverIds().map((id) => this._serverNode(id));
    if (node.kind === 'server') {
      return (['sent', 'received'] as const).map((direction) => this._groupNode(node.serverId, direction));
    }
    if (node.kind === 'group') {
      // The view keeps a group's array while only its tasks' states change: its rows stay the same.
      const items = this._view.group(node.serverId, node.direction);
      let tasks = this._groupRows.get(items);
      if (!tasks) this._groupRows.set(items, (tasks = items.map((i) => this._taskNode(i.id))));
      return tasks.length ? [...tasks] : [this._emptyNode(node.serverId, node.direction)];
    }
    // A sent task's children: the requests the server sent this window for it (causal.ts).
    if (node.kind === 'task') return this._childItems(node.id).map((i) => this._taskNode(i.id));
    return [];
  }

  getParent(node: TasksNode): TasksNode | undefined {
    if (node.kind === 'server') return undefined;
    if (node.kind === 'group' || node.kind === 'empty') return node.kind === 'group' ? this._serverNode(node.serverId) : this._groupNode(node.serverId, node.direction);
    const item = this._view.item(node.id);
    if (item?.parentId) return this._taskNode(item.parentId);
    return item ? this._groupNode(item.serverId, item.direction) : undefined;
  }

  getTreeItem(node: TasksNode): vscode.TreeItem {
    const item = this._treeItem(node);
    this._hostFetchedItem(node, item);
    return item;
  }

  private _treeItem(node: TasksNode): vscode.TreeItem {
    switch (node.kind) {
      case 'server':
        return this._serverItem(node.serverId);
      case 'group':
        return this._groupItem(node.serverId, node.direction);
      case 'task': {
        const item = this._view.item(node.id);
        if (!item) return new vscode.TreeItem(vscode.l10n.t('(gone)'));
        // A row with children does not tick (see taskTreeItem): VS Code forgets a refreshed row's
        // children until it fetches them again, and an inline action clicked on a child in that
        // gap (its "Cancel Task", every second while the parent ticked) ran with no argument.
        const parent = this._childItems(item.id).length > 0;
        const waitsOnYou = parent && this._childItems(item.id).some((c) => c.state === 'waitingForUser');
        const treeItem = taskTreeItem(item, this._ticks(item), this._distinguishingOf(item), waitsOnYou);
        if (parent) treeItem.collapsibleState = vscode.TreeItemCollapsibleState.Expanded;
        treeItem.id = taskTreeId(item, parent); // A row that gains children must be a new row to VS Code (rowIds.ts).
        return treeItem;
      }
      case 'empty':
        return emptyGroupItem(node.serverId, node.direction, this._registry.get(node.serverId)?.state.kind === 'running');
    }
  }

  /**
   * A task row's tooltip, built when VS Code shows it (on hover) rather than for every row on
   * every redraw: a 10,000-task group spent most of its `getTreeItem` time on Markdown tooltips
   * nobody looked at (bench: surface getTreeItem).
   */
  resolveTreeItem(item: vscode.TreeItem, node: TasksNode): vscode.TreeItem {
    if (node.kind === 'task' && item.tooltip === undefined) {
      const task = this._view.item(node.id);
      if (task) item.tooltip = taskTooltip(task);
    }
    return item;
  }

  /**
   * The arguments that tell a sent call apart from the other calls of its tool in its group. Its
   * tasks' arguments never change, and a task added or removed is a new array (a new shape: every
   * row is drawn again), so it is worked out once per array of the group's items.
   */
  private _distinguishingOf(item: TaskViewItem): string | undefined {
    if (item.direction !== 'sent' || item.parentId !== undefined) return undefined;
    const items = this._view.group(item.serverId, 'sent');
    let map = this._distinguishing.get(items);
    if (!map) {
      map = new Map();
      const byTool = new Map<string, TaskViewItem[]>();
      for (const i of items) {
        const calls = byTool.get(i.title);
        if (calls) calls.push(i);
        else byTool.set(i.title, [i]);
      }
      for (const calls of byTool.values()) for (const [id, text] of distinguishingArguments(calls)) map.set(id, text);
      this._distinguishing.set(items, map);
    }
    return map.get(item.id);
  }

  /** The node of a task, for `reveal`. */
  nodeForTask(id: string): TasksNode {
    return this._taskNode(id);
  }

  // ---------------------------------------------------------------------------------------

  /**
   * Whether a row shows a growing elapsed time (redrawn each second): not a row with children nor
   * a nested one. VS Code forgets the rows below a redrawn row until it fetches them again, and an
   * inline action clicked on one in that gap runs with no argument (a picker opens instead).
   */
  private _ticks(item: TaskViewItem): boolean {
    return item.parentId === undefined && this._childItems(item.id).length === 0;
  }

  private _childItems(parentId: string): readonly TaskViewItem[] {
    return this._view.childrenOf(parentId);
  }

  private _serverIds(): string[] {
    const ids = this._registry.connections.map((c) => c.id);
    // Servers no longer configured but with remembered tasks stay visible.
    for (const id of this._view.serverIds()) if (!ids.includes(id)) ids.push(id);
    return ids;
  }

  private _serverNode(serverId: string): TasksNode {
    let n = this._serverNodes.get(serverId);
    if (!n) this._serverNodes.set(serverId, (n = { kind: 'server', serverId }));
    return n;
  }

  private _groupNode(serverId: string, direction: 'sent' | 'received'): TasksNode {
    const key = `${serverId}\n${direction}`;
    let n = this._groupNodes.get(key);
    if (!n) this._groupNodes.set(key, (n = { kind: 'group', serverId, direction }));
    return n;
  }

  private _emptyNode(serverId: string, direction: 'sent' | 'received'): TasksNode {
    const key = `${serverId}\n${direction}`;
    let n = this._emptyNodes.get(key);
    if (!n) this._emptyNodes.set(key, (n = { kind: 'empty', serverId, direction }));
    return n;
  }

  /** Whether `node` is a task row this tree made (commands trust only those: ui/commands/taskArgs.ts). */
  madeTaskNode(node: object): boolean {
    const id = (node as { id?: unknown }).id;
    return typeof id === 'string' && this._taskNodes.get(id) === node;
  }

  private _taskNode(id: string): TasksNode {
    let n = this._taskNodes.get(id);
    if (!n) this._taskNodes.set(id, (n = { kind: 'task', id }));
    return n;
  }

  private _serverItem(serverId: string): vscode.TreeItem {
    const connection = this._registry.get(serverId);
    const name = connection?.name ?? (this._view.group(serverId, 'sent')[0] ?? this._view.group(serverId, 'received')[0])?.serverName ?? serverId;
    const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = serverTreeId(serverId);
    if (!connection) {
      item.description = vscode.l10n.t('not configured');
      item.iconPath = new vscode.ThemeIcon('server', new vscode.ThemeColor('disabledForeground'));
      item.contextValue = 'mcpServer.unconfigured';
      item.tooltip = vscode.l10n.t('{0}: no longer configured; its remembered tasks are kept until you dismiss or clear them (unfinished ones are orphaned: they may still run on that server but cannot be reached from here).', name);
      return item;
    }
    const state = connection.state;
    let counts = 0;
    for (const direction of ['sent', 'received'] as const) for (const i of this._view.group(serverId, direction)) if (isActive(i.state)) counts++;
    item.description = `${shortState(state)}${counts ? ` · ${vscode.l10n.t('{0} active', counts)}` : ''}`;
    item.iconPath = serverIcon(state);
    // `http`: it may sign in with OAuth (Sign Out is offered only there, never for a stdio server).
    item.contextValue = `mcpServer.${state.kind}${connection.definition.transport.type === 'http' ? ' http' : ''}`;
    item.tooltip = serverTooltip(connection);
    item.accessibilityInformation = { label: `${name} ${item.description}` };
    return item;
  }

  private _groupItem(serverId: string, direction: 'sent' | 'received'): vscode.TreeItem {
    const items = this._view.group(serverId, direction);
    const label = direction === 'sent' ? vscode.l10n.t('Sent') : vscode.l10n.t('Received');
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Expanded);
    item.id = groupTreeId(serverId, direction);
    const active = items.filter((i) => isActive(i.state)).length;
    item.description = items.length ? `${items.length}${active ? ` (${vscode.l10n.t('{0} active', active)})` : ''}` : vscode.l10n.t('none');
    item.iconPath = new vscode.ThemeIcon(direction === 'sent' ? 'arrow-up' : 'arrow-down');
    item.tooltip =
      direction === 'sent' ? vscode.l10n.t('Tool calls this window sent to the server') : vscode.l10n.t('Sampling and elicitation requests the server sent to this window');
    item.contextValue = `mcpGroup.${direction}`;
    item.accessibilityInformation = { label: `${label} ${item.description}` };
    return item;
  }

  private _updateTicker(): void {
    const needed = this._visible && this._view.counts().active > 0;
    if (needed && !this._ticker) {
      this._ticker = setInterval(() => {
        // Only the elapsed times change (so only active rows are redrawn); once a second at most.
        this._redraw(/* elapsed */ true);
        if (!this._visible || this._view.counts().active === 0) this._stopTicker();
      }, 1000);
    } else if (!needed) {
      this._stopTicker();
    }
  }

  private _stopTicker(): void {
    if (this._ticker) clearInterval(this._ticker);
    this._ticker = undefined;
  }
}
