/**
 * The rows of the Tasks tree in the order it draws them, for the pickers that list tasks (Cancel
 * Task…, Remove…): per server, its Sent group — each call followed by the requests nested under
 * it — then its Received group. A picker in another order once listed a call's question first,
 * labelled "received", though the tree shows it under the call in Sent.
 */
import type { TaskView, TaskViewItem } from './taskView.js';

/** One row: the group it is drawn in and, for a nested request, the call it belongs to. */
export interface TreeOrderRow {
  readonly item: TaskViewItem;
  readonly serverId: string;
  readonly group: 'sent' | 'received';
  /** The sent call this request is nested under (its question), if any. */
  readonly parent?: TaskViewItem;
}

/** Every row in tree order; `serverIds` is the tree's server order (configured first, then the rest). */
export function rowsInTreeOrder(view: Pick<TaskView, 'group' | 'childrenOf'>, serverIds: readonly string[]): TreeOrderRow[] {
  const rows: TreeOrderRow[] = [];
  for (const serverId of serverIds) {
    for (const group of ['sent', 'received'] as const) {
      for (const item of view.group(serverId, group)) {
        rows.push({ item, serverId, group });
        for (const child of view.childrenOf(item.id)) rows.push({ item: child, serverId, group, parent: item });
      }
    }
  }
  return rows;
}
