/**
 * Every id the Tasks view gives a row, built and read back here and nowhere else: a task view
 * item's id (which the tree, the pickers, the prompts and the documents name a row by) and the
 * `TreeItem.id`s VS Code matches the tree's rows by. A row's id is only ever made by these
 * functions, so a reader of one never guesses at the format of another.
 */

/** What a task view item's id names: which side keeps the row, and its key there. */
export type RowIdParts =
  /** A call this window sent: the requestor tracker's key (`<serverId>/<local task id>`). */
  | { readonly kind: 'sent'; readonly key: string }
  /** A task a server asked of this window: the ledger scope (the server) and the task id. */
  | { readonly kind: 'received'; readonly serverId: string; readonly taskId: string }
  /** A plain request (no task) a server sent: the server and the open-request list's local id. */
  | { readonly kind: 'request'; readonly serverId: string; readonly localId: string };

export type RowKind = RowIdParts['kind'];

/** `sent:<key>`. */
export function sentRowId(key: string): string {
  return `sent:${key}`;
}

/** `received:<serverId>/<taskId>`. */
export function receivedRowId(serverId: string, taskId: string): string {
  return `received:${serverId}/${taskId}`;
}

/** `request:<serverId>/<localId>`. */
export function requestRowId(serverId: string, localId: string): string {
  return `request:${serverId}/${localId}`;
}

/** The id {@link parseRowId} reads back as `parts`. */
export function rowId(parts: RowIdParts): string {
  switch (parts.kind) {
    case 'sent':
      return sentRowId(parts.key);
    case 'received':
      return receivedRowId(parts.serverId, parts.taskId);
    case 'request':
      return requestRowId(parts.serverId, parts.localId);
  }
}

/**
 * What a task view item's id names; `undefined` for anything else (a tree row's id, text a
 * command was given). The server id ends at the first `/`: a task id may hold more of them.
 */
export function parseRowId(id: string): RowIdParts | undefined {
  const colon = id.indexOf(':');
  if (colon < 0) return undefined;
  const kind = id.slice(0, colon);
  const rest = id.slice(colon + 1);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  switch (kind) {
    case 'sent':
      return { kind, key: rest };
    case 'received':
      return { kind, serverId: rest.slice(0, slash), taskId: rest.slice(slash + 1) };
    case 'request':
      return { kind, serverId: rest.slice(0, slash), localId: rest.slice(slash + 1) };
    default:
      return undefined;
  }
}

// ---- The tree's rows (`TreeItem.id`): VS Code keeps a row's state (expanded, selected) by it. ----

/** A server's row. */
export function serverTreeId(serverId: string): string {
  return `server:${serverId}`;
}

/** A server's Sent or Received group. */
export function groupTreeId(serverId: string, direction: 'sent' | 'received'): string {
  return `group:${serverId}:${direction}`;
}

/** The row an empty group shows in place of tasks. */
export function emptyTreeId(serverId: string, direction: 'sent' | 'received'): string {
  return `empty:${serverId}:${direction}`;
}

/**
 * A task's row: the item's id, plus where the row stands (nested under a sent call) and whether
 * it has children.
 *
 * VS Code matches rows by `TreeItem.id` and keeps a known row's collapse state, ignoring the
 * `collapsibleState` the provider now gives; a leaf counts as collapsed. So a call row drawn before
 * the request it causes arrived (a leaf), then given that request as a child, stayed collapsed with
 * the child hidden (seen on Streamable HTTP, where the request comes later than over
 * stdio). A row that gains or loses children, or moves under another parent, gets a new id: VS Code
 * draws it as a new row, expanded as the provider says. A user's collapse is kept while the row keeps
 * its children. (test/helpers/fakeTreeView.ts models this; test/unit/ui/tasksTreeNesting.test.ts.)
 */
export function taskTreeId(item: { readonly id: string; readonly parentId?: string }, hasChildren: boolean): string {
  return `${item.id}${item.parentId !== undefined ? ` in ${item.parentId}` : ''}${hasChildren ? ' (with requests)' : ''}`;
}
