/**
 * The extension API's VS Code side: what `activate()` exports to other extensions
 * (`api/mcp-tasks.d.ts`), backed by src/core/api. `getApi(extensionId)` accepts only the id of
 * an installed extension (a label, not proof of identity: see SECURITY.md).
 */
import * as vscode from 'vscode';
import type { McpTasksApiV1, McpTasksExports } from '../../../api/mcp-tasks';
import type { ServerRegistry } from '../../core/connection/registry.js';
import { TaskApiError } from '../../core/api/apiErrors.js';
import { TasksApiFactory } from '../../core/api/tasksApi.js';
import type { TaskTracker } from '../../core/requestor/tracker.js';
import type { TaskView } from '../../core/view/taskView.js';

export class ExtensionApi implements McpTasksExports, vscode.Disposable {
  readonly version = 1 as const;
  private readonly _factory: TasksApiFactory;

  constructor(registry: ServerRegistry, tracker: TaskTracker, view: TaskView) {
    this._factory = new TasksApiFactory({ tracker, view, connections: () => registry.connections });
  }

  getApi(extensionId: string): McpTasksApiV1 {
    if (typeof extensionId === 'string' && !vscode.extensions.getExtension(extensionId)) {
      throw new TaskApiError('invalid_input', `Invalid extensionId: "${extensionId}" is not an installed extension.`);
    }
    return this._factory.getApi(extensionId);
  }

  dispose(): void {
    this._factory.dispose();
  }
}
