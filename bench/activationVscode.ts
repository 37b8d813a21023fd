/**
 * `vscode` as the extension's `activate()` meets it, for the start-up row's activation figures in
 * plain Node (bench/activationMain.ts): the benchmark's plain classes (vscodeStub.ts) plus the
 * registration APIs activation calls — each returns a disposable and records nothing. User settings
 * come from {@link userSettings}; there is no workspace folder, so no `.vscode/mcp.json`.
 * Anything activation touches that is not here is reported by name (see `vscodeModule`), so the
 * row cannot silently measure a path that threw.
 */
import * as stub from '../test/helpers/vscodeClasses.js';

/** The user's `mcpTasks.*` settings (`inspect().globalValue`), set by activationMain.ts before activation. */
export const userSettings: Record<string, unknown> = {};

const disposable = () => ({ dispose: () => undefined });
/** `vscode.Event`: a subscription that never fires. */
const never = () => disposable();

class Disposable {
  constructor(private readonly _fn: () => void) {}
  static from(...ds: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this._fn();
  }
}

class FileSystemError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
  static FileNotFound(what?: unknown): FileSystemError {
    return new FileSystemError(String(what), 'FileNotFound');
  }
  static NoPermissions(what?: unknown): FileSystemError {
    return new FileSystemError(String(what), 'NoPermissions');
  }
}

/** `Uri` with `joinPath` and `parse` (the stub's has `file` and `from`). */
class Uri extends (stub.Uri as unknown as new (scheme: string, fsPath: string) => stub.Uri) {
  static joinPath(base: stub.Uri, ...parts: string[]): stub.Uri {
    return stub.Uri.file([base.fsPath, ...parts].join('/'));
  }
  static parse(text: string): stub.Uri {
    const m = /^([a-z][\w+.-]*):(?:\/\/([^/?]*))?([^?]*)(?:\?(.*))?$/i.exec(text);
    return stub.Uri.from({ scheme: m?.[1] ?? 'file', authority: m?.[2] ?? '', path: m?.[3] ?? text, query: m?.[4] ?? '' });
  }
}

const configuration = (section: string) => ({
  get: <T>(key: string, fallback?: T) => (userSettings[`${section}.${key}`] as T | undefined) ?? fallback,
  inspect: <T>(key: string) => ({ key: `${section}.${key}`, globalValue: userSettings[`${section}.${key}`] as T | undefined }),
  has: (key: string) => `${section}.${key}` in userSettings,
  update: () => Promise.resolve(),
});

/** What the extension wrote to its log channels (warn and error; the activation test reads them). */
export const loggedLines: Array<{ readonly channel: string; readonly level: 'warn' | 'error'; readonly message: string }> = [];

const outputChannel = (name = '') => ({
  name,
  logLevel: 0,
  onDidChangeLogLevel: never,
  append: () => undefined,
  appendLine: () => undefined,
  replace: () => undefined,
  clear: () => undefined,
  show: () => undefined,
  hide: () => undefined,
  dispose: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => void loggedLines.push({ channel: name, level: 'warn', message }),
  error: (message: unknown) => void loggedLines.push({ channel: name, level: 'error', message: String(message) }),
});

const statusBarItem = () => ({ text: '', tooltip: undefined, command: undefined, name: undefined, show: () => undefined, hide: () => undefined, dispose: () => undefined });

const treeView = () => ({ visible: false, badge: undefined, message: undefined, title: undefined, onDidChangeVisibility: never, onDidChangeSelection: never, onDidExpandElement: never, onDidCollapseElement: never, reveal: () => Promise.resolve(), dispose: () => undefined });

const watcher = () => ({ onDidChange: never, onDidCreate: never, onDidDelete: never, dispose: () => undefined });

/** The `vscode` module object activation sees. */
export const vscodeModule: Record<string, unknown> = {
  ...stub,
  Uri,
  Disposable,
  FileSystemError,
  ExtensionMode: { Production: 1, Development: 2, Test: 3 },
  StatusBarAlignment: { Left: 1, Right: 2 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  ViewColumn: { Active: -1, Beside: -2, One: 1 },
  QuickPickItemKind: { Separator: -1, Default: 0 },
  LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
  FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
  FileChangeType: { Changed: 1, Created: 2, Deleted: 3 },
  CancellationError: class CancellationError extends Error {},
  window: {
    ...stub.window,
    createTreeView: treeView,
    createStatusBarItem: statusBarItem,
    createOutputChannel: outputChannel,
    tabGroups: { all: [], onDidChangeTabs: never, onDidChangeTabGroups: never },
    activeTextEditor: undefined,
    visibleTextEditors: [],
    onDidChangeActiveTextEditor: never,
  },
  workspace: {
    ...stub.workspace,
    workspaceFolders: undefined,
    isTrusted: true,
    getConfiguration: configuration,
    createFileSystemWatcher: watcher,
    onDidChangeWorkspaceFolders: never,
    onDidChangeConfiguration: never,
    onDidGrantWorkspaceTrust: never,
    onDidChangeTextDocument: never,
    onDidCloseTextDocument: never,
    registerTextDocumentContentProvider: disposable,
    registerFileSystemProvider: disposable,
    fs: { readFile: () => Promise.reject(FileSystemError.FileNotFound()) },
  },
  languages: { registerCodeLensProvider: disposable },
  commands: { ...stub.commands, registerCommand: disposable },
  lm: { registerTool: disposable, selectChatModels: () => Promise.resolve([]), onDidChangeChatModels: never },
  env: { language: 'en', clipboard: { writeText: () => Promise.resolve() }, openExternal: () => Promise.resolve(true) },
  extensions: { getExtension: () => undefined, all: [], onDidChange: never },
};
