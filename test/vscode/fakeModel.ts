// The test-only `vscode.lm` model the offline runner installs (test/vscode/fake-lm, vendor
// "mcp-tasks-fake", answering "Echo: <last user message>"), for the suites that answer sampling.
import * as vscode from 'vscode';
import { uiBridge } from './bridge';

export const FAKE_VENDOR = 'mcp-tasks-fake';

/** The fake model once its provider is registered (fires onDidChangeChatModels), or undefined after `ms`. */
export async function fakeModel(ms: number): Promise<vscode.LanguageModelChat | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const [m] = await vscode.lm.selectChatModels({ vendor: FAKE_VENDOR });
    if (m || Date.now() >= deadline) return m;
    await new Promise<void>((resolve) => {
      const done = () => {
        sub.dispose();
        clearTimeout(timer);
        resolve();
      };
      const sub = vscode.lm.onDidChangeChatModels(done);
      const timer = setTimeout(done, Math.min(2_000, Math.max(0, deadline - Date.now())));
    });
  }
}

/** For a suite's `setup`: without the fake model, fail under the offline runner (which installs it), skip elsewhere. */
export function needFakeModel(ctx: Mocha.Context, model: unknown): void {
  if (model) return;
  // Only the offline runner installs the fake model (test-electron has no bridge either).
  if (uiBridge()) throw new Error(`the fake language model (vendor ${FAKE_VENDOR}) is not available: was test/vscode/fake-lm installed?`);
  ctx.skip();
}
