import * as vscode from 'vscode';
import { type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/client';
import { ErrorCode, ProtocolError } from '../../core/base/errors.js';
import type { ServerConnection } from '../../core/connection/connection.js';
import type { ResponderContext } from '../../core/receiver/wire/responders.js';
import type { ParsedForm } from '../../core/forms/elicitationForm.js';
import { loadForms } from './formsLoader.js';
import { waitForEvent } from '../../core/base/event.js';
import { newFormSession, runFormFlow, type FormSession } from './formFlow.js';
import { plainPromptId, PROMPT_HIDDEN, type PromptHidden, type PromptQueue } from './prompts.js';
import { inputStep, pickStep } from './quickInput.js';
import { requestViewId } from '../../core/view/openRequests.js';
import { answered, WAITING_FOR_URL_COMPLETION, WAITING_FOR_USER_INPUT } from '../../core/forms/statusMessages.js';

type ElicitParams = ElicitRequest['params'];

/**
 * Answers `elicitation/create`: form mode as a quick-pick form, URL mode as a consent prompt
 * that opens the URL externally. Prompts go through the {@link PromptQueue}, which decides when
 * they open. A form hidden without an answer (Escape, the command palette took its place) is not
 * an answer: the request waits again and Respond shows the form with what was typed.
 */
export class QuickPickElicitor {
  constructor(
    private readonly _prompts: PromptQueue,
    private readonly _connectionFor: (serverId: string) => ServerConnection | undefined,
  ) {}

  async elicit(params: ElicitParams, ctx: ResponderContext): Promise<ElicitResult> {
    const background = ctx.taskId !== undefined;
    // Reported to the server (tasks/get): the state in the protocol's terms, never a local UI hint.
    ctx.setWaitingForUser(true, WAITING_FOR_USER_INPUT);
    // The view's id of this request (a received task, or an open plain request): Respond and the tree row name it.
    const id = requestViewId(ctx) ?? plainPromptId('elicitation', ctx.serverId);
    // Kept across the form being hidden and reopened.
    const draft: { session?: FormSession; json?: string } = {};
    const result = await this._prompts.request<ElicitResult>(
      {
        id,
        serverName: ctx.serverName,
        title: params.mode === 'url' ? vscode.l10n.t('asks you to open a URL: {0}', params.message) : vscode.l10n.t('asks: {0}', params.message),
        run: (token) => (params.mode === 'url' ? this._url(params, ctx, token) : this._form(params, ctx, token, draft)),
        cancelAnswer: () => ({ action: 'cancel' }),
      },
      ctx.signal,
    );
    ctx.setWaitingForUser(false, answered(result.action));
    if (params.mode === 'url' && result.action === 'accept' && background) {
      // The interaction happens in the browser; the task finishes when the server says so.
      ctx.setWaitingForUser(false, WAITING_FOR_URL_COMPLETION);
      const connection = this._connectionFor(ctx.serverId);
      if (connection) await waitForEvent(connection.onDidCompleteElicitation, (eid) => eid === params.elicitationId, ctx.signal);
    }
    return result;
  }

  private async _form(
    params: Extract<ElicitParams, { requestedSchema: unknown }>,
    ctx: ResponderContext,
    token: vscode.CancellationToken,
    draft: { session?: FormSession; json?: string },
  ): Promise<ElicitResult | PromptHidden> {
    const { parseForm, validateAnswer } = await loadForms();
    const form = parseForm(params.requestedSchema);
    const title = vscode.l10n.t('"{0}" asks: {1}', ctx.serverName, params.message);
    if (form.unsupported) {
      return this._jsonFallback(params, form, title, token, draft);
    }
    draft.session ??= newFormSession(form);
    const r = await runFormFlow(form, { title, token, canDecline: true, session: draft.session });
    if (r.action === 'hidden') return PROMPT_HIDDEN;
    if (r.action !== 'accept') return { action: r.action };
    // Validated by the flow; checked once more so nothing invalid is ever sent.
    const problems = validateAnswer(form, r.content);
    if (problems.length) throw new ProtocolError(ErrorCode.InternalError, `The answer did not validate: ${problems[0]!.message}`);
    return { action: 'accept', content: r.content as ElicitResult['content'] };
  }

  /** For schemas the form cannot express: edit the answer as JSON, validated before it is sent. */
  private async _jsonFallback(
    params: Extract<ElicitParams, { requestedSchema: unknown }>,
    form: ParsedForm,
    title: string,
    token: vscode.CancellationToken,
    draft: { json?: string },
  ): Promise<ElicitResult | PromptHidden> {
    const { validateAnswer } = await loadForms();
    const r = await inputStep({
        title,
        token,
        prompt: vscode.l10n.t('Answer as JSON (the form cannot show this schema: {0}). Schema: {1}', form.unsupported ?? '', JSON.stringify(params.requestedSchema).slice(0, 300)),
        value: draft.json ?? '{}',
        // Checked as typed: only an answer that parses and matches the schema can be sent.
        validate: (v) => {
          let content: unknown;
          try {
            content = JSON.parse(v);
          } catch (e) {
            return vscode.l10n.t('Not valid JSON: {0}', (e as Error).message);
          }
          const problems = validateAnswer(form, content);
          return problems.length ? vscode.l10n.t('Does not match the schema: {0}', problems.map((p) => p.message).join('; ')) : undefined;
        },
      });
    if (r.kind === 'hidden') {
      draft.json = r.draft;
      return PROMPT_HIDDEN;
    }
    if (r.kind !== 'value') return { action: 'cancel' };
    return { action: 'accept', content: JSON.parse(r.value) as ElicitResult['content'] };
  }

  private async _url(params: Extract<ElicitParams, { mode: 'url' }>, ctx: ResponderContext, token: vscode.CancellationToken): Promise<ElicitResult | PromptHidden> {
    let uri: vscode.Uri;
    try {
      uri = vscode.Uri.parse(params.url, true);
    } catch {
      throw new ProtocolError(ErrorCode.InvalidParams, `Invalid URL in elicitation: ${params.url}`);
    }
    if (uri.scheme !== 'https' && uri.scheme !== 'http') {
      throw new ProtocolError(ErrorCode.InvalidParams, `Refusing to open a ${uri.scheme}: URL from an elicitation (only http and https)`);
    }
    type Item = vscode.QuickPickItem & { action: 'accept' | 'decline' };
    const r = await pickStep<Item>(
      [
        { label: `$(link-external) ${vscode.l10n.t('Open {0}', uri.authority)}`, detail: params.url, action: 'accept' },
        { label: `$(close) ${vscode.l10n.t('Decline')}`, action: 'decline' },
      ],
      { title: vscode.l10n.t('"{0}" asks you to open a URL: {1}', ctx.serverName, params.message), placeholder: vscode.l10n.t('Full URL: {0}', params.url), token, emptyAccept: 'cancel' },
    );
    if (r.kind === 'hidden') return PROMPT_HIDDEN;
    const picked = r.kind === 'value' ? r.value[0] : undefined;
    if (!picked) return { action: 'cancel' };
    if (picked.action === 'decline') return { action: 'decline' };
    await vscode.env.openExternal(uri);
    return { action: 'accept' };
  }
}
