/**
 * `vscode` for the UI's unit tests in plain Node: the plain classes the benchmark
 * bundles as `vscode` too (./vscodeClasses.ts: classes, messages, commands) plus progress notifications and status-bar items, each
 * recording what it was asked to show in {@link fake} so a test can read it (and press a
 * progress notification's Cancel).
 */
export * from './vscodeClasses.js';
import { CancellationTokenSource, commands as stubCommands, EventEmitter, ThemeColor, window as stubWindow, workspace as stubWorkspace } from './vscodeClasses.js';
import { quickInputWindow } from './quickInputFake.js';
export { QuickInputButtons, QuickPickItemKind } from './quickInputFake.js';

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export class Disposable {
  constructor(private readonly _fn: () => void) {}
  static from(...ds: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this._fn();
  }
}

/** A message shown with showInformationMessage & co. (dismissed at once, as the benchmark's stub does). */
export interface FakeMessage {
  readonly severity: 'info' | 'warning' | 'error';
  readonly message: string;
  readonly items: readonly string[];
}

/** A progress notification: its latest text, and whether it is still shown. */
export interface FakeProgress {
  readonly location: ProgressLocation;
  readonly cancellable: boolean;
  message?: string;
  done: boolean;
  /** Presses its Cancel button. */
  cancel(): void;
}

export interface FakeStatusBarItem {
  readonly id: string;
  text: string;
  tooltip?: unknown;
  command?: unknown;
  name?: string;
  backgroundColor?: ThemeColor;
  accessibilityInformation?: unknown;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

/** What the UI holds of VS Code now (a subscription, a status-bar item, a command, a watcher), by what it is. */
const held = new Map<object, string>();

/** Records `d` as held until it is disposed. */
function hold<T extends { dispose(): unknown }>(what: string, d: T): T {
  const dispose = d.dispose.bind(d);
  held.set(d, what);
  d.dispose = () => {
    held.delete(d);
    return dispose();
  };
  return d;
}

/** An event of VS Code's whose subscriptions are held until disposed; `fire` plays VS Code's part. */
function heldEvent<T>(what: string) {
  const emitter = new EventEmitter<T>();
  const event = (listener: (e: T) => unknown) => hold(what, emitter.event(listener));
  return Object.assign(event, { fire: (e: T) => emitter.fire(e) });
}

/** What the UI showed, for the tests to read. */
export const fake = {
  /** What the UI holds of VS Code and has not disposed: a class that owns what it registers leaves nothing here once disposed. */
  held(): string[] {
    return [...held.values()];
  },
  messages: [] as FakeMessage[],
  progress: [] as FakeProgress[],
  statusBarItems: [] as FakeStatusBarItem[],
  /** Progress notifications shown now (not done). */
  shownProgress(): FakeProgress[] {
    return this.progress.filter((p) => !p.done);
  },
  reset(): void {
    this.messages.length = 0;
    this.progress.length = 0;
    this.statusBarItems.length = 0;
  },
};

/** Records a message here and in the stub's `shownMessages` (tests of either read it); dismissed at once. */
function show(severity: FakeMessage['severity'], stubShow: (message: string, options?: unknown) => Promise<undefined>) {
  return (message: string, ...rest: unknown[]): Promise<undefined> => {
    const items = rest.filter((r): r is string => typeof r === 'string');
    fake.messages.push({ severity, message, items });
    const options = rest.find((r) => typeof r === 'object' && r !== null && !('title' in r));
    return stubShow(message, options);
  };
}

export const window = {
  ...stubWindow,
  ...quickInputWindow,
  showInformationMessage: show('info', stubWindow.showInformationMessage),
  showWarningMessage: show('warning', stubWindow.showWarningMessage),
  showErrorMessage: show('error', stubWindow.showErrorMessage),
  withProgress<R>(
    options: { location: ProgressLocation; title?: string; cancellable?: boolean },
    task: (progress: { report(v: { message?: string }): void }, token: CancellationTokenSource['token']) => Promise<R>,
  ): Promise<R> {
    const cts = new CancellationTokenSource();
    const p: FakeProgress = { location: options.location, cancellable: !!options.cancellable, message: options.title, done: false, cancel: () => cts.cancel() };
    fake.progress.push(p);
    const result = task({ report: (v) => v.message !== undefined && (p.message = v.message) }, cts.token);
    return result.finally(() => (p.done = true));
  },
  createStatusBarItem(id: string): FakeStatusBarItem {
    const item: FakeStatusBarItem = {
      id,
      text: '',
      visible: false,
      show() {
        item.visible = true;
      },
      hide() {
        item.visible = false;
      },
      dispose() {
        item.visible = false;
      },
    };
    fake.statusBarItems.push(item);
    return hold(`status-bar item ${id}`, item);
  },
};

/** `vscode.commands`, with each registration held until disposed. */
export const commands = {
  ...stubCommands,
  registerCommand: (id: string, handler: (...args: unknown[]) => unknown) => hold(`command ${id}`, stubCommands.registerCommand(id, handler)),
};

/** `vscode.workspace`: trusted, no folder; its events are held until disposed (fired by the test). */
export const workspace = {
  ...stubWorkspace,
  isTrusted: true,
  workspaceFolders: undefined,
  onDidChangeConfiguration: heldEvent<{ affectsConfiguration(section: string): boolean }>('workspace.onDidChangeConfiguration'),
  onDidChangeWorkspaceFolders: heldEvent<void>('workspace.onDidChangeWorkspaceFolders'),
  onDidChangeTextDocument: heldEvent<unknown>('workspace.onDidChangeTextDocument'),
  onDidGrantWorkspaceTrust: heldEvent<void>('workspace.onDidGrantWorkspaceTrust'),
  createFileSystemWatcher: (glob: string) =>
    hold(`file watcher ${glob}`, {
      onDidChange: heldEvent<unknown>(`watcher ${glob}: onDidChange`),
      onDidCreate: heldEvent<unknown>(`watcher ${glob}: onDidCreate`),
      onDidDelete: heldEvent<unknown>(`watcher ${glob}: onDidDelete`),
      dispose() {},
    }),
};
