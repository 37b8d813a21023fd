/**
 * The closing side of a test's call link (receiver/questionDoor.ts `CallLink`): `closed` aborted by
 * `close()`, and `isClosed` / `onClose` read from it, as the requestor's own link tells its questions.
 */
import type { CallLink } from '../../src/core/receiver/questionDoor.js';

export function closingLink(): Pick<CallLink, 'closed' | 'isClosed' | 'onClose'> & { close(): void } {
  const closed = new AbortController();
  return {
    closed: closed.signal,
    isClosed: () => closed.signal.aborted,
    onClose: (withdraw) => {
      const signal = closed.signal;
      if (signal.aborted) {
        withdraw(signal.reason as Error);
        return { dispose: () => undefined };
      }
      const listener = () => withdraw(signal.reason as Error);
      signal.addEventListener('abort', listener, { once: true });
      return { dispose: () => signal.removeEventListener('abort', listener) };
    },
    close: () => closed.abort(new Error('the call ended')),
  };
}
