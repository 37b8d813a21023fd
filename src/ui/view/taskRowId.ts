import type { TaskViewItem } from '../../core/view/taskView.js';

/**
 * The `TreeItem.id` of a task's row in the Tasks tree: the task's id, plus where the row stands
 * (nested under a sent call) and whether it has children.
 *
 * VS Code matches rows by `TreeItem.id` and keeps a known row's collapse state, ignoring the
 * `collapsibleState` the provider now gives; a leaf counts as collapsed. So a call row drawn before
 * the request it causes arrived (a leaf), then given that request as a child, stayed collapsed with
 * the child hidden (seen on Streamable HTTP, where the request comes later than over
 * stdio). A row that gains or loses children, or moves under another parent, gets a new id: VS Code
 * draws it as a new row, expanded as the provider says. A user's collapse is kept while the row keeps
 * its children. (test/helpers/fakeTreeView.ts models this; test/unit/ui/tasksTreeNesting.test.ts.)
 */
export function taskRowId(item: Pick<TaskViewItem, 'id' | 'parentId'>, hasChildren: boolean): string {
  return `${item.id}${item.parentId !== undefined ? ` in ${item.parentId}` : ''}${hasChildren ? ' (with requests)' : ''}`;
}
