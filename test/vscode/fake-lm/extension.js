// Test-only language model provider (installed as a .vsix by scripts/vscode-offline.mjs; not part
// of the MCP Tasks extension). One model, vendor "mcp-tasks-fake", that answers deterministically:
// "Echo: <text of the last user message>", streamed in two parts. Token count = characters / 4.
// Plain CommonJS so the runner can package it without a build step.
'use strict';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS extension, packaged without a build
const vscode = require('vscode');

const MODEL = {
  id: 'mcp-tasks-fake-echo',
  name: 'Fake Echo Model',
  family: 'fake-echo',
  version: '1.0.0',
  maxInputTokens: 100000,
  maxOutputTokens: 4096,
  tooltip: 'Deterministic test model: echoes the last user message',
  capabilities: { imageInput: false, toolCalling: false },
};

/** Text of a request message's parts (LanguageModelTextPart has `value`). */
function textOf(message) {
  return message.content
    .map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : typeof p?.value === 'string' ? p.value : ''))
    .join('');
}

function activate(context) {
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('mcp-tasks-fake', {
      provideLanguageModelChatInformation: () => [MODEL],
      async provideLanguageModelChatResponse(_model, messages, _options, progress, token) {
        const lastUser = [...messages].reverse().find((m) => m.role === vscode.LanguageModelChatMessageRole.User);
        const answer = `Echo: ${lastUser ? textOf(lastUser) : ''}`;
        const half = Math.ceil(answer.length / 2);
        for (const chunk of [answer.slice(0, half), answer.slice(half)]) {
          if (token.isCancellationRequested) return;
          progress.report(new vscode.LanguageModelTextPart(chunk));
        }
      },
      async provideTokenCount(_model, text) {
        const s = typeof text === 'string' ? text : textOf(text);
        return Math.ceil(s.length / 4);
      },
    }),
  );
}

module.exports = { activate, deactivate() {} };
