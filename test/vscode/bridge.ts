// Typed client for the UI bridge of `scripts/vscode-offline.mjs`.
//
// The offline runner drives the real workbench page with Playwright and serves a small HTTP
// API on 127.0.0.1, whose URL reaches the extension host as MCP_TASKS_E2E_BRIDGE. Tests call
// it to see what the user sees (activity bar, status bar, tree rows, notifications, quick
// input) and to drive the UI (keys, typing, commands through the command palette).
// Under @vscode/test-electron there is no bridge: `uiBridge()` returns undefined and UI tests
// skip themselves (see `uiBridgeOrSkip`).

import * as vscode from 'vscode';

/** One step the runner performs on the page, in order, before it reads the state. */
export type BridgeAction =
  /** Keys for Playwright's `keyboard.press`, e.g. 'F1', 'Escape', 'Control+Shift+P'; an array presses each in turn. */
  | { press: string | string[] }
  /** Text typed with the keyboard into whatever has focus. */
  | { type: string }
  /** F1, type the command's title, wait for the row, Enter. */
  | { runCommand: string }
  /** Click the MCP Tasks activity bar tab (opens the view container; a no-op when already open). */
  | { openView: true }
  /** Click the first element matching a CSS selector (waits for it to be visible). */
  | { click: string }
  /** Click the first side bar tree row whose aria-label contains this text (case-insensitive); toggles a collapsible row. */
  | { clickTreeRow: string }
  /** Move the mouse onto the first side bar tree row whose aria-label contains this text (its tooltip shows after the hover delay). */
  | { hoverTreeRow: string }
  /** Hover the first side bar tree row whose aria-label contains `row` and click its inline action whose label contains `action` (e.g. 'Cancel Task'). */
  | { clickTreeRowAction: { row: string; action: string } }
  /**
   * A page the extension opened in the browser (`vscode.env.openExternal`): wait for one whose URL
   * contains `urlIncludes`, then click `click` in it, or `close` it unanswered.
   */
  | { externalPage: { urlIncludes: string; click?: string; close?: boolean } }
  /** Open the notification center (command palette: "Notifications: Show Notifications"). */
  | { showNotifications: true }
  /**
   * Wait (up to the request's `timeoutMs`) until these expectations hold before the next action;
   * fails the request otherwise. Lets one request walk a multi-step quick input: press Enter,
   * wait for the next step, type, and so on.
   */
  | { waitFor: BridgeExpect };

/** Conditions the runner waits for (each up to `timeoutMs`) before answering. */
export interface BridgeExpect {
  /** The MCP Tasks activity bar tab is present (true) / absent (false). */
  activityBar?: boolean;
  /** The badge on the MCP Tasks tab (the view's badge) reads exactly this ('' = no badge). */
  activityBarBadge?: string;
  /** The side bar title contains this text (case-insensitive), e.g. 'MCP Tasks'. */
  sidebarTitle?: string;
  /** Every string is a substring of some tree row's aria-label in the side bar. */
  treeRows?: string[];
  /** Exact number of tree rows in the side bar. */
  treeRowCount?: number;
  /** Some status bar item's rendered text (or aria-label) contains this text. */
  statusBarText?: string;
  /** The MCP Tasks status bar item's rendered text contains this text. */
  mcpStatusText?: string;
  /** Some notification (in the notification center) contains this text; opens the center. */
  notification?: string;
  /** No notification (in the notification center) contains this text, e.g. one withdrawn; opens the center. */
  noNotification?: string;
  /** A hover (tooltip) is shown and its text contains this text. */
  hoverText?: string;
  /** The quick input (command palette / quick pick) is visible (true) / hidden (false). */
  quickInputVisible?: boolean;
  /** Some quick input row's label contains this text. */
  quickInputRow?: string;
  /** The visible quick input's title contains this text. */
  quickInputTitle?: string;
  /** The visible quick input's placeholder contains this text. */
  quickInputPlaceholder?: string;
  /** The keyboard focus is inside the visible quick input (true), so pressed keys reach it. */
  quickInputFocused?: boolean;
  /** The keyboard focus is in a text editor whose tab label contains this text ('' for any editor): wait for it before typing into an editor. */
  editorFocused?: string;
  /** The visible quick input's input value is exactly this text (e.g. a prefilled default). */
  quickInputValue?: string;
  /** The line under the input (an input box's prompt, or its validation message) contains this text. */
  quickInputMessage?: string;
  /** The input's decoration: 'error' while a validation message is shown, '' when none. */
  quickInputSeverity?: 'error' | 'warning' | 'info' | '';
  /** The focused (active) quick pick row's label contains this text. */
  quickInputActiveRow?: string;
  /** Exactly these rows are checked in a multi-select quick pick (each matched as a substring of one row). */
  quickInputChecked?: string[];
  /**
   * Some editor's shown text contains this text: a text editor's visible lines, or a webview's (a
   * Markdown preview's) rendered text. Only what is on screen counts: a tab that is still blank does not.
   */
  documentText?: string;
  /** Some CodeLens shown in a text editor contains this text (e.g. an action above a document's first line). */
  codeLens?: string;
}

export interface BridgeCheckRequest {
  /** Used for the screenshot file name (`test-results/screenshots/<name>.png`) and in logs. */
  name?: string;
  /** Save a screenshot after the actions and checks. */
  screenshot?: boolean;
  actions?: BridgeAction[];
  expect?: BridgeExpect;
  /** How long each expectation may take to hold (default 15000 ms). */
  timeoutMs?: number;
}

export interface StatusBarItemState {
  /** DOM id of the entry, e.g. `mcp-tasks.mcp-tasks.mcpTasks.status`. */
  id: string;
  /** Rendered text (codicons resolve to nothing, so `$(sync~spin) 0` renders as `0`). */
  text: string;
  ariaLabel: string;
  /** Names of the codicons rendered in it, e.g. ['sync', 'spin']: `codicon-sync` → 'sync'. */
  icons: string[];
}

export interface UiState {
  /** `badge`: the text of the badge on the MCP Tasks tab ('' when none). */
  activityBar: { present: boolean; selected: boolean; tabs: string[]; badge: string };
  sidebar: { visible: boolean; title: string; views: string[] };
  statusBar: { items: StatusBarItemState[]; mcpTasks?: StatusBarItemState };
  /** aria-labels of `.sidebar .monaco-list-row` (label + description). */
  treeRows: string[];
  /** Notification center entries (only read when the center is open). */
  notifications: string[];
  /** The rendered message text of each notification (textContent, not the aria-label). */
  notificationMessages: string[];
  /** Targets (href or data-href) of every link rendered in a notification message. */
  notificationLinks: string[];
  /** The hover (tooltip) on screen: its text, the targets of its links, and the tags of any HTML elements beyond Markdown's own. */
  hover: { visible: boolean; text: string; links: string[]; html: string[] };
  notificationCenterVisible: boolean;
  quickInput: {
    visible: boolean;
    /** The keyboard focus is inside the quick input. */
    focused: boolean;
    /** Title with the step counter, e.g. `"demo" asks: … (2/13)`. */
    title: string;
    value: string;
    placeholder: string;
    /** Labels (aria-labels) of the visible rows. */
    rows: string[];
    /** The line under the input: an input box's prompt, or its validation message while one is shown. */
    message: string;
    /** The input's decoration ('error' while a validation message is shown). */
    severity: 'error' | 'warning' | 'info' | '';
    /** The focused row's label ('' when none). */
    activeRow: string;
    /** Checked rows of a multi-select quick pick. */
    checkedRows: string[];
    /** Title bar buttons (aria-labels), e.g. 'Back'. */
    buttons: string[];
  };
}

export interface BridgeCheckResponse {
  /** Every action succeeded and every expectation held. */
  ok: boolean;
  /** One line per failed action or expectation. */
  failures: string[];
  state: UiState;
  /** Absolute path of the screenshot, when one was asked for. */
  screenshot?: string;
  /** Milliseconds the runner spent on this request. */
  ms: number;
}

export interface UiBridge {
  readonly url: string;
  /** Performs `req` and returns the answer, whether or not the expectations held. */
  check(req: BridgeCheckRequest): Promise<BridgeCheckResponse>;
  /** Like `check`, but throws an Error listing the failures when `ok` is false. */
  assert(req: BridgeCheckRequest): Promise<BridgeCheckResponse>;
  /** The current UI state (no actions, no waiting). */
  state(): Promise<UiState>;
  /** Runs a command through the command palette by its title, e.g. 'MCP Tasks: Show Log'. */
  runCommand(title: string): Promise<BridgeCheckResponse>;
  pressKeys(...keys: string[]): Promise<BridgeCheckResponse>;
  type(text: string): Promise<BridgeCheckResponse>;
  /** Saves `test-results/screenshots/<name>.png`; returns its path. */
  screenshot(name: string): Promise<string>;
}

class HttpUiBridge implements UiBridge {
  constructor(readonly url: string) {}

  async check(req: BridgeCheckRequest): Promise<BridgeCheckResponse> {
    const res = await fetch(`${this.url}/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(req),
    });
    const body = await res.text();
    if (!res.ok) throw new Error(`UI bridge ${res.status}: ${body}`);
    return JSON.parse(body) as BridgeCheckResponse;
  }

  async assert(req: BridgeCheckRequest): Promise<BridgeCheckResponse> {
    const r = await this.check(req);
    if (!r.ok) {
      const extensionSide = treeProviderState();
      throw new Error(
        `UI check ${req.name ?? ''} failed:\n  ${r.failures.join('\n  ')}${extensionSide}\nstate: ${JSON.stringify(r.state, null, 2)}`,
      );
    }
    return r;
  }

  async state(): Promise<UiState> {
    return (await this.check({})).state;
  }

  runCommand(title: string): Promise<BridgeCheckResponse> {
    return this.assert({ name: `runCommand ${title}`, actions: [{ runCommand: title }] });
  }

  pressKeys(...keys: string[]): Promise<BridgeCheckResponse> {
    return this.assert({ name: `press ${keys.join(' ')}`, actions: [{ press: keys }] });
  }

  type(text: string): Promise<BridgeCheckResponse> {
    return this.assert({ name: 'type', actions: [{ type: text }] });
  }

  async screenshot(name: string): Promise<string> {
    const r = await this.assert({ name, screenshot: true });
    return r.screenshot ?? '';
  }
}

/** The bridge when running under `scripts/vscode-offline.mjs`, else undefined. */
/** What the extension's Tasks tree provider believes (a failed check of tree rows is explained by it), or ''. */
function treeProviderState(): string {
  const exports = vscode.extensions.getExtension<{ treeState?(): unknown }>('mcp-tasks.mcp-tasks')?.exports;
  return exports?.treeState ? `\nthe Tasks tree's provider: ${JSON.stringify(exports.treeState())}` : '';
}

export function uiBridge(): UiBridge | undefined {
  const url = process.env.MCP_TASKS_E2E_BRIDGE;
  return url ? new HttpUiBridge(url.replace(/\/+$/, '')) : undefined;
}

/**
 * For use in a mocha `test(..., function () { ... })` (not an arrow function): returns the
 * bridge, or logs why and skips the test when there is none.
 */
export function uiBridgeOrSkip(ctx: Mocha.Context): UiBridge {
  const b = uiBridge();
  if (!b) {
    console.log(`  (skipped: no UI bridge; MCP_TASKS_E2E_BRIDGE is set only by scripts/vscode-offline.mjs)`);
    ctx.skip();
  }
  return b as UiBridge;
}
