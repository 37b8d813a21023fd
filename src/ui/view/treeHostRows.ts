/**
 * The rows of a tree view that VS Code's extension host holds, mirrored from what it fetches: a
 * row is held once its TreeItem was asked for; fetching a row's children or its TreeItem again
 * drops the rows held below it, and fetching the root's children drops them all. The extension
 * host ignores a change event naming a row it does not hold, so the Tasks tree names only these
 * (tasksTree.ts).
 */
export class HostRows<T> {
  private readonly _rows = new Set<T>();
  /** The children VS Code was last given, per row (`undefined`: the root), to drop them with it. */
  private readonly _children = new Map<T | undefined, readonly T[]>();

  has(node: T): boolean {
    return this._rows.has(node);
  }

  /** VS Code fetched a row's children (`undefined`: the root's): it dropped the rows it held below. */
  fetchedChildren(node: T | undefined, children: readonly T[]): void {
    if (node === undefined) {
      this._rows.clear();
      this._children.clear();
    } else this._dropBelow(node);
    this._children.set(node, children);
  }

  /** VS Code fetched a row's TreeItem: it holds the row as it is now, and none of its descendants until it fetches them. */
  fetchedItem(node: T): void {
    this._dropBelow(node);
    this._rows.add(node);
  }

  private _dropBelow(node: T): void {
    const children = this._children.get(node);
    if (!children) return;
    this._children.delete(node);
    for (const c of children) {
      this._rows.delete(c);
      this._dropBelow(c);
    }
  }
}
