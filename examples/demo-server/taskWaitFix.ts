/**
 * The SDK's `tasks/result` handler (Protocol, 1.32) waits for a task that is not terminal in a
 * loop: every poll interval it calls `_waitForTaskUpdate(taskId, signal)`, which adds an 'abort'
 * listener to the *request's* signal and never removes it when the wait ends by timeout. A
 * `tasks/result` that blocks for N poll intervals leaves N listeners on one signal; past 10 Node
 * prints `MaxListenersExceededWarning: Possible EventTarget memory leak detected. 11 abort
 * listeners added to [AbortSignal]` (the demo server printed it while confirm_deploy
 * waited for input). The extension's own receiver answers tasks/result itself (src/core/connection/hostClient.ts)
 * and removes its listener.
 *
 * The fix: each wait gets its own child signal (which the SDK's listener lands on and which is
 * dropped after the wait); the request's signal has one listener at a time, removed after each wait.
 */
type Waiter = (taskId: string, signal: AbortSignal, sessionId?: string) => Promise<void>;

/** Makes `protocol`'s `tasks/result` waits leave no listener behind. Throws if the SDK no longer has the method (review this fix then). */
export function boundTaskUpdateWaits(protocol: object): void {
  const p = protocol as { _waitForTaskUpdate?: Waiter };
  const original = p._waitForTaskUpdate;
  if (typeof original !== 'function') throw new Error('@modelcontextprotocol/sdk changed: Protocol._waitForTaskUpdate is gone; review examples/demo-server/taskWaitFix.ts');
  p._waitForTaskUpdate = async function (this: unknown, taskId, signal, sessionId) {
    const child = new AbortController();
    const onAbort = () => child.abort(signal.reason);
    if (signal.aborted) child.abort(signal.reason);
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await original.call(this, taskId, child.signal, sessionId);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };
}
