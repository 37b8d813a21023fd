/**
 * The language-model tools (`contributes.languageModelTools`): the chat agent starts MCP tool
 * calls as tasks, comes back for their status and result, and cancels them. The logic is in
 * src/core/agent; here: registration, the confirmations VS Code shows before starting and
 * cancelling (server text through the untrusted-markdown helpers), and replies as JSON text.
 */
import * as vscode from 'vscode';
import { escapeMarkdown, markdownCodeSpan, markdownFence } from '../../core/base/escape.js';
import { errorMessage } from '../../core/base/errors.js';
import { AgentTasks, describeServer, type AgentReply, type AgentTasksOptions } from '../../core/agent/agentTasks.js';
import { AgentInputError, AgentToolNames, parseAgentInput, type AgentInput, type AgentToolName } from '../../core/agent/inputs.js';
import { statusOf } from '../../core/agent/replies.js';
import type { SentTaskSnapshot } from '../../core/requestor/trackerTypes.js';
import { untrustedMarkdown } from '../documents/markdown.js';

/** Registers the five tools; dispose to unregister them. */
export function registerAgentTools(options: AgentTasksOptions): vscode.Disposable[] {
  const agent = new AgentTasks(options);
  return [
    tool(AgentToolNames.listTools, {
      message: (i) => (i.server ? vscode.l10n.t('Listing the tools of MCP server "{0}"', i.server) : vscode.l10n.t('Listing the tools of the running MCP servers')),
      run: (i, signal) => agent.listTools(i, signal),
    }),
    tool(AgentToolNames.startTask, {
      message: (i) => vscode.l10n.t('Starting "{0}" on "{1}"', i.tool, i.server),
      confirm: (i) => startConfirmation(agent.describeStart(i)),
      run: (i, signal) => agent.startTask(i, signal),
    }),
    tool(AgentToolNames.getTaskStatus, {
      message: (i) => vscode.l10n.t('Checking MCP task {0}', i.taskId),
      run: async (i) => agent.getTaskStatus(i),
    }),
    tool(AgentToolNames.getTaskResult, {
      message: (i) => vscode.l10n.t('Getting the result of MCP task {0}', i.taskId),
      run: (i, signal) => agent.getTaskResult(i, signal),
    }),
    tool(AgentToolNames.cancelTask, {
      message: (i) => vscode.l10n.t('Cancelling MCP task {0}', i.taskId),
      confirm: (i) => {
        const s = agent.describeTask(i.taskId);
        const server = s && options.connections().find((c) => c.id === s.serverId);
        return cancelConfirmation(i.taskId, s, server ? describeServer(server) : undefined);
      },
      run: (i) => agent.cancelTask(i),
    }),
  ];
}

/** The confirmation before the agent starts a tool call: server (and where it runs), tool, arguments. */
export function startConfirmation(d: ReturnType<AgentTasks['describeStart']>): { title: string; message: vscode.MarkdownString } {
  const md = untrustedMarkdown();
  md.appendMarkdown(
    vscode.l10n.t(
      'The chat agent wants to call the tool {0} on the MCP server **{1}** ({2}). Where the tool supports it, the call runs as a task in the background; it appears in the MCP Tasks view, where you can cancel it.',
      markdownCodeSpan(d.tool),
      escapeMarkdown(d.server),
      markdownCodeSpan(d.serverDetail),
    ),
  );
  md.appendMarkdown(`\n\n${vscode.l10n.t('Arguments:')}\n\n${markdownFence(d.args, 'json').join('\n')}\n`);
  return { title: vscode.l10n.t('Run MCP tool "{0}" on "{1}"?', d.tool, d.server), message: md };
}

/** The confirmation before the agent cancels one of its tasks. */
export function cancelConfirmation(taskId: string, s: SentTaskSnapshot | undefined, serverDetail: string | undefined): { title: string; message: vscode.MarkdownString } {
  const md = untrustedMarkdown();
  if (!s) {
    md.appendMarkdown(vscode.l10n.t('The chat agent wants to cancel task {0}, which it did not start; nothing will be cancelled.', markdownCodeSpan(taskId)));
    return { title: vscode.l10n.t('Cancel MCP task?'), message: md };
  }
  md.appendMarkdown(
    vscode.l10n.t(
      'The chat agent wants to cancel task {0}: the tool {1} on the MCP server **{2}** ({3}, arguments {4}).',
      markdownCodeSpan(s.key),
      markdownCodeSpan(s.toolName),
      escapeMarkdown(s.serverName),
      escapeMarkdown(statusOf(s)),
      markdownCodeSpan(s.argsSummary),
    ),
  );
  if (serverDetail) md.appendMarkdown(`\n\n${vscode.l10n.t('Server: {0}', markdownCodeSpan(serverDetail))}`);
  return { title: vscode.l10n.t('Cancel "{0}" on "{1}"?', s.toolName, s.serverName), message: md };
}

interface ToolSpec<N extends AgentToolName> {
  /** Shown while it runs. */
  message(input: AgentInput<N>): string;
  /** A confirmation VS Code shows before it runs (starting and cancelling). */
  confirm?(input: AgentInput<N>): { title: string; message: vscode.MarkdownString };
  run(input: AgentInput<N>, signal: AbortSignal): Promise<AgentReply>;
}

function tool<N extends AgentToolName>(name: N, spec: ToolSpec<N>): vscode.Disposable {
  return vscode.lm.registerTool<unknown>(name, {
    prepareInvocation(options) {
      let input: AgentInput<N>;
      try {
        input = parseAgentInput(name, options.input);
      } catch {
        return { invocationMessage: vscode.l10n.t('Checking the input of {0}', name) }; // invoke answers with the problem
      }
      return { invocationMessage: spec.message(input), ...(spec.confirm ? { confirmationMessages: spec.confirm(input) } : {}) };
    },
    async invoke(options, token) {
      const controller = new AbortController();
      const sub = token.onCancellationRequested(() => controller.abort(new vscode.CancellationError()));
      try {
        const reply = await spec.run(parseAgentInput(name, options.input), controller.signal);
        return textResult(reply);
      } catch (e) {
        if (token.isCancellationRequested) throw new vscode.CancellationError();
        // Wrong input and server errors go back to the model as text it can act on.
        return textResult({ error: e instanceof AgentInputError ? e.message : vscode.l10n.t('{0} failed: {1}', name, errorMessage(e)) });
      } finally {
        sub.dispose();
      }
    },
  });
}

function textResult(reply: AgentReply): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(JSON.stringify(reply, null, 2))]);
}
