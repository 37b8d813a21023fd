// The UI bridge: an HTTP server on 127.0.0.1 through which tests running in the extension host
// ask the runner to look at (and drive) the live workbench page with Playwright.
// Protocol (JSON over HTTP; the TypeScript client is test/vscode/bridge.ts):
//   GET  /health  → { ok: true, page: boolean }
//   GET  /state   → UiState
//   POST /check   { name?, screenshot?, actions?: Action[], expect?: Expect, timeoutMs? }
//              → { ok, failures: string[], state: UiState, screenshot?: string, ms }
// Requests are served one at a time, in arrival order.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

export const MCP_TAB_NAME = /MCP Tasks/;

/**
 * Installed into every page of the context (before the workbench's own scripts) as
 * `window.__mcpTasksE2E`. Runs in the browser: keep it self-contained.
 */
function pageHelpers() {
  const squash = (s) => (s ?? '').replace(/\s+/g, ' ').trim();
  const visible = (el) => {
    if (!el || !el.isConnected) return false;
    const st = getComputedStyle(el);
    if (st.display === 'none' || st.visibility === 'hidden') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const all = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  // An activity bar tab keeps its name on the inner `.action-label` (the `li[role=tab]` itself
  // has aria-label="" unless selected).
  const label = (el) =>
    squash(el.getAttribute('aria-label') || el.querySelector('.action-label')?.getAttribute('aria-label') || el.textContent);

  function readState() {
    const tabs = all('.part.activitybar [role="tab"], .part.sidebar .composite-bar [role="tab"]');
    const mcpTab = tabs.find((t) => /MCP Tasks/.test(label(t)));
    const sidebar = document.querySelector('.part.sidebar');
    const sidebarVisible = visible(sidebar);
    const title = sidebarVisible
      ? squash(sidebar.querySelector('.composite.title .title-label h2, .composite.title .title-label')?.textContent)
      : '';
    // A container with a single view hides that view's header and shows "Container: View" as the
    // title; the (hidden) header is still listed here.
    const views = sidebarVisible
      ? all('.pane-header', sidebar)
          .filter((h) => visible(h.closest('.pane') ?? h))
          .map((h) => squash(h.querySelector('.title')?.textContent || h.getAttribute('aria-label')))
      : [];
    const items = all('.part.statusbar .statusbar-item').map((el) => {
      const a = el.querySelector('a') ?? el;
      const icons = all('.codicon', el).flatMap((i) =>
        Array.from(i.classList)
          .filter((c) => c.startsWith('codicon-'))
          .map((c) => c.replace(/^codicon-(modifier-)?/, '')),
      );
      return { id: el.id, text: squash(el.textContent), ariaLabel: squash(a.getAttribute('aria-label') || el.getAttribute('aria-label')), icons };
    });
    const mcpTasks = items.find((i) => /mcpTasks\.status$/.test(i.id)) ?? items.find((i) => /MCP Tasks/i.test(i.ariaLabel));
    // The rows in the tree's viewport, in order (not the sticky copies of the top row's ancestors).
    const treeRows = sidebarVisible ? all('.monaco-list-row:not(.monaco-tree-sticky-row)', sidebar).map((r) => squash(r.getAttribute('aria-label') || r.textContent)) : [];
    const center = document.querySelector('.notifications-center');
    const centerVisible = visible(center);
    const notificationRows = [
      ...(centerVisible ? all('.monaco-list-row', center) : []),
      ...all('.notifications-toasts .monaco-list-row').filter(visible),
    ];
    const notifications = notificationRows.map(label);
    // Where a link points: VS Code's markdown and linked-text renderers keep it in href or data-href.
    const linkTargets = (root) => all('a, .monaco-link', root).map((a) => a.getAttribute('data-href') || a.getAttribute('href') || `(no target) ${squash(a.textContent)}`);
    // The rendered message text (not the aria-label) and the links in it.
    const notificationMessages = notificationRows.map((r) => squash((r.querySelector('.notification-list-item-message') ?? r).textContent));
    const notificationLinks = notificationRows.flatMap((r) => linkTargets(r.querySelector('.notification-list-item-message') ?? r));
    // A hover on screen (tree and status bar tooltips): its text, its links, and any raw HTML element it rendered.
    const hoverEl = all('.monaco-hover, .workbench-hover').filter(visible).pop();
    const hover = {
      visible: !!hoverEl,
      text: hoverEl ? squash(hoverEl.textContent) : '',
      links: hoverEl ? linkTargets(hoverEl) : [],
      html: hoverEl ? all('.rendered-markdown *', hoverEl).map((e) => e.tagName.toLowerCase()).filter((t) => !['p', 'strong', 'em', 'code', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'ul', 'li', 'br', 'hr', 'span', 'div'].includes(t)) : [],
    };
    const qi = document.querySelector('.quick-input-widget');
    const qiVisible = visible(qi);
    const input = qi?.querySelector('.quick-input-box input');
    const rows = qiVisible ? all('.quick-input-list .monaco-list-row', qi).filter(visible) : [];
    // The line under the input: the prompt of an input box, or its validation message.
    const messageEl = qiVisible ? qi.querySelector('.quick-input-message') : null;
    const inputBox = qi?.querySelector('.quick-input-box .monaco-inputbox');
    const severity = !qiVisible || !inputBox ? '' : ['error', 'warning', 'info'].find((c) => inputBox.classList.contains(c)) ?? '';
    const isChecked = (r) =>
      r.getAttribute('aria-checked') === 'true' ||
      !!r.querySelector('input[type="checkbox"]')?.checked ||
      !!r.querySelector('.monaco-custom-toggle.checked, .quick-input-list-checkbox.checked');
    const quickInput = {
      visible: qiVisible,
      // Keys go to the quick input only while the keyboard focus is inside it: between two
      // steps the workbench briefly returns focus to where it was.
      focused: qiVisible && !!document.activeElement && qi.contains(document.activeElement),
      title: qiVisible ? squash(qi.querySelector('.quick-input-title')?.textContent) : '',
      value: qiVisible ? (input?.value ?? '') : '',
      placeholder: qiVisible ? (input?.getAttribute('placeholder') ?? '') : '',
      rows: rows.map(label),
      message: messageEl && visible(messageEl) ? squash(messageEl.textContent) : '',
      severity,
      activeRow: label(rows.find((r) => r.classList.contains('focused')) ?? document.createElement('div')),
      checkedRows: rows.filter(isChecked).map(label),
      buttons: qiVisible ? all('.quick-input-titlebar .action-label', qi).filter(visible).map((b) => squash(b.getAttribute('aria-label') || b.getAttribute('title') || b.textContent)) : [],
    };
    return {
      activityBar: {
        present: !!mcpTab && visible(mcpTab),
        selected: !!mcpTab && (mcpTab.getAttribute('aria-selected') === 'true' || mcpTab.classList.contains('checked')),
        // The view's badge (TreeView.badge) on the MCP Tasks tab, '' when none.
        badge: (() => {
          const b = mcpTab?.querySelector('.badge-content');
          return b && visible(b) ? squash(b.textContent) : '';
        })(),
        tabs: tabs.map(label),
      },
      sidebar: { visible: sidebarVisible, title, views },
      statusBar: { items, mcpTasks },
      treeRows,
      notifications,
      notificationMessages,
      notificationLinks,
      notificationCenterVisible: centerVisible,
      hover,
      quickInput,
      editor: (() => {
        // The keyboard focus in a text editor of the editor area, and the label of that editor's tab.
        const focusedEditor = document.activeElement?.closest('.part.editor .monaco-editor');
        const group = focusedEditor?.closest('.editor-group-container');
        return { focused: !!focusedEditor, tab: group ? squash(group.querySelector('.tab.active')?.getAttribute('aria-label') || group.querySelector('.tab.active')?.textContent) : '' };
      })(),
    };
  }

  /** Failures of `exp` against the current state ([] = all hold). */
  function failures(exp) {
    const s = readState();
    const f = [];
    const has = (list, sub) => list.some((x) => x.toLowerCase().includes(String(sub).toLowerCase()));
    if (exp.activityBar !== undefined && s.activityBar.present !== exp.activityBar)
      f.push(`activityBar: MCP Tasks tab ${exp.activityBar ? 'missing' : 'present'} (tabs: ${s.activityBar.tabs.join(' | ')})`);
    if (exp.activityBarBadge !== undefined && s.activityBar.badge !== exp.activityBarBadge)
      f.push(`activityBarBadge: '${s.activityBar.badge}', expected '${exp.activityBarBadge}'`);
    if (exp.sidebarTitle !== undefined && !s.sidebar.title.toLowerCase().includes(exp.sidebarTitle.toLowerCase()))
      f.push(`sidebarTitle: '${s.sidebar.title}' does not contain '${exp.sidebarTitle}'`);
    for (const r of exp.treeRows ?? []) if (!has(s.treeRows, r)) f.push(`treeRows: no row contains '${r}' (rows: ${JSON.stringify(s.treeRows)})`);
    if (exp.treeRowCount !== undefined && s.treeRows.length !== exp.treeRowCount)
      f.push(`treeRowCount: ${s.treeRows.length} rows, expected ${exp.treeRowCount}`);
    if (exp.statusBarText !== undefined && !has(s.statusBar.items.flatMap((i) => [i.text, i.ariaLabel]), exp.statusBarText))
      f.push(`statusBarText: no status bar item contains '${exp.statusBarText}'`);
    if (exp.mcpStatusText !== undefined && !(s.statusBar.mcpTasks?.text ?? '').toLowerCase().includes(exp.mcpStatusText.toLowerCase()))
      f.push(`mcpStatusText: MCP Tasks status item is ${JSON.stringify(s.statusBar.mcpTasks ?? null)}, expected text containing '${exp.mcpStatusText}'`);
    if (exp.notification !== undefined && !has(s.notifications, exp.notification))
      f.push(`notification: none contains '${exp.notification}' (${JSON.stringify(s.notifications)})`);
    if (exp.noNotification !== undefined && has(s.notifications, exp.noNotification))
      f.push(`noNotification: a notification still contains '${exp.noNotification}' (${JSON.stringify(s.notifications)})`);
    if (exp.hoverText !== undefined && !(s.hover.visible && s.hover.text.toLowerCase().includes(exp.hoverText.toLowerCase())))
      f.push(`hoverText: ${s.hover.visible ? `the hover reads '${s.hover.text}'` : 'no hover is shown'}, expected it to contain '${exp.hoverText}'`);
    if (exp.quickInputVisible !== undefined && s.quickInput.visible !== exp.quickInputVisible)
      f.push(`quickInputVisible: ${s.quickInput.visible}, expected ${exp.quickInputVisible}`);
    if (exp.quickInputRow !== undefined && !has(s.quickInput.rows, exp.quickInputRow))
      f.push(`quickInputRow: no row contains '${exp.quickInputRow}' (${JSON.stringify(s.quickInput.rows)})`);
    if (exp.quickInputTitle !== undefined && !(s.quickInput.visible && s.quickInput.title.includes(exp.quickInputTitle)))
      f.push(`quickInputTitle: '${s.quickInput.title}' does not contain '${exp.quickInputTitle}'`);
    if (exp.quickInputPlaceholder !== undefined && !(s.quickInput.visible && s.quickInput.placeholder.includes(exp.quickInputPlaceholder)))
      f.push(`quickInputPlaceholder: '${s.quickInput.placeholder}' does not contain '${exp.quickInputPlaceholder}'`);
    if (exp.quickInputFocused !== undefined && s.quickInput.focused !== exp.quickInputFocused)
      f.push(`quickInputFocused: ${s.quickInput.focused}, expected ${exp.quickInputFocused} (focus is on ${document.activeElement?.tagName ?? 'nothing'}.${String(document.activeElement?.className ?? '').split(' ').join('.')})`);
    if (exp.editorFocused !== undefined && !(s.editor.focused && s.editor.tab.toLowerCase().includes(String(exp.editorFocused).toLowerCase())))
      f.push(`editorFocused: ${s.editor.focused ? `the focus is in the editor '${s.editor.tab}'` : `no editor has the focus (it is on ${document.activeElement?.tagName ?? 'nothing'}.${String(document.activeElement?.className ?? '').split(' ').join('.')})`}, expected the editor '${exp.editorFocused}'`);
    if (exp.quickInputValue !== undefined && !(s.quickInput.visible && s.quickInput.value === exp.quickInputValue))
      f.push(`quickInputValue: ${JSON.stringify(s.quickInput.value)}, expected ${JSON.stringify(exp.quickInputValue)}`);
    if (exp.quickInputMessage !== undefined && !(s.quickInput.visible && s.quickInput.message.toLowerCase().includes(exp.quickInputMessage.toLowerCase())))
      f.push(`quickInputMessage: '${s.quickInput.message}' does not contain '${exp.quickInputMessage}'`);
    if (exp.quickInputSeverity !== undefined && s.quickInput.severity !== exp.quickInputSeverity)
      f.push(`quickInputSeverity: '${s.quickInput.severity}', expected '${exp.quickInputSeverity}'`);
    if (exp.quickInputActiveRow !== undefined && !s.quickInput.activeRow.toLowerCase().includes(exp.quickInputActiveRow.toLowerCase()))
      f.push(`quickInputActiveRow: '${s.quickInput.activeRow}' does not contain '${exp.quickInputActiveRow}'`);
    if (exp.quickInputChecked !== undefined) {
      const want = exp.quickInputChecked;
      const missing = want.filter((w) => !has(s.quickInput.checkedRows, w));
      if (missing.length || s.quickInput.checkedRows.length !== want.length)
        f.push(`quickInputChecked: checked ${JSON.stringify(s.quickInput.checkedRows)}, expected exactly ${JSON.stringify(want)}`);
    }
    if (exp.codeLens !== undefined) {
      const lenses = all('.part.editor .monaco-editor .codelens-decoration').filter(visible).map((l) => squash(l.textContent));
      if (!has(lenses, exp.codeLens)) f.push(`codeLens: none contains '${exp.codeLens}' (${JSON.stringify(lenses)})`);
    }
    return f;
  }

  /** The text shown by the text editors of the editor area (their rendered lines: what is on screen). */
  function editorTexts() {
    return all('.part.editor .monaco-editor .view-lines').filter(visible).map((l) => squash(l.textContent));
  }

  window.__mcpTasksE2E = { readState, failures, editorTexts };
}

/** Call once per browser context, before its pages load. */
export async function installPageHelpers(context) {
  await context.addInitScript(pageHelpers);
}

export const readUiState = (page) => page.evaluate(() => window.__mcpTasksE2E.readState());

/** The MCP Tasks tab in the activity bar (the locator the recipe checked). */
export const mcpTab = (page) => page.getByRole('tab', { name: MCP_TAB_NAME }).first();

/**
 * The text every editor shows now: text editors (their rendered lines) and webviews. A webview (a
 * Markdown preview) is a frame of its own, out of reach of the page's scripts: each frame is read
 * through Playwright. A frame still loading reads as ''.
 */
export async function documentTexts(page) {
  const texts = await page.evaluate(() => window.__mcpTasksE2E.editorTexts());
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    // A frame busy rendering (megabytes of Markdown) answers only when done: it shows nothing yet.
    const read = frame.evaluate(() => (document.body?.innerText ?? '').replace(/\s+/g, ' ').trim()).catch(() => '');
    texts.push(await Promise.race([read, new Promise((resolve) => setTimeout(resolve, FRAME_READ_MS, ''))]));
  }
  return texts.filter(Boolean);
}

/** How long one read of a webview's text may take before it counts as showing nothing yet. */
const FRAME_READ_MS = 1000;

/** Waits until some editor shows `text` (see documentTexts); returns the failures left at the timeout. */
async function waitForDocumentText(page, text, timeoutMs) {
  const want = String(text).toLowerCase();
  const deadline = Date.now() + timeoutMs;
  let texts = [];
  for (;;) {
    texts = await documentTexts(page);
    if (texts.some((t) => t.toLowerCase().includes(want))) return [];
    if (Date.now() >= deadline) break;
    await page.waitForTimeout(100);
  }
  const shown = texts.map((t) => (t.length > 200 ? `${t.slice(0, 200)}…` : t));
  return [`documentText: no editor shows '${text}' (${JSON.stringify(shown)}) (after ${timeoutMs} ms)`];
}

/** Waits until every expectation holds; returns the failures left at the timeout. */
export async function waitForExpect(page, exp, timeoutMs) {
  if (!exp || Object.keys(exp).length === 0) return [];
  if (exp.documentText !== undefined) {
    // Read from the frames (Node side) first; then the rest, in the page, in what time is left.
    const started = Date.now();
    const { documentText, ...rest } = exp;
    const left = await waitForDocumentText(page, documentText, timeoutMs);
    if (left.length) return left;
    return waitForExpect(page, rest, Math.max(1, timeoutMs - (Date.now() - started)));
  }
  const holds = async (ms) => {
    try {
      await page.waitForFunction((e) => window.__mcpTasksE2E.failures(e).length === 0, exp, { timeout: ms, polling: 100 });
      return true;
    } catch (err) {
      if (!/Timeout/i.test(String(err?.message))) throw err;
      return false;
    }
  };
  if (exp.treeRows?.length) {
    // The tree is a virtual list: only the rows in its viewport exist in the page. While the rows
    // looked for are not all there, look a page further down (from the top again after the end).
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = deadline - Date.now();
      if (await holds(Math.max(1, Math.min(left, TREE_PAGE_WAIT_MS)))) return [];
      if (left <= TREE_PAGE_WAIT_MS) break;
      await scrollTree(page);
    }
  } else if (exp.notification !== undefined) {
    // The center keeps the row it has focused in place: a notification added above it while it is open is
    // drawn out of view (only the rows in view exist in the page). While it is not there, scroll to the top.
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = deadline - Date.now();
      if (await holds(Math.max(1, Math.min(left, TREE_PAGE_WAIT_MS)))) return [];
      if (left <= TREE_PAGE_WAIT_MS) break;
      await scrollNotificationsToTop(page);
    }
  } else if (await holds(timeoutMs)) return [];
  const left = await page.evaluate((e) => window.__mcpTasksE2E.failures(e), exp);
  return left.length ? left.map((f) => `${f} (after ${timeoutMs} ms)`) : [];
}

/** The side-bar tree's rows in its list (not the sticky copies of the ancestors of the top row: those keep their indices). */
const TREE_LIST_ROWS = '.part.sidebar .monaco-list-row:not(.monaco-tree-sticky-row)';
/** How long the rows in view are watched before the tree is scrolled a page on (then watched again). */
const TREE_PAGE_WAIT_MS = 600;
/** How long a hovered row's inline action may take to show before the row is hovered again. */
const ACTION_SHOW_WAIT_MS = 2000;
/** How long a hovered row's tooltip may take to show (the hover delay, on a busy machine) before the row is hovered again. */
const HOVER_SHOW_WAIT_MS = 3000;
/**
 * How far one scroll step moves, as a part of the tree's height: half, so rows looked for together
 * that fit in half a viewport are all on screen at some step (with 0.8 a group that straddled a
 * page boundary was never seen whole, however long the bridge scrolled).
 */
const TREE_SCROLL_STEP = 0.5;

/** The indices of the first and last side-bar tree rows in the page (the virtual list's window), or undefined. */
function treeWindow(page) {
  return page.evaluate((LIST_ROWS) => {
    const rows = Array.from(document.querySelectorAll(LIST_ROWS)).map((r) => Number(r.getAttribute('data-index')));
    return rows.length ? `${Math.min(...rows)}-${Math.max(...rows)}` : undefined;
  }, TREE_LIST_ROWS);
}

/** Scrolls the side-bar tree a page down with the mouse wheel, or back to the top when it is at the end. */
async function scrollTree(page) {
  const list = page.locator('.part.sidebar .monaco-list').first();
  const box = await list.boundingBox().catch(() => null);
  if (!box || box.height < 10) return;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const before = await treeWindow(page);
  await page.mouse.wheel(0, box.height * TREE_SCROLL_STEP);
  const moved = await page
    .waitForFunction(([b, LIST_ROWS]) => {
      const rows = Array.from(document.querySelectorAll(LIST_ROWS)).map((r) => Number(r.getAttribute('data-index')));
      return rows.length > 0 && `${Math.min(...rows)}-${Math.max(...rows)}` !== b;
    }, [before, TREE_LIST_ROWS], { timeout: 1000, polling: 50 })
    .then(() => true, () => false);
  if (!moved) await page.mouse.wheel(0, -1e6);
  // Off the rows again: a mouse resting on a row shows its tooltip and inline actions.
  await page.mouse.move(1, 1);
}

/** Scrolls the notification center's list to its newest notification with the mouse wheel, then moves the mouse off it. */
async function scrollNotificationsToTop(page) {
  const box = await page.locator('.notifications-center .monaco-list').first().boundingBox().catch(() => null);
  if (!box || box.height < 10) return;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -1e6);
  await page.mouse.move(1, 1);
}

/** Scrolls the side-bar tree back to its first row (a no-op when it shows it). */
async function scrollTreeToTop(page) {
  if ((await treeWindow(page))?.startsWith('0-') !== false) return;
  const box = await page.locator('.part.sidebar .monaco-list').first().boundingBox().catch(() => null);
  if (!box || box.height < 10) return;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -1e6);
  await page.waitForFunction(() => document.querySelector('.part.sidebar .monaco-list-row[data-index="0"]:not(.monaco-tree-sticky-row)') !== null, undefined, { timeout: 1000, polling: 50 }).catch(() => {});
  await page.mouse.move(1, 1);
}

/**
 * Makes the MCP Tasks container the one shown in the side bar by clicking its tab. Clicking the
 * tab of the container already shown closes the side bar, and while the workbench restores the
 * last session the shown container can change under us: so click, check, and click again if
 * the click toggled the side bar away.
 */
export async function openView(page, timeoutMs) {
  const tab = mcpTab(page);
  await tab.waitFor({ state: 'visible', timeout: timeoutMs });
  const deadline = Date.now() + timeoutMs;
  const shown = () => page.evaluate(() => {
    const s = window.__mcpTasksE2E.readState();
    return s.sidebar.visible && /MCP Tasks/i.test(s.sidebar.title);
  });
  for (let attempt = 1; attempt <= 4; attempt++) {
    if (await shown()) return;
    await tab.click({ timeout: Math.max(1000, deadline - Date.now()) });
    try {
      await page.waitForFunction(
        () => {
          const s = window.__mcpTasksE2E.readState();
          return s.sidebar.visible && /MCP Tasks/i.test(s.sidebar.title);
        },
        undefined,
        { timeout: Math.max(500, Math.min(5000, deadline - Date.now())), polling: 100 },
      );
      return;
    } catch (err) {
      if (!/Timeout/i.test(String(err?.message)) || Date.now() >= deadline) break;
    }
  }
  if (!(await shown())) throw new Error('the MCP Tasks container did not open in the side bar after clicking its tab');
}

/** F1, type the title, pick the matching row. */
export async function runCommand(page, title, timeoutMs) {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('.quick-input-box input');
  const rows = widget.locator('.quick-input-list .monaco-list-row');
  const exact = rows.filter({ hasText: title }).first();
  // The palette lists the commands whose `when` clause held when it opened: a context key the
  // extension sets a moment later (e.g. "a request is waiting") needs the palette opened again.
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    if (await widget.isVisible()) await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible', timeout: Math.max(1, deadline - Date.now()) });
    // F1 opens the palette with '>' in the input; fill() is one input event (typing key by key
    // re-filters the whole command list per character: ~2.5 s for a 35-character title).
    await input.fill(`>${title}`);
    const left = deadline - Date.now();
    try {
      await exact.waitFor({ state: 'visible', timeout: Math.max(1, Math.min(left, 3000)) });
      break;
    } catch (err) {
      if (left <= 3000) throw err;
    }
  }
  const firstLabel = await rows.first().getAttribute('aria-label');
  if (firstLabel && firstLabel.toLowerCase().startsWith(title.toLowerCase())) await page.keyboard.press('Enter');
  else await exact.click({ timeout: timeoutMs });
  // Done when the palette closed or shows something else (the command's own quick input).
  await page.waitForFunction(
    (t) => {
      const q = window.__mcpTasksE2E.readState().quickInput;
      return !q.visible || q.value !== `>${t}`;
    },
    title,
    { timeout: timeoutMs, polling: 100 },
  );
}

async function performAction(page, a, timeoutMs) {
  if ('press' in a) for (const k of [].concat(a.press)) await page.keyboard.press(k);
  else if ('type' in a) await page.keyboard.type(String(a.type));
  else if ('runCommand' in a) await runCommand(page, String(a.runCommand), timeoutMs);
  else if ('openView' in a) {
    await openView(page, timeoutMs);
    // From the top of the tree, whatever an earlier check scrolled to (see scrollTree).
    await scrollTreeToTop(page);
  }
  else if ('click' in a) await page.locator(String(a.click)).first().click({ timeout: timeoutMs });
  else if ('clickTreeRow' in a) {
    // A click on a collapsible row toggles it (workbench.tree.expandMode: singleClick).
    await (await treeRow(page, a.clickTreeRow, timeoutMs)).click({ timeout: timeoutMs });
  }
  else if ('hoverTreeRow' in a) {
    // Moves the mouse off, then onto the row (its tooltip shows after the workbench's hover delay).
    // A row redrawn under a resting mouse (the tree's coalesced refresh, late on a busy machine)
    // gets no new mouse event and shows no tooltip: as a user would, move off and onto it again
    // while no tooltip shows. What the tooltip says is the check's to judge, not this action's.
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await page.mouse.move(1, 1);
      await (await treeRow(page, a.hoverTreeRow, Math.max(1, deadline - Date.now()))).hover({ timeout: Math.max(1, deadline - Date.now()) });
      const shown = await page
        .waitForFunction(() => window.__mcpTasksE2E.readState().hover.visible, undefined, {
          timeout: Math.max(1, Math.min(HOVER_SHOW_WAIT_MS, deadline - Date.now())),
          polling: 100,
        })
        .then(() => true, () => false);
      if (shown || Date.now() >= deadline) break;
    }
  }
  else if ('clickTreeRowAction' in a) {
    // Inline actions of a tree row show on hover: hover the row, then click the action.
    // The action shows only while the row is hovered; a row redrawn meanwhile (its state changed)
    // may hide it again: hover again until the action is there to click.
    const action = String(a.clickTreeRowAction.action);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const row = await treeRow(page, a.clickTreeRowAction.row, Math.max(1, deadline - Date.now()));
      const button = row.locator(`.actions .action-label[aria-label*=${JSON.stringify(action)} i]`).first();
      try {
        // A row cut off at the list's edge is hovered at its centre, which the list clips: the mouse
        // lands on whatever is below and the row's actions never show. Bring it into the list first.
        if (!(await insideList(page, row))) await centreInTree(page, row);
        await page.mouse.move(1, 1);
        await row.hover({ timeout: Math.max(1, deadline - Date.now()) });
        await button.waitFor({ state: 'visible', timeout: Math.max(1, Math.min(ACTION_SHOW_WAIT_MS, deadline - Date.now())) });
        // Clicked where it shows, with the mouse (as a user does): a locator click first scrolls the
        // button fully into view, and a row at the edge of the list then moves from under the
        // mouse, its actions hidden again, for as long as the click waits. A button that is not
        // the element at its own centre (at an edge, under a sticky row) has its row brought to
        // the middle of the list first.
        const at = await pointOnTop(button);
        if (at) {
          await page.mouse.click(at.x, at.y);
          break;
        }
        await centreInTree(page, row);
        if (Date.now() >= deadline) throw new Error(`the ${action} action of row '${a.clickTreeRowAction.row}' stayed covered or out of view`);
      } catch (err) {
        if (!/Timeout/i.test(String(err?.message)) || Date.now() >= deadline) throw err;
      }
    }
  } else if ('externalPage' in a) {
    await externalPage(page, a.externalPage, timeoutMs);
  } else if ('waitFor' in a) {
    const left = await waitForExpect(page, a.waitFor, timeoutMs);
    if (left.length) throw new Error(`waitFor: ${left.join('; ')}`);
  } else if ('showNotifications' in a) {
    if (!(await page.locator('.notifications-center').isVisible())) await runCommand(page, 'Notifications: Show Notifications', timeoutMs);
  } else throw new Error(`unknown action ${JSON.stringify(a)}`);
}

/**
 * A page the extension opened in the browser (`vscode.env.openExternal` opens a new tab in
 * code-server): waits for a page of the workbench's context whose URL contains `urlIncludes`,
 * then clicks `click` in it (and waits for the navigation that follows) or, with `close`, closes it
 * unanswered (the user closed the page). Pages already handled are not picked again.
 */
/** Marks a page `externalPage` has handled (kept on the page itself: no state in this module). */
const HANDLED = Symbol('handled by externalPage');
async function externalPage(page, { urlIncludes, click, close }, timeoutMs) {
  const context = page.context();
  const deadline = Date.now() + timeoutMs;
  const matches = (p) => p !== page && !p[HANDLED] && !p.isClosed() && p.url().includes(urlIncludes);
  let target = context.pages().find(matches);
  let rounds = 0;
  while (!target) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`no browser page with a URL containing ${JSON.stringify(urlIncludes)} (pages: ${context.pages().map((p) => withoutCodes(p.url())).join(', ')})`);
    // A new page, or a navigation of one (the URL is known only after it loads); at most 3 s per round.
    const round = Math.min(left, 3000);
    await Promise.race([
      context.waitForEvent('page', { timeout: round }).catch(() => undefined),
      ...context.pages().filter((p) => p !== page && !p[HANDLED]).map((p) => p.waitForEvent('framenavigated', { timeout: round }).catch(() => undefined)),
    ]);
    await Promise.all(context.pages().filter((p) => p !== page).map((p) => p.waitForLoadState('domcontentloaded', { timeout: 2000 }).catch(() => undefined)));
    target = context.pages().find(matches);
    if (!target && ++rounds % 3 === 0) console.log(`[bridge] still no page with ${JSON.stringify(urlIncludes)} after ${rounds * 3} s`);
  }
  target[HANDLED] = true;
  if (close) await target.close();
  else {
    await target.waitForLoadState('domcontentloaded', { timeout: timeoutMs });
    await Promise.all([target.waitForNavigation({ timeout: timeoutMs }).catch(() => undefined), target.locator(String(click)).first().click({ timeout: timeoutMs })]);
    // The page the browser came back to says "you can close this page": the user does, and returns to VS Code.
    await target.close();
  }
  await backToWorkbench(page);
}

/** A URL with the values of its OAuth parameters (codes, tokens, state) left out: error messages end up in logs. */
function withoutCodes(url) {
  return url.replace(/([?&#](code|state|access_token|refresh_token|id_token)=)[^&#]*/g, '$1…');
}

/**
 * The user goes back to the VS Code tab after answering a page in the browser. The tab that
 * `openExternal` opened stays in front otherwise, and the workbench page stays hidden.
 */
async function backToWorkbench(page) {
  await page.bringToFront().catch(() => {});
}

/** The first side-bar tree row whose aria-label contains `text` (case-insensitive), once one exists. */
async function treeRow(page, text, timeoutMs) {
  const want = String(text).toLowerCase();
  const deadline = Date.now() + timeoutMs;
  // Only the rows in the tree's viewport exist in the page: scroll on (see waitForExpect) until it does.
  for (;;) {
    const left = deadline - Date.now();
    const found = await page
      .waitForFunction(
        ([w, LIST_ROWS]) => Array.from(document.querySelectorAll(LIST_ROWS)).some((r) => (r.getAttribute('aria-label') ?? '').toLowerCase().includes(w)),
        [want, TREE_LIST_ROWS],
        { timeout: Math.max(1, Math.min(left, TREE_PAGE_WAIT_MS)), polling: 100 },
      )
      .then(() => true, (err) => {
        if (!/Timeout/i.test(String(err?.message))) throw err;
        return false;
      });
    if (found) break;
    if (left <= TREE_PAGE_WAIT_MS) throw new Error(`no tree row contains '${text}' (after ${timeoutMs} ms)`);
    await scrollTree(page);
  }
  // By its label, not its position: the virtual list re-renders rows in place on every redraw, so
  // an index found now may name another row by the time it is hovered or clicked.
  return page.locator(`${TREE_LIST_ROWS}[aria-label*=${JSON.stringify(String(text))} i]`).first();
}

/** The centre of `locator`'s element if that element (or a child of it) is what shows there, else undefined. */
async function pointOnTop(locator) {
  const box = await locator.boundingBox();
  if (!box) return undefined;
  const point = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const onTop = await locator.evaluate((el, p) => {
    const hit = document.elementFromPoint(p.x, p.y);
    return !!hit && (hit === el || el.contains(hit));
  }, point);
  return onTop ? point : undefined;
}

/** Scrolls the side-bar tree (a wheel over it, as a user does) so that `row` is in its middle, then moves the mouse off it. */
/** Whether all of `row` is inside the Tasks tree's visible list (not cut off at its top or bottom edge). */
async function insideList(page, row) {
  const list = await page.locator('.part.sidebar .monaco-list').first().boundingBox();
  const box = await row.boundingBox();
  return !!list && !!box && box.y >= list.y && box.y + box.height <= list.y + list.height;
}

async function centreInTree(page, row) {
  const list = await page.locator('.part.sidebar .monaco-list').first().boundingBox();
  const box = await row.boundingBox();
  if (!list || !box) return;
  await page.mouse.move(list.x + list.width / 2, list.y + list.height / 2);
  await page.mouse.wheel(0, box.y + box.height / 2 - (list.y + list.height / 2));
  await page.mouse.move(1, 1);
}

/**
 * An error's first line and, for a Playwright timeout, the end of its call log: what the action
 * was waiting for when time ran out ("element is not stable", "… intercepts pointer events").
 */
function firstLineAndCallLog(err) {
  const lines = String(err?.message ?? err).replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const log = lines.indexOf('Call log:');
  if (log < 0) return lines[0];
  const steps = [...new Set(lines.slice(log + 1).map((l) => l.trim()).filter(Boolean))];
  return `${lines[0]} (call log: ${steps.slice(-6).join(' / ')})`;
}

export function screenshotPath(dir, name) {
  const safe = String(name || 'screenshot').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'screenshot';
  return join(dir, `${safe}.png`);
}

/** Serves one /check request against `page`. */
export async function check(page, req, screenshotsDir) {
  const started = Date.now();
  const timeoutMs = Number(req.timeoutMs) || 15_000;
  const failures = [];
  for (const a of req.actions ?? []) {
    try {
      await performAction(page, a, timeoutMs);
    } catch (err) {
      failures.push(`action ${JSON.stringify(a)}: ${firstLineAndCallLog(err)}`);
      break;
    }
  }
  const exp = req.expect ?? {};
  if ((exp.notification !== undefined || exp.noNotification !== undefined) && failures.length === 0) {
    try {
      // Opened when hidden; when shown it is read as it is, never closed and opened again to read
      // an absence: the center hides itself the moment its last notification goes, so "is it
      // shown? then click its hide button" raced with it (the click then waited 15 s for a button
      // that had gone), and a removal landing between a close and the reopening left a row drawn
      // under "No New Notifications". A shown center's list follows its notifications: a withdrawn
      // one leaves it, and the center closes itself when it was the last (then none shows).
      await performAction(page, { showNotifications: true }, timeoutMs);
    } catch (err) {
      failures.push(`opening the notification center: ${String(err?.message ?? err).split('\n')[0]}`);
    }
  }
  if (failures.length === 0) failures.push(...(await waitForExpect(page, exp, timeoutMs)));
  const state = await readUiState(page);
  let screenshot;
  if (req.screenshot || failures.length) {
    // A failed check is always photographed (`<name>-failed.png`), to see what the user saw.
    mkdirSync(screenshotsDir, { recursive: true });
    screenshot = screenshotPath(screenshotsDir, failures.length ? `${req.name || 'check'}-failed` : req.name);
    // The workbench animates (the quick input fades in for ~150 ms after each step): let finite
    // animations end first, or the picture may show a half-transparent widget.
    await page
      .evaluate(() =>
        Promise.race([
          Promise.all(
            document
              .getAnimations()
              .filter((a) => a.playState === 'running' && Number.isFinite(a.effect?.getComputedTiming().endTime))
              .map((a) => a.finished.catch(() => {})),
          ),
          new Promise((r) => setTimeout(r, 1000)),
        ]),
      )
      .catch(() => {});
    await page.screenshot({ path: screenshot }).catch(() => {});
  }
  return { ok: failures.length === 0, failures, state, screenshot, ms: Date.now() - started };
}

/**
 * Starts the bridge on 127.0.0.1:<random>. `setPage(page)` points it at the page to drive.
 * @returns {Promise<{ url: string, setPage(p): void, close(): Promise<void>, requests: number }>}
 */
export async function startBridge({ screenshotsDir, log = () => {} }) {
  let page;
  let queue = Promise.resolve();
  const bridge = { url: '', requests: 0, setPage: (p) => (page = p), close: () => new Promise((r) => server.close(() => r())) };
  const send = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/health') return send(res, 200, { ok: true, page: !!page });
      if (!['/check', '/state'].includes(path)) return send(res, 404, { error: `no route ${req.method} ${path}` });
      let body = {};
      if (path === '/check') {
        try {
          body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
        } catch (err) {
          return send(res, 400, { error: `bad JSON: ${err.message}` });
        }
      }
      queue = queue.then(async () => {
        if (!page || page.isClosed()) return send(res, 503, { error: 'no workbench page to drive' });
        bridge.requests++;
        try {
          if (path === '/state') return send(res, 200, await readUiState(page));
          const out = await check(page, body, screenshotsDir);
          log(`[bridge] ${body.name ?? 'check'}: ${out.ok ? 'ok' : 'FAILED ' + out.failures.join('; ')} (${out.ms} ms)`);
          send(res, 200, out);
        } catch (err) {
          send(res, 500, { error: String(err?.stack ?? err) });
        }
      });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  bridge.url = `http://127.0.0.1:${server.address().port}`;
  return bridge;
}
