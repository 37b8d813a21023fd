import * as vscode from 'vscode';
import type { Tool } from '@modelcontextprotocol/client';
import type { ServerConnection } from '../../core/connection/connection.js';
import type { FormContent, ParsedForm } from '../../core/forms/elicitationForm.js';
import { loadForms, type Forms } from '../prompts/formsLoader.js';
import type { ServerRegistry } from '../../core/connection/registry.js';
import { taskModeFor, type TaskTracker } from '../../core/requestor/tracker.js';
import { newFormSession, runFormFlow, type FormSession } from '../prompts/formFlow.js';
import { showPick } from '../prompts/quickInput.js';
import { showError, showInfo, showWarning } from '../adapters/notify.js';
import { PROMPT_HIDDEN, PromptCancelledError, type PromptQueue } from '../prompts/prompts.js';
import { errorMessage } from '../../core/base/errors.js';
import { plainLabel } from '../../core/base/quote.js';

/**
 * "MCP Tasks: Run Tool…": pick a server and a tool, fill its arguments through the same form
 * engine as elicitation (a JSON editor for schemas the form cannot express), then call it —
 * as a task where the server and the tool allow it.
 *
 * A form closed unfinished (Escape, or F1 took the quick input) keeps what was typed, like a
 * request's form: it waits in the prompt queue, where "Respond…" resumes it (and Cancel on its
 * notification discards it); running the same tool again resumes it too.
 */
export class ToolRunner {
  /** Forms closed unfinished, by `<serverId>/<tool>`: their answers so far, and the way to withdraw the waiting one. */
  private readonly _drafts = new Map<string, { readonly session: FormSession; readonly withdraw: AbortController }>();

  constructor(
    private readonly _registry: ServerRegistry,
    private readonly _tracker: TaskTracker,
    private readonly _optionalAsTask: () => boolean,
    private readonly _onStarted: (key: string) => void,
    private readonly _prompts?: PromptQueue,
  ) {}

  /** Ids of the drafts waiting to be resumed (tests read them). */
  get draftIds(): string[] {
    return [...this._drafts.keys()].map(draftPromptId);
  }

  async run(serverId?: string): Promise<void> {
    const cts = new vscode.CancellationTokenSource();
    try {
      const connection = serverId ? this._registry.get(serverId) : await this._pickServer(cts.token);
      if (!connection) return;
      if (connection.state.kind !== 'running') {
        void showWarning(vscode.l10n.t('MCP Tasks: server "{0}" is not running.', connection.name));
        return;
      }
      const tool = await this._pickTool(connection, listAllTools(connection), cts.token);
      if (!tool) return;
      const args = await this._askArguments(connection, tool, cts.token);
      if (!args) return;
      const key = await this._tracker.callTool(connection, tool, args);
      this._onStarted(key);
    } finally {
      cts.dispose();
    }
  }

  /**
   * "Run Again…": Run Tool… for `toolName` on `serverId` with `args` filled in, at its review step
   * (one Enter runs it), or at the first field still to fill (a required one the arguments lack:
   * after a reload only the stored summary is known, without its redacted or cut-off values).
   * Values the tool's schema no longer accepts are left out for the user to fill.
   */
  async runAgain(serverId: string, toolName: string, args: Readonly<Record<string, unknown>>): Promise<void> {
    const cts = new vscode.CancellationTokenSource();
    try {
      const connection = this._registry.get(serverId);
      if (!connection || connection.state.kind !== 'running') {
        void showWarning(vscode.l10n.t('MCP Tasks: server "{0}" is not running.', connection?.name ?? serverId));
        return;
      }
      const tool = (await listAllTools(connection)).find((t) => t.name === toolName);
      if (!tool) {
        void showWarning(vscode.l10n.t('MCP Tasks: "{0}" no longer offers the tool "{1}".', connection.name, toolName));
        return;
      }
      const content = await this._askArguments(connection, tool, cts.token, args);
      if (!content) return;
      this._onStarted(await this._tracker.callTool(connection, tool, content));
    } finally {
      cts.dispose();
    }
  }

  private async _pickServer(token: vscode.CancellationToken): Promise<ServerConnection | undefined> {
    const running = this._registry.connections.filter((c) => c.state.kind === 'running');
    if (running.length === 0) {
      void showInfo(vscode.l10n.t('MCP Tasks: no server is running. Configure one in .vscode/mcp.json or start one from the Tasks view.'));
      return undefined;
    }
    if (running.length === 1) return running[0];
    const pick = await showPick(
      running.map((c) => ({ label: plainLabel(c.name), description: c.state.kind === 'running' ? (c.state.serverInfo?.name ?? '') : '', connection: c })),
      { title: vscode.l10n.t('Run Tool: pick a server'), token },
    );
    return pick?.connection;
  }

  /**
   * The tool picker opens at once, busy ("Listing tools…"), and fills in when `tools/list`
   * answers: the user sees that something happens, and Escape stops waiting.
   */
  private async _pickTool(connection: ServerConnection, listing: Promise<Tool[]>, token: vscode.CancellationToken): Promise<Tool | undefined> {
    type Item = vscode.QuickPickItem & { tool: Tool };
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = vscode.l10n.t('Run Tool on "{0}"', connection.name);
    qp.placeholder = vscode.l10n.t('Listing tools…');
    qp.busy = true;
    qp.enabled = false;
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    qp.ignoreFocusOut = true;
    const serverTasks = !!connection.serverCapabilities?.tasks?.requests?.tools?.call;
    const subs: vscode.Disposable[] = [];
    try {
      return await new Promise<Tool | undefined>((resolve, reject) => {
        subs.push(
          qp.onDidHide(() => resolve(undefined)),
          token.onCancellationRequested(() => resolve(undefined)),
          qp.onDidAccept(() => {
            const picked = qp.activeItems[0];
            if (picked) resolve(picked.tool);
          }),
        );
        qp.show();
        listing.then(
          (tools) => {
            if (tools.length === 0) {
              void showInfo(vscode.l10n.t('MCP Tasks: "{0}" offers no tools.', connection.name));
              resolve(undefined);
              return;
            }
            qp.items = tools.map((t) => {
              const mode = taskModeFor(serverTasks, t, this._optionalAsTask());
              // Only a tool that can run as a task says so: "forbidden" (the SDK's default) and absent are every ordinary tool.
              const support = t.execution?.taskSupport;
              const supportText = support === 'optional' || support === 'required' ? ` · ${vscode.l10n.t('task support: {0}', support)}` : '';
              return {
                // The server's words, drawn as written: no icon, no line break (quote.ts).
                label: plainLabel(t.title ?? t.annotations?.title ?? t.name),
                description: `${plainLabel(t.name)}${supportText}${mode === 'task' ? ` · ${vscode.l10n.t('runs as a task')}` : ''}`,
                detail: t.description === undefined ? undefined : plainLabel(t.description),
                tool: t,
              };
            });
            qp.placeholder = vscode.l10n.t('Pick a tool');
            qp.busy = false;
            qp.enabled = true;
          },
          (e: unknown) => reject(e),
        );
      });
    } finally {
      for (const s of subs) s.dispose();
      qp.dispose();
    }
  }

  /** `again`: the arguments of an earlier call to fill in ("Run Again…"), instead of a waiting draft. */
  private async _askArguments(connection: ServerConnection, tool: Tool, token: vscode.CancellationToken, again?: Readonly<Record<string, unknown>>): Promise<FormContent | undefined> {
    const { parseForm, validateAnswer, checkValue } = await loadForms();
    const form = parseForm(tool.inputSchema, { source: 'tool' });
    const title = vscode.l10n.t('Run "{0}" on "{1}"', tool.name, connection.name);
    if (!form.unsupported) {
      // Resumed here: the waiting draft (if any) goes, its answers continue in this form.
      const key = draftKey(connection, tool);
      const draft = this._drafts.get(key);
      this._drafts.delete(key);
      draft?.withdraw.abort();
      const session = again ? againSession(form, again, checkValue) : (draft?.session ?? newFormSession(form));
      // A tool without arguments gets the same review step (Run / Cancel) before it runs.
      const r = await runFormFlow(form, { title, token, acceptLabel: vscode.l10n.t('Run'), canDecline: false, purpose: 'tool', session });
      if (r.action === 'hidden' && this._prompts) this._keepDraft(connection, tool, form, session, title);
      return r.action === 'accept' ? r.content : undefined;
    }
    // JSON editor fallback: an untitled JSON document, confirmed with a quick pick.
    const doc = await vscode.workspace.openTextDocument({
      language: 'json',
      content: `${JSON.stringify(again ?? {}, null, 2)}\n`,
    });
    await vscode.window.showTextDocument(doc, { preview: false });
    for (;;) {
      const choice = await showPick(
        [
          { label: `$(play) ${vscode.l10n.t('Run with the arguments in the editor')}`, run: true },
          { label: `$(circle-slash) ${vscode.l10n.t('Cancel')}`, run: false },
        ],
        { title, placeholder: vscode.l10n.t('The form cannot show this schema ({0}); edit the arguments as JSON', form.unsupported), token },
      );
      if (!choice?.run) return undefined;
      let args: unknown;
      try {
        args = JSON.parse(doc.getText());
      } catch (e) {
        void showWarning(vscode.l10n.t('Not valid JSON: {0}', (e as Error).message));
        continue;
      }
      const problems = validateAnswer(form, args);
      if (problems.length === 0) return args as FormContent;
      void showWarning(vscode.l10n.t('The arguments do not match the tool\'s schema: {0}', problems.map((p) => p.message).join('; ')));
    }
  }

  /**
   * Keeps a form closed unfinished: it waits for Respond with what was typed; answered, the tool
   * runs; cancelled (its notification's Cancel) or withdrawn (resumed through Run Tool…, its server
   * no longer configured), it is forgotten.
   */
  private _keepDraft(connection: ServerConnection, tool: Tool, form: ParsedForm, session: FormSession, title: string): void {
    const prompts = this._prompts!;
    const key = draftKey(connection, tool);
    const withdraw = new AbortController();
    this._drafts.set(key, { session, withdraw });
    const gone = this._registry.onDidChangeConnections?.(() => {
      if (!this._registry.get(connection.id)) withdraw.abort();
    });
    const forget = () => {
      gone?.dispose();
      if (this._drafts.get(key)?.withdraw === withdraw) this._drafts.delete(key);
    };
    prompts
      .request<FormContent | undefined>(
        {
          id: draftPromptId(key),
          serverName: connection.name,
          title: vscode.l10n.t('Run "{0}" (your arguments so far)', tool.name),
          waitingMessage: vscode.l10n.t('MCP Tasks: Run "{0}" on "{1}" was closed unfinished; what you typed is kept', tool.name, connection.name),
          parked: true,
          run: async (token) => {
            const r = await runFormFlow(form, { title, token, acceptLabel: vscode.l10n.t('Run'), canDecline: false, purpose: 'tool', session });
            if (r.action === 'hidden') return PROMPT_HIDDEN;
            return r.action === 'accept' ? r.content : undefined;
          },
          cancelAnswer: () => undefined,
        },
        withdraw.signal,
      )
      .then(
        async (args) => {
          forget();
          if (!args) return;
          const now = this._registry.get(connection.id);
          if (now?.state.kind !== 'running') {
            void showWarning(vscode.l10n.t('MCP Tasks: server "{0}" is not running.', connection.name));
            return;
          }
          this._onStarted(await this._tracker.callTool(now, tool, args));
        },
        (e: unknown) => {
          forget();
          if (!(e instanceof PromptCancelledError)) throw e;
        },
      )
      .catch((e: unknown) => void showError(vscode.l10n.t('MCP Tasks: {0} failed: {1}', vscode.l10n.t('Run tool'), errorMessage(e))));
  }
}

/**
 * A form filled with an earlier call's arguments: those the schema still accepts, opened at the
 * first required field without a value, else at the review (Run).
 */
function againSession(form: ParsedForm, args: Readonly<Record<string, unknown>>, checkValue: Forms['checkValue']): FormSession {
  const known: FormContent = {};
  for (const f of form.fields) {
    const v = args[f.key];
    if (v !== undefined && checkValue(f, v) === undefined) known[f.key] = v as FormContent[string];
  }
  const session = newFormSession(form, known);
  const missing = form.fields.findIndex((f) => f.required && session.content[f.key] === undefined);
  session.index = missing >= 0 ? missing : form.fields.length;
  return session;
}

/** The key of a Run Tool… draft: one per server and tool. */
function draftKey(connection: ServerConnection, tool: Tool): string {
  return `${connection.id}/${tool.name}`;
}

/** The prompt id of a Run Tool… draft. */
function draftPromptId(key: string): string {
  return `runTool:${key}`;
}

/** Every page of `tools/list`. */
export async function listAllTools(connection: ServerConnection): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await connection.client.listTools(cursor ? { cursor } : undefined);
    tools.push(...r.tools);
    if (!r.nextCursor) break;
    cursor = r.nextCursor;
  }
  return tools;
}
