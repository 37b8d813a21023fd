/**
 * VS Code's quick inputs (`window.createInputBox`, `window.createQuickPick`) for the UI's unit
 * tests, through test/helpers/vscodeFake.ts: each records what it shows, and a test types,
 * picks and presses Enter or Back on the one shown now ({@link quickInputs}).
 */
import { EventEmitter } from './vscodeClasses.js';

export const QuickInputButtons = { Back: { iconPath: 'back', tooltip: 'Back' } };

export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}

/** What both kinds share. */
class FakeQuickInput {
  title?: string;
  step?: number;
  totalSteps?: number;
  placeholder?: string;
  ignoreFocusOut = false;
  buttons: readonly unknown[] = [];
  visible = false;
  disposed = false;
  readonly onDidAcceptEmitter = new EventEmitter<void>();
  readonly onDidHideEmitter = new EventEmitter<void>();
  readonly onDidTriggerButtonEmitter = new EventEmitter<unknown>();
  readonly onDidAccept = this.onDidAcceptEmitter.event;
  readonly onDidHide = this.onDidHideEmitter.event;
  readonly onDidTriggerButton = this.onDidTriggerButtonEmitter.event;
  show(): void {
    this.visible = true;
    quickInputs.shown.push(this);
    shownEmitter.fire(this);
  }
  hide(): void {
    if (!this.visible) return;
    this.visible = false;
    this.onDidHideEmitter.fire();
  }
  dispose(): void {
    this.disposed = true;
    this.visible = false;
  }
  /** Presses Enter. */
  accept(): void {
    this.onDidAcceptEmitter.fire();
  }
  /** Presses Back. */
  back(): void {
    this.onDidTriggerButtonEmitter.fire(QuickInputButtons.Back);
  }
}

export class FakeInputBox extends FakeQuickInput {
  readonly kind = 'input';
  prompt?: string;
  password = false;
  validationMessage?: string;
  private _value = '';
  readonly onDidChangeValueEmitter = new EventEmitter<string>();
  readonly onDidChangeValue = this.onDidChangeValueEmitter.event;
  get value(): string {
    return this._value;
  }
  set value(v: string) {
    this._value = v;
  }
  /** Types `text` in place of what is there (fires the change, as typing does). */
  type(text: string): void {
    this._value = text;
    this.onDidChangeValueEmitter.fire(text);
  }
}

export class FakeQuickPick<T extends { label: string }> extends FakeQuickInput {
  readonly kind = 'pick';
  items: readonly T[] = [];
  canSelectMany = false;
  matchOnDescription = false;
  activeItems: readonly T[] = [];
  selectedItems: readonly T[] = [];
  /** Picks the first row whose label matches and presses Enter. */
  pick(label: string | RegExp): void {
    const item = this.items.find((i) => (typeof label === 'string' ? i.label === label : label.test(i.label)));
    if (!item) throw new Error(`no row ${String(label)} among ${this.items.map((i) => JSON.stringify(i.label)).join(', ')}`);
    this.activeItems = [item];
    this.selectedItems = [item];
    this.accept();
  }
}

const shownEmitter = new EventEmitter<FakeQuickInput>();

/** The quick inputs shown, in order; `current()` is the one on screen now. */
export const quickInputs = {
  shown: [] as FakeQuickInput[],
  /** The quick input on screen once `check` holds for it (it may already be shown). */
  when<Q extends FakeQuickInput>(check: (q: FakeQuickInput) => q is Q): Promise<Q> {
    const now = this.current();
    if (now && check(now)) return Promise.resolve(now);
    return new Promise((resolve) => {
      const sub = shownEmitter.event((q) => {
        if (!check(q)) return;
        sub.dispose();
        resolve(q);
      });
    });
  },
  current(): FakeInputBox | FakeQuickPick<{ label: string }> | undefined {
    const last = [...this.shown].reverse().find((q) => q.visible && !q.disposed);
    return last as FakeInputBox | FakeQuickPick<{ label: string }> | undefined;
  },
  reset(): void {
    this.shown.length = 0;
  },
};

/** `window.createInputBox` / `window.createQuickPick`. */
export const quickInputWindow = {
  createInputBox: () => new FakeInputBox(),
  createQuickPick: <T extends { label: string }>() => new FakeQuickPick<T>(),
};
