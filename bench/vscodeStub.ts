/**
 * The few `vscode` classes the Tasks tree (src/ui/tasksTree.ts) uses, as plain objects, so the
 * benchmark can drive the real `TasksTreeProvider` in Node (row 6). Bundled in place of `vscode`
 * by bench/run.mjs; nothing here renders anything.
 */
export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}

export class MarkdownString {
  isTrusted = false;
  supportHtml = false;
  supportThemeIcons = false;
  constructor(public value = '') {}
  appendMarkdown(text: string): this {
    this.value += text;
    return this;
  }
}

export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string | MarkdownString;
  iconPath?: ThemeIcon;
  contextValue?: string;
  command?: unknown;
  accessibilityInformation?: { label: string };
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export class EventEmitter<T> {
  private _listeners: Array<(e: T) => unknown> = [];
  readonly event = (listener: (e: T) => unknown) => {
    this._listeners.push(listener);
    return { dispose: () => (this._listeners = this._listeners.filter((l) => l !== listener)) };
  };
  fire(e: T): void {
    for (const l of this._listeners) l(e);
  }
  dispose(): void {
    this._listeners = [];
  }
}

/** `vscode.l10n` with no bundle loaded: the English message with its `{0}` / `{name}` placeholders filled in. */
export const l10n = {
  t(message: string | { message: string; args?: unknown[] | Record<string, unknown> }, ...rest: unknown[]): string {
    const text = typeof message === 'string' ? message : message.message;
    const first = rest[0];
    const args: unknown[] | Record<string, unknown> =
      typeof message === 'string' ? (rest.length === 1 && first !== null && typeof first === 'object' && !Array.isArray(first) ? (first as Record<string, unknown>) : rest) : (message.args ?? []);
    return text.replace(/\{([^}]+)\}/g, (whole, key: string) => {
      const value = Array.isArray(args) ? args[Number(key)] : args[key];
      return value === undefined ? whole : String(value);
    });
  },
};
