import * as vscode from 'vscode';
import { type CreateMessageResult } from '@modelcontextprotocol/client';
import { ProtocolError } from '../../core/base/errors.js';
import type { ResponderContext } from '../../core/receiver/wire/responders.js';
import type { ConsentStore } from '../../core/config/consent.js';
import { chooseModel, contentText, samplingPreviewMarkdown, samplingSummary, USER_REJECTED, type SamplingParams } from '../../core/sampling/sampling.js';
import { plainPromptId, PROMPT_HIDDEN, type PromptHidden, type PromptQueue } from './prompts.js';
import { pickStep } from './quickInput.js';
import { plainLabel, quoteText } from '../../core/base/quote.js';
import type { ReplyEditors } from './replyEditor.js';
import type { RequestDocuments } from '../documents/requestDocuments.js';
import { requestViewId } from '../../core/view/openRequests.js';
import { generatingWith, WAITING_FOR_USER_CONSENT, WAITING_FOR_USER_REPLY } from '../../core/forms/statusMessages.js';

type ConsentChoice = 'once' | 'always' | 'manual' | 'deny';

/**
 * Answers `sampling/createMessage` through `vscode.lm`, after the user's consent (Allow once /
 * Always for this server / Write the reply myself / Deny). Consent "always" is remembered for
 * the server's *definition* (source file + name + content hash, in the {@link ConsentStore}),
 * never for a name: another workspace's server of the same name, or an edited definition, asks.
 * It is also bound to the model it was given for: when another model would answer (the pinned
 * model changed, or the server's preferences pick another), the user is asked again.
 */
export class LanguageModelSampler {
  constructor(
    private readonly _consents: ConsentStore,
    private readonly _prompts: PromptQueue,
    private readonly _pinnedModel: (serverName: string) => string | undefined,
    private readonly _requests: RequestDocuments,
    private readonly _replies: ReplyEditors,
  ) {}

  /** Names of the servers whose definitions have "always allow" (for display and tests). */
  get alwaysAllowed(): string[] {
    return this._consents.list('sampling').map((r) => r.serverName);
  }

  /** Forgets "always allow" for every definition of the given server names. */
  async revoke(servers: readonly string[]): Promise<void> {
    await this._consents.revoke(this._consents.list('sampling').filter((r) => servers.includes(r.serverName)));
  }

  async sample(params: SamplingParams, ctx: ResponderContext): Promise<CreateMessageResult> {
    const models = await vscode.lm.selectChatModels();
    const model = chooseModel(models, params.modelPreferences, this._pinnedModel(ctx.serverName));
    const allowed = !!model && this._consents.has('sampling', ctx.definition, { model: model.id });
    let choice: ConsentChoice = allowed ? 'always' : await this._askConsent(params, ctx, model);
    if (choice === 'always' && !allowed && model) await this._consents.grant('sampling', ctx.definition, { model: model.id });
    if (choice === 'deny') {
      throw new ProtocolError(USER_REJECTED, `The user denied the sampling request from "${ctx.serverName}"`);
    }
    if (choice !== 'manual' && !model) choice = 'manual';
    if (choice === 'manual') return this._manualReply(params, ctx, !model);
    ctx.setWaitingForUser(false, generatingWith(model!.name));
    return this._send(model!, params, ctx);
  }

  private _askConsent(params: SamplingParams, ctx: ResponderContext, model: vscode.LanguageModelChat | undefined): Promise<ConsentChoice> {
    ctx.setWaitingForUser(true, WAITING_FOR_USER_CONSENT);
    return this._prompts.request<ConsentChoice>(
      {
        // The view's id of this request (a received task, or an open plain request): Respond and the tree row name it.
        id: requestViewId(ctx) ?? plainPromptId('sampling', ctx.serverId),
        serverName: ctx.serverName,
        title: vscode.l10n.t('wants to use a language model (sampling).'),
        run: (token) => this._consentPick(params, ctx, model, token),
        cancelAnswer: () => 'deny',
      },
      ctx.signal,
    );
  }

  private async _consentPick(
    params: SamplingParams,
    ctx: ResponderContext,
    model: vscode.LanguageModelChat | undefined,
    token: vscode.CancellationToken,
  ): Promise<ConsentChoice | PromptHidden> {
    type Item = vscode.QuickPickItem & { choice?: ConsentChoice; preview?: true };
    const summary = samplingSummary(params);
    const items: Item[] = [
      ...(model
        ? [
            { label: `$(check) ${vscode.l10n.t('Allow once')}`, description: vscode.l10n.t('using {0}', model.name), detail: summary, choice: 'once' as const },
            {
              label: `$(check-all) ${vscode.l10n.t('Always allow for {0} with this model', plainLabel(quoteText(ctx.serverName)))}`,
              description: vscode.l10n.t('using {0}', model.name),
              choice: 'always' as const,
            },
          ]
        : []),
      {
        label: `$(edit) ${vscode.l10n.t('Write the reply myself')}`,
        description: model ? undefined : vscode.l10n.t('no language model is available'),
        detail: model ? undefined : summary,
        choice: 'manual',
      },
      { label: `$(close) ${vscode.l10n.t('Deny')}`, choice: 'deny' },
      { label: `$(open-preview) ${vscode.l10n.t('Show the full request…')}`, preview: true },
    ];
    // "Show the full request": a read-only virtual document, rendered, while the request lives.
    let request: { uri: vscode.Uri; dispose(): void } | undefined;
    ctx.store.add({ dispose: () => request?.dispose() });
    for (;;) {
      const r = await pickStep<Item>(items, {
        title: vscode.l10n.t('MCP server "{0}" wants to use a language model', ctx.serverName),
        placeholder: params.systemPrompt ? vscode.l10n.t('With a system prompt. maxTokens {0}. Choose what to do.', params.maxTokens) : vscode.l10n.t('maxTokens {0}. Choose what to do.', params.maxTokens),
        token,
        emptyAccept: 'cancel',
      });
      // Hidden (Escape, or another quick input took its place) is not "deny": the request waits again.
      if (r.kind === 'hidden') return PROMPT_HIDDEN;
      const picked = r.kind === 'value' ? r.value[0] : undefined;
      if (!picked) return 'deny';
      if (picked.preview) {
        request ??= this._requests.add(vscode.l10n.t('Sampling request from {0}', ctx.serverName), samplingPreviewMarkdown(ctx.serverName, params));
        await this._requests.show(request.uri);
        continue;
      }
      return picked.choice!;
    }
  }

  private async _manualReply(params: SamplingParams, ctx: ResponderContext, noModel: boolean): Promise<CreateMessageResult> {
    ctx.setWaitingForUser(true, WAITING_FOR_USER_REPLY);
    const id = requestViewId(ctx) ?? plainPromptId('sampling-reply', ctx.serverId);
    const last = contentText(params.messages[params.messages.length - 1]?.content).replace(/\s+/g, ' ').trim().slice(0, 40);
    const text = await this._prompts.request<string | undefined>(
      {
        id,
        serverName: ctx.serverName,
        title: vscode.l10n.t('is waiting for your reply to its sampling request.'),
        // The user just chose to write it: it opens now, in an editor (the quick input stays free).
        immediate: true,
        exclusive: false,
        run: (token) =>
          this._replies.open(id, { serverName: ctx.serverName, title: last || vscode.l10n.t('sampling'), requestMarkdown: samplingPreviewMarkdown(ctx.serverName, params) }, token),
        reveal: () => this._replies.reveal(id),
        cancelAnswer: () => undefined,
      },
      ctx.signal,
    );
    if (text === undefined) {
      throw new ProtocolError(
        USER_REJECTED,
        noModel
          ? 'No language model is available and no reply was written. Install an extension that provides chat models (for example GitHub Copilot Chat), or pin a model in the setting mcpTasks.sampling.modelByServer.'
          : `The user cancelled the reply to "${ctx.serverName}"`,
      );
    }
    ctx.setWaitingForUser(false);
    return { model: 'user', role: 'assistant', content: { type: 'text', text }, stopReason: 'endTurn' };
  }

  private async _send(model: vscode.LanguageModelChat, params: SamplingParams, ctx: ResponderContext): Promise<CreateMessageResult> {
    const cts = new vscode.CancellationTokenSource();
    ctx.store.add({ dispose: () => cts.dispose() });
    const onAbort = () => cts.cancel();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    ctx.store.add({ dispose: () => ctx.signal.removeEventListener('abort', onAbort) });
    const messages: vscode.LanguageModelChatMessage[] = [];
    // vscode.lm has no system role: the system prompt goes first as a user message.
    if (params.systemPrompt) messages.push(vscode.LanguageModelChatMessage.User(params.systemPrompt));
    for (const m of params.messages) {
      const parts = (Array.isArray(m.content) ? m.content : [m.content]).map((c) => toPart(c));
      messages.push(m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(parts.filter(isTextPart)) : vscode.LanguageModelChatMessage.User(parts));
    }
    const response = await model.sendRequest(
      messages,
      { justification: `MCP server "${ctx.serverName}" asked for a completion (sampling).`, modelOptions: { maxTokens: params.maxTokens, temperature: params.temperature, stop: params.stopSequences } },
      cts.token,
    );
    let text = '';
    let stopReason: CreateMessageResult['stopReason'] = 'endTurn';
    for await (const chunk of response.text) {
      text += chunk;
      if (params.stopSequences?.some((s) => text.includes(s))) {
        const at = Math.min(...params.stopSequences.map((s) => (text.includes(s) ? text.indexOf(s) : Infinity)));
        text = text.slice(0, at);
        stopReason = 'stopSequence';
        cts.cancel();
        break;
      }
      if ((await model.countTokens(text)) >= params.maxTokens) {
        stopReason = 'maxTokens';
        cts.cancel();
        break;
      }
    }
    return { model: model.id, role: 'assistant', content: { type: 'text', text }, stopReason };
  }
}

function toPart(c: unknown): vscode.LanguageModelTextPart | vscode.LanguageModelDataPart {
  const b = c as { type?: string; text?: string; data?: string; mimeType?: string };
  if (b.type === 'image' && b.data && b.mimeType) return vscode.LanguageModelDataPart.image(Buffer.from(b.data, 'base64'), b.mimeType);
  return new vscode.LanguageModelTextPart(b.type === 'text' ? (b.text ?? '') : contentText(c));
}

function isTextPart(p: vscode.LanguageModelTextPart | vscode.LanguageModelDataPart): p is vscode.LanguageModelTextPart {
  return p instanceof vscode.LanguageModelTextPart;
}
