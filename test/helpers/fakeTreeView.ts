/**
 * What VS Code's tree view shows for a `TreeDataProvider`, in plain Node: enough of the
 * workbench's `AsyncDataTree` (code-server 4.139, `setChildren`/`asTreeElement`) to see the rows
 * a user sees after each `onDidChangeTreeData`.
 *
 * The rule that matters (and that a test of the provider alone cannot see): rows are matched by
 * `TreeItem.id` among the children of the same parent, and a row that exists already keeps its
 * collapse state, whatever `collapsibleState` the provider now gives. A leaf starts "collapsed"
 * (VS Code's `collapseByDefault: item => item.collapsibleState !== Expanded`), so a row first drawn
 * without children and later given some stays collapsed, its children not shown; on a refresh a
 * collapsed row's children are only marked stale. A row whose id changed is a new row (its
 * `collapsibleState` applies again). Two rows with one id in one tree are an error (the extension
 * host refuses them).
 */
import type * as vscode from 'vscode';

const NONE = 0;
const EXPANDED = 2;

interface ProviderLike<T> {
  readonly onDidChangeTreeData: (listener: (e: T | T[] | undefined | void) => unknown) => { dispose(): unknown };
  getChildren(element?: T): T[];
  getTreeItem(element: T): vscode.TreeItem;
}

interface Row<T> {
  readonly id: string;
  element: T;
  label: string;
  description: string;
  collapsible: boolean;
  collapsed: boolean;
  /** Undefined: not loaded, or stale (a collapsed row refreshed). */
  children?: Row<T>[];
  readonly parent?: Row<T>;
}

export class FakeTreeView<T> {
  private readonly _root: Row<T> = { id: '', element: undefined as T, label: '', description: '', collapsible: true, collapsed: false };
  private readonly _sub: { dispose(): unknown };
  /** Rows by element (the extension host's node cache), for element refreshes. */
  private readonly _byElement = new Map<T, Row<T>>();
  /** Refreshes seen (root refreshes and element refreshes). */
  refreshes = 0;

  constructor(private readonly _provider: ProviderLike<T>) {
    this._sub = _provider.onDidChangeTreeData((e) => this._onChange(e));
    this._setChildren(this._root, true);
  }

  /** The rows on screen, depth-first, each "<indent><label> <description>". */
  rows(): string[] {
    const out: string[] = [];
    const walk = (row: Row<T>, depth: number) => {
      for (const c of row.children ?? []) {
        out.push(`${'  '.repeat(depth)}${c.label}${c.description ? ` ${c.description}` : ''}`);
        if (c.collapsible && !c.collapsed) walk(c, depth + 1);
      }
    };
    walk(this._root, 0);
    return out;
  }

  /** The user collapses the first row whose label starts with `label` (its children stay loaded). */
  collapse(label: string): void {
    const row = this._find(this._root, (r) => r.label.startsWith(label));
    if (!row) throw new Error(`no row "${label}" in ${JSON.stringify(this.rows())}`);
    row.collapsed = true;
  }

  dispose(): void {
    this._sub.dispose();
  }

  private _find(row: Row<T>, match: (r: Row<T>) => boolean): Row<T> | undefined {
    for (const c of row.children ?? []) {
      if (match(c)) return c;
      const inner = this._find(c, match);
      if (inner) return inner;
    }
    return undefined;
  }

  private _onChange(e: T | T[] | undefined | void): void {
    this.refreshes++;
    if (e === undefined || e === null) {
      this._setChildren(this._root, true);
      return;
    }
    for (const element of Array.isArray(e) ? e : [e]) {
      const row = this._byElement.get(element);
      if (!row) continue;
      const item = this._provider.getTreeItem(element);
      if (item.id !== row.id) {
        // The handle changed: VS Code refreshes the parent instead.
        this._setChildren(row.parent ?? this._root, true);
        continue;
      }
      this._apply(row, item);
      if (row.collapsible && !row.collapsed) this._setChildren(row, true);
      else row.children = undefined;
    }
  }

  private _apply(row: Row<T>, item: vscode.TreeItem): void {
    row.label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    row.description = typeof item.description === 'string' ? item.description : '';
    row.collapsible = (item.collapsibleState ?? NONE) !== NONE;
  }

  private _setChildren(parent: Row<T>, recursive: boolean): void {
    const old = new Map((parent.children ?? []).map((r) => [r.id, r]));
    const children: Row<T>[] = [];
    for (const element of this._provider.getChildren(parent === this._root ? undefined : parent.element)) {
      const item = this._provider.getTreeItem(element);
      if (!item.id) throw new Error('every row of this tree has an id');
      const existing = old.get(item.id);
      let row: Row<T>;
      if (existing) {
        row = existing;
        row.element = element;
        this._apply(row, item);
        if (!row.collapsible) row.children = [];
        else if (row.collapsed) row.children = undefined;
        else if (recursive || !row.children) this._setChildren(row, recursive);
      } else {
        row = { id: item.id, element, label: '', description: '', collapsible: false, collapsed: item.collapsibleState !== EXPANDED, parent };
        this._apply(row, item);
        if (row.collapsible && !row.collapsed) this._setChildren(row, recursive);
      }
      children.push(row);
      this._byElement.set(element, row);
    }
    parent.children = children;
    if (parent === this._root) this._checkIds();
  }

  private _checkIds(): void {
    const seen = new Set<string>();
    const walk = (row: Row<T>) => {
      for (const c of row.children ?? []) {
        if (seen.has(c.id)) throw new Error(`Element with id ${c.id} is already registered`);
        seen.add(c.id);
        walk(c);
      }
    };
    walk(this._root);
  }
}
