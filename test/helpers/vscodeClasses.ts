/**
 * The few `vscode` classes the Tasks tree (src/ui/view/tasksTree.ts) uses, as plain objects, so the
 * benchmark can drive the real `TasksTreeProvider` in Node (section 7, `surface`). Bundled in place of `vscode`
 * by bench/run.mjs; nothing here renders anything. The unit tests use them too, through
 * ./vscodeFake.ts (which adds recording) and ./vscodeStub.ts (the hook that makes `vscode` resolve
 * to the fake): one set of classes for the bench and the tests.
 */
export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

/** VS Code's values (notify.ts shows progress as a notification). */
export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

/** VS Code's values (documents open beside or in the active column). */
export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}

/** Plain holders: the bench reads documents' text, nothing draws a lens or a tab. */
export class Range {
  constructor(
    readonly startLine: number,
    readonly startCharacter: number,
    readonly endLine: number,
    readonly endCharacter: number,
  ) {}
}

export class CodeLens {
  constructor(
    readonly range: Range,
    readonly command?: unknown,
  ) {}
}

export class TabInputWebview {
  constructor(readonly viewType: string) {}
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

/**
 * VS Code's extension-host Memento (`ExtensionMemento`, src/vs/workbench/api/common/extHostMemento.ts,
 * as shipped in the code-server 4.139 the e2e tests use): `update` deep-copies an object value
 * through JSON at once (a string passes as it is), and a scheduler (0 ms) then sends the whole
 * memento — every key — to the main process as one RPC message: the arguments serialised with
 * `JSON.stringify` into a buffer (`rpcProtocol.ts`, `serializeRequestArguments`). Section 7 (`surface`) measures
 * the CPU of that whole path. Not here: the main process's own copy and its write to disk.
 */
export class Memento {
  private readonly _value: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  private _scheduled?: NodeJS.Timeout;
  private _waiting: Array<() => void> = [];
  /** Bytes of the last message sent to the main process. */
  lastMessageBytes = 0;
  messages = 0;

  constructor(initial: Record<string, unknown> = {}) {
    Object.assign(this._value, initial);
  }

  keys(): readonly string[] {
    return Object.keys(this._value).filter((k) => this._value[k] !== undefined);
  }

  get<T>(key: string, defaultValue?: T): T | undefined {
    const v = this._value[key] as T | undefined;
    return v === undefined ? defaultValue : v;
  }

  update(key: string, value: unknown): Promise<void> {
    this._value[key] = value !== null && typeof value === 'object' ? JSON.parse(JSON.stringify(value)) : value;
    this._scheduled ??= setTimeout(() => this._send(), 0);
    return new Promise((resolve) => this._waiting.push(resolve));
  }

  private _send(): void {
    this._scheduled = undefined;
    const message = Buffer.from(JSON.stringify([false, 'mcp-tasks.mcp-tasks', this._value]));
    this.lastMessageBytes = message.length;
    this.messages++;
    for (const w of this._waiting.splice(0)) w();
  }
}

/** `vscode.Uri`, as far as the storage adapter uses it (a `file:` folder). */
export class Uri {
  private constructor(
    readonly scheme: string,
    readonly fsPath: string,
  ) {}
  authority = '';
  path = '';
  query = '';
  static file(path: string): Uri {
    return new Uri('file', path);
  }
  /** `Uri.from`, for the virtual documents (mcp-task:, mcp-tasks-request:). */
  static from(c: { scheme: string; authority?: string; path?: string; query?: string }): Uri {
    return Object.assign(new Uri(c.scheme, c.path ?? ''), { authority: c.authority ?? '', path: c.path ?? '', query: c.query ?? '' });
  }
  with(change: { query?: string }): Uri {
    return Uri.from({ scheme: this.scheme, authority: this.authority, path: this.path, query: change.query ?? this.query });
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}`;
  }
}

/** `vscode.CancellationTokenSource` (the prompt queue cancels a prompt through it). */
export class CancellationTokenSource {
  private readonly _emitter = new EventEmitter<void>();
  private _cancelled = false;
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this._emitter.event,
  };
  cancel(): void {
    if (this._cancelled) return;
    this._cancelled = true;
    this.token.isCancellationRequested = true;
    this._emitter.fire();
  }
  dispose(): void {
    this._emitter.dispose();
  }
}

/** What `vscode.window.show*Message` showed (tests read it), with its options; each resolves as if dismissed. */
export const shownMessages: Array<{ message: string; options?: unknown }> = [];
const show = (message: string, options?: unknown): Promise<undefined> => {
  shownMessages.push({ message, options });
  return Promise.resolve(undefined);
};

/** `vscode.window`, as far as notifications go: a notification is recorded and dismissed. */
export const window = {
  showInformationMessage: show,
  showWarningMessage: show,
  showErrorMessage: show,
};

/** `vscode.commands`: registered handlers are kept by id (tests run them). */
export const registeredCommands = new Map<string, (...args: unknown[]) => unknown>();
export const commands = {
  registerCommand(id: string, handler: (...args: unknown[]) => unknown) {
    registeredCommands.set(id, handler);
    return { dispose: () => registeredCommands.delete(id) };
  },
  executeCommand: async () => undefined,
};

/** `vscode.workspace`: no open documents. */
export const workspace = { textDocuments: [] as unknown[] };
