// The test-only `vscode.lm` model the offline runner installs (test/vscode/fake-lm, vendor
// "mcp-tasks-fake", answering "Echo: <last user message>"), for the suites that answer sampling.
import * as vscode from 'vscode';

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
