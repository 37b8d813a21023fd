/**
 * `vscode` for the UI's unit tests in plain Node: the plain classes the benchmark
 * bundles as `vscode` too (./vscodeClasses.ts: classes, messages, commands) plus progress notifications and status-bar items, each
 * recording what it was asked to show in {@link fake} so a test can read it (and press a
 * progress notification's Cancel).
 */
export * from './vscodeClasses.js';
import { CancellationTokenSource, ThemeColor, window as stubWindow } from './vscodeClasses.js';
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

/** What the UI showed, for the tests to read. */
export const fake = {
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
    return item;
  },
};
