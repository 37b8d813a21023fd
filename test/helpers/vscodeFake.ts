/**
 * `vscode` for the UI's unit tests in plain Node: the benchmark's plain classes
 * (bench/vscodeStub.ts) plus the few window, workspace and command functions the UI's
 * notifications, status-bar items and prompt queue use, each recording what it was asked to
 * show in {@link fake} so a test can read it (and press a notification's buttons).
 */
export * from '../../bench/vscodeStub.js';
import { EventEmitter, ThemeColor } from '../../bench/vscodeStub.js';

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

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

export class Disposable {
  constructor(private readonly _fn: () => void) {}
  static from(...ds: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this._fn();
  }
}

/** A message shown with showInformationMessage & co.: press one of its buttons with `choose`. */
export interface FakeMessage {
  readonly severity: 'info' | 'warning' | 'error';
  readonly message: string;
  readonly items: readonly string[];
  choose(item: string | undefined): void;
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

/** What the UI showed, for the tests to read. */
export const fake = {
  messages: [] as FakeMessage[],
  progress: [] as FakeProgress[],
  statusBarItems: [] as FakeStatusBarItem[],
  commands: [] as Array<{ readonly command: string; readonly args: unknown[] }>,
  /** Progress notifications shown now (not done). */
  shownProgress(): FakeProgress[] {
    return this.progress.filter((p) => !p.done);
  },
  reset(): void {
    this.messages.length = 0;
    this.progress.length = 0;
    this.statusBarItems.length = 0;
    this.commands.length = 0;
  },
};

function show(severity: FakeMessage['severity']) {
  return (message: string, ...rest: unknown[]): Promise<string | undefined> => {
    const items = rest.filter((r): r is string => typeof r === 'string');
    return new Promise((resolve) => fake.messages.push({ severity, message, items, choose: resolve }));
  };
}

export const window = {
  showInformationMessage: show('info'),
  showWarningMessage: show('warning'),
  showErrorMessage: show('error'),
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
    return item;
  },
};

export const commands = {
  executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    fake.commands.push({ command, args });
    return Promise.resolve(undefined);
  },
};
