import * as vscode from 'vscode';
import { readUserSettings, type Settings } from '../../core/config/settings.js';
import { showWarning } from './notify.js';

/**
 * The `mcpTasks.*` settings, from the user's own settings only (core/config/settings.ts), read at their first need.
 *
 * A value the user set is checked on zod/mini (the checks' part, scripts/lib/lazyParts.mjs), which costs a window
 * more than the rest of its activation: nothing reads them inside `activate()`, so the extension reads them right after
 * it (bench: "startup user values read"), or sooner when a command needs one.
 */
export class UserSettings {
  private _current: Settings | undefined;
  /** The workspace's ignored keys last told, so they are told again only when they change. */
  private _toldIgnored = '';

  /** `onRead`: given each reading (the first, and each after a change of the settings), before anyone reads it. */
  constructor(private readonly _onRead: (settings: Settings) => void) {}

  /** The settings, read now if they have not been yet. */
  get current(): Settings {
    return this._current ?? this.reload();
  }

  /** Reads them again (the user changed them). A value that fails its check is said, and its default used. */
  reload(): Settings {
    const cfg = vscode.workspace.getConfiguration('mcpTasks');
    const { settings, problems, ignored } = readUserSettings((key) => cfg.inspect(key));
    for (const p of problems) void showWarning(vscode.l10n.t('MCP Tasks: setting "{0}": {1}', p.key, p.message));
    const now = ignored.join(', ');
    if (now && now !== this._toldIgnored) {
      void showWarning(vscode.l10n.t('MCP Tasks: this workspace sets {0}; ignored: these settings change limits and consent, so only your user settings set them.', now));
    }
    this._toldIgnored = now;
    this._current = settings;
    this._onRead(settings);
    return settings;
  }
}
