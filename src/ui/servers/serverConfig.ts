import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  assignUniqueIds,
  formatProblem,
  parseMcpConfig,
  type ConfigProblem,
  type InputDefinition,
  type ServerDefinition,
  type VariableContext,
} from '../../core/config/config.js';
import { Emitter } from '../../core/base/event.js';
import { Disposable } from '../../core/base/lifecycle.js';
import { serversFromUserSettings } from '../../core/config/trust.js';
import { LastGoodConfig } from '../../core/config/lastGood.js';
import { readConfigFile, type FileRefusal } from '../../core/config/boundedRead.js';
import { parseServerSources, readsUserSettings, readsWorkspaceFile, type ServerSources } from '../../core/config/sources.js';
import type { InputValueStore } from '../prompts/inputStore.js';
import { showError, showWarning } from '../adapters/notify.js';
import { escapeLinkedText } from '../../core/base/escape.js';
import { plainLabel, quoteText } from '../../core/base/quote.js';
import { errorMessage } from '../../core/base/errors.js';

/** The relative path of the per-folder config file, as VS Code uses it. */
export const MCP_JSON = '.vscode/mcp.json';
/** User setting (read from the user's settings only): which sources this extension connects to. */
export const SERVER_SOURCES_SETTING = 'serverSources';

/** The user's own `mcpTasks.serverSources` (a workspace cannot choose it). */
export function serverSourcesSetting(): ServerSources {
  return parseServerSources(vscode.workspace.getConfiguration('mcpTasks').inspect<unknown>(SERVER_SOURCES_SETTING)?.globalValue);
}

/**
 * Server definitions from every workspace folder's `.vscode/mcp.json` and from the user
 * setting `mcpTasks.servers` (with `mcpTasks.inputs`). Watches both; fires on change.
 *
 * The settings are read from the user's own settings only (`inspect().globalValue`): a value in
 * a workspace's or folder's `settings.json` is ignored (and reported), so a repository cannot
 * define a "user" server. Workspace servers come only from `.vscode/mcp.json`, labelled as such.
 */
export class ServerConfigSource extends Disposable implements vscode.Disposable {
  private readonly _onDidChange = this._register(new Emitter<void>());
  /** Fires after the definitions were re-read. */
  readonly onDidChange = this._onDidChange.event;
  private _definitions: ServerDefinition[] = [];
  private _problems: ConfigProblem[] = [];
  private _reported = new Set<string>();
  private _reloading?: Promise<void>;
  private _again = false;
  /** Each file's last configuration that parsed: kept in force while the file does not parse. */
  private readonly _lastGood = new LastGoodConfig();
  /** Files whose servers are the last good ones (the file does not parse now). */
  private _keptFiles = new Set<string>();

  constructor(private readonly _inputs: InputValueStore) {
    super();
    const watcher = this._register(vscode.workspace.createFileSystemWatcher(`**/${MCP_JSON}`));
    this._register(watcher.onDidChange(() => this.reload()));
    this._register(watcher.onDidCreate(() => this.reload()));
    this._register(watcher.onDidDelete(() => this.reload()));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.reload()));
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('mcpTasks.servers') || e.affectsConfiguration('mcpTasks.inputs') || e.affectsConfiguration(`mcpTasks.${SERVER_SOURCES_SETTING}`)) void this.reload();
      }),
    );
  }

  get definitions(): readonly ServerDefinition[] {
    return this._definitions;
  }

  get problems(): readonly ConfigProblem[] {
    return this._problems;
  }

  /** Files that do not parse now and whose last good servers stay in force. */
  get keptLastGood(): ReadonlySet<string> {
    return this._keptFiles;
  }

  /** Re-reads every source. Concurrent calls coalesce into one more pass. */
  reload(): Promise<void> {
    if (this._reloading) {
      this._again = true;
      return this._reloading;
    }
    this._reloading = (async () => {
      do {
        this._again = false;
        await this._read();
      } while (this._again);
    })().finally(() => (this._reloading = undefined));
    return this._reloading;
  }

  /** The variables for one server (`${workspaceFolder}`, `${env:…}`, `${input:…}`). */
  variablesFor(def: ServerDefinition): VariableContext {
    const folder = def.source.kind === 'workspace' ? def.source.folder : vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return {
      workspaceFolder: folder,
      userHome: os.homedir(),
      env: process.env,
      input: (input) => this._askInput(def, input),
    };
  }

  private async _read(): Promise<void> {
    const defs: ServerDefinition[] = [];
    const problems: ConfigProblem[] = [];
    const sources = serverSourcesSetting();
    const seen = new Set<string>();
    const kept = new Set<string>();
    for (const folder of readsWorkspaceFile(sources) ? (vscode.workspace.workspaceFolders ?? []) : []) {
      if (folder.uri.scheme !== 'file') continue;
      const uri = vscode.Uri.joinPath(folder.uri, MCP_JSON);
      // Bounded (core/config/boundedRead.ts): a workspace's mcp.json that is /dev/zero, a pipe or 2 GB is refused, not read.
      const read = await readConfigFile(uri.fsPath);
      if (read.kind === 'missing') continue;
      if (read.kind !== 'text') {
        problems.push({ file: uri.fsPath, key: '', message: read.kind === 'refused' ? refusalWords(read.refusal) : vscode.l10n.t('cannot be read: {0}', read.message) });
        continue;
      }
      const parsed = parseMcpConfig({ kind: 'workspace', file: uri.fsPath, folder: folder.uri.fsPath }, read.text);
      // A file that does not parse (a half-typed edit) keeps its last good servers running.
      const effective = this._lastGood.apply(uri.fsPath, parsed);
      seen.add(uri.fsPath);
      if (effective.keptLastGood) kept.add(uri.fsPath);
      defs.push(...effective.servers);
      problems.push(...parsed.problems);
    }
    this._lastGood.retain(seen);
    this._keptFiles = kept;
    if (readsUserSettings(sources)) {
      const config = vscode.workspace.getConfiguration('mcpTasks');
      const fromSettings = serversFromUserSettings(config.inspect<unknown>('servers'), config.inspect<unknown>('inputs'));
      defs.push(...fromSettings.servers);
      problems.push(...fromSettings.problems);
    }
    // assignUniqueIds is deterministic: the kept servers get the ids they had.
    this._definitions = assignUniqueIds(defs);
    this._problems = problems;
    this._reportNewProblems(problems);
    this._onDidChange.fire();
  }

  private _reportNewProblems(problems: readonly ConfigProblem[]): void {
    // A file that does not parse is reported once until it parses again (each keystroke moves the error).
    // A misplaced key is reported once too: its line moves as the lines above it are edited.
    const keyOf = (p: ConfigProblem) => (p.unparsable ? `${p.file}\0unparsable` : p.misplaced ? `${p.file}\0misplaced\0${p.key}` : formatProblem(p));
    const current = new Set(problems.map(keyOf));
    for (const p of problems) {
      if (this._reported.has(keyOf(p))) continue;
      const open = vscode.l10n.t('Open File');
      const kept = this._keptFiles.has(p.file);
      void showWarning(kept ? vscode.l10n.t('MCP Tasks: {0}. The servers it defined keep running with the last valid configuration until it parses again.', formatProblem(p)) : vscode.l10n.t('MCP Tasks: {0}.', formatProblem(p)), open).then((choice) => {
        if (choice !== open || !p.file.endsWith('.json')) return;
        // Where the error is now (the file may have changed since the notification).
        const latest = p.unparsable ? (this._problems.find((q) => q.file === p.file && q.unparsable) ?? p) : p;
        void openAt(p.file, latest.position);
      });
    }
    this._reported = current;
  }

  private async _askInput(def: ServerDefinition, input: InputDefinition): Promise<string> {
    const stored = await this._inputs.get(def, input);
    if (stored !== undefined) return stored;
    let value: string | undefined;
    // Names, ids and options come from the workspace file: quoted, no `$(icon)` drawn, no line breaks.
    const title = plainLabel(vscode.l10n.t('MCP server {0} needs a value for {1}', quoteText(def.name), quoteText(input.id)));
    if (input.type === 'promptString') {
      value = await vscode.window.showInputBox({
        title,
        prompt: input.description === undefined ? undefined : escapeLinkedText(input.description),
        value: input.default,
        password: input.password,
        ignoreFocusOut: true,
      });
    } else {
      const items = input.options.map((o) => (typeof o === 'string' ? { label: o, value: o } : { label: o.label ?? o.value, value: o.value }));
      const pick = await vscode.window.showQuickPick(
        items.map((i) => ({ label: plainLabel(i.label), description: i.value === input.default ? vscode.l10n.t('default') : undefined, value: i.value })),
        { title, placeHolder: input.description === undefined ? undefined : plainLabel(input.description), ignoreFocusOut: true },
      );
      value = pick?.value;
    }
    if (value === undefined) throw new Error(`no value was given for \${input:${input.id}}`);
    await this._inputs.set(def, input, value);
    return value;
  }
}

/**
 * Opens a file with the cursor at a 1-based line and column (the start when unknown). It runs from
 * notification buttons, so a file that cannot be opened (deleted since) is said, never thrown.
 */
export async function openAt(file: string, position?: { readonly line: number; readonly column: number }): Promise<void> {
  const at = new vscode.Position(Math.max(0, (position?.line ?? 1) - 1), Math.max(0, (position?.column ?? 1) - 1));
  const uri = vscode.Uri.file(file);
  let editor: vscode.TextEditor;
  try {
    editor = await vscode.window.showTextDocument(uri, { selection: new vscode.Range(at, at) });
  } catch (e) {
    const exists = await vscode.workspace.fs.stat(uri).then(
      () => true,
      () => false,
    );
    void showError(exists ? vscode.l10n.t('MCP Tasks: cannot open {0}: {1}', file, errorMessage(e)) : vscode.l10n.t('MCP Tasks: {0} no longer exists.', file));
    return;
  }
  editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

/** Why a configuration file was not read, in words (the file is named by the problem it goes into). */
export function refusalWords(r: FileRefusal): string {
  if (r.kind === 'too-large') return vscode.l10n.t('not read: it is over the {0} MB a configuration file may have', Math.round(r.limit / (1024 * 1024)));
  switch (r.what) {
    case 'a character device':
      return vscode.l10n.t('not read: it is a character device, not a regular file');
    case 'a block device':
      return vscode.l10n.t('not read: it is a block device, not a regular file');
    case 'a named pipe (FIFO)':
      return vscode.l10n.t('not read: it is a named pipe (FIFO), not a regular file');
    case 'a socket':
      return vscode.l10n.t('not read: it is a socket, not a regular file');
    case 'a folder':
      return vscode.l10n.t('not read: it is a folder, not a regular file');
    case 'not a regular file':
      return vscode.l10n.t('not read: it is not a regular file');
  }
}
