import * as vscode from 'vscode';
import { ErrorCode, McpError, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnection, ResponderContext } from '../core/connection/connection.js';
import { parseForm, validateAnswer } from '../core/forms/elicitationForm.js';
import { waitForEvent } from '../core/base/events.js';
import { runFormFlow } from './formFlow.js';
import type { PromptQueue } from './prompts.js';
import { showInput, showPick } from './quickInput.js';

type ElicitParams = ElicitRequest['params'];

/**
 * Answers `elicitation/create`: form mode as a quick-pick form, URL mode as a consent prompt
 * that opens the URL externally. Prompts go through the {@link PromptQueue}: task-augmented
 * requests wait in the background until the user opens them.
 */
export class QuickPickElicitor {
  constructor(
    private readonly _prompts: PromptQueue,
    private readonly _connectionFor: (serverId: string) => McpConnection | undefined,
  ) {}

  async elicit(params: ElicitParams, ctx: ResponderContext): Promise<ElicitResult> {
    const background = ctx.taskId !== undefined;
    ctx.setWaitingForUser(true, background ? 'Waiting for you: open it with Respond' : 'Waiting for your answer');
    const id = ctx.taskId ? `received:${ctx.serverId}/${ctx.taskId}` : `elicitation:${ctx.serverId}:${Date.now()}:${Math.random()}`;
    const result = await this._prompts.request<ElicitResult>(
      {
        id,
        serverName: ctx.serverName,
        title: params.mode === 'url' ? `asks you to open a URL: ${params.message}` : `asks: ${params.message}`,
        background,
        run: (token) => (params.mode === 'url' ? this._url(params, ctx, token) : this._form(params, ctx, token)),
      },
      ctx.signal,
    );
    ctx.setWaitingForUser(false, `Answered: ${result.action}`);
    if (params.mode === 'url' && result.action === 'accept' && background) {
      // The interaction happens in the browser; the task finishes when the server says so.
      ctx.setWaitingForUser(false, 'Waiting for the server to confirm the URL interaction finished');
      const connection = this._connectionFor(ctx.serverId);
      if (connection) await waitForEvent(connection.onDidCompleteElicitation, (eid) => eid === params.elicitationId, ctx.signal);
    }
    return result;
  }

  private async _form(params: Extract<ElicitParams, { requestedSchema: unknown }>, ctx: ResponderContext, token: vscode.CancellationToken): Promise<ElicitResult> {
    const form = parseForm(params.requestedSchema);
    const title = `"${ctx.serverName}" asks: ${params.message}`;
    if (form.unsupported) {
      return this._jsonFallback(params, form, title, token);
    }
    const r = await runFormFlow(form, { title, token, canDecline: true });
    if (r.action !== 'accept') return { action: r.action };
    // Validated by the flow; checked once more so nothing invalid is ever sent.
    const problems = validateAnswer(form, r.content);
    if (problems.length) throw new McpError(ErrorCode.InternalError, `The answer did not validate: ${problems[0]!.message}`);
    return { action: 'accept', content: r.content as ElicitResult['content'] };
  }

  /** For schemas the form cannot express: edit the answer as JSON, validated before it is sent. */
  private async _jsonFallback(
    params: Extract<ElicitParams, { requestedSchema: unknown }>,
    form: ReturnType<typeof parseForm>,
    title: string,
    token: vscode.CancellationToken,
  ): Promise<ElicitResult> {
    const answer = await showInput(
      {
        title,
        prompt: `Answer as JSON (the form cannot show this schema: ${form.unsupported}). Schema: ${JSON.stringify(params.requestedSchema).slice(0, 300)}`,
        value: '{}',
        // Checked as typed: only an answer that parses and matches the schema can be sent.
        validate: (v) => {
          let content: unknown;
          try {
            content = JSON.parse(v);
          } catch (e) {
            return `Not valid JSON: ${(e as Error).message}`;
          }
          const problems = validateAnswer(form, content);
          return problems.length ? `Does not match the schema: ${problems.map((p) => p.message).join('; ')}` : undefined;
        },
      },
      token,
    );
    if (answer === undefined) return { action: 'cancel' };
    return { action: 'accept', content: JSON.parse(answer) as ElicitResult['content'] };
  }

  private async _url(params: Extract<ElicitParams, { mode: 'url' }>, ctx: ResponderContext, token: vscode.CancellationToken): Promise<ElicitResult> {
    let uri: vscode.Uri;
    try {
      uri = vscode.Uri.parse(params.url, true);
    } catch {
      throw new McpError(ErrorCode.InvalidParams, `Invalid URL in elicitation: ${params.url}`);
    }
    if (uri.scheme !== 'https' && uri.scheme !== 'http') {
      throw new McpError(ErrorCode.InvalidParams, `Refusing to open a ${uri.scheme}: URL from an elicitation (only http and https)`);
    }
    type Item = vscode.QuickPickItem & { action: 'accept' | 'decline' };
    const picked = await showPick<Item>(
      [
        { label: `$(link-external) Open ${uri.authority}`, detail: params.url, action: 'accept' },
        { label: '$(close) Decline', action: 'decline' },
      ],
      { title: `"${ctx.serverName}" asks you to open a URL: ${params.message}`, placeholder: `Full URL: ${params.url}`, token },
    );
    if (!picked) return { action: 'cancel' };
    if (picked.action === 'decline') return { action: 'decline' };
    await vscode.env.openExternal(uri);
    return { action: 'accept' };
  }
}
