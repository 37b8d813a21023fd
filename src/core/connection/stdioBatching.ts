/**
 * Writes to a stdio server's stdin, batched per event-loop turn: the first message the host
 * sends in a turn goes out at once, as before; any further messages of the same turn (e.g. the
 * `tasks/get` of all tasks whose poll timers fire together) are held and go to the pipe together,
 * in one system call, when the turn ends (`setImmediate`). The messages, their order and their
 * framing are unchanged; a lone request or response (the usual request/answer traffic) is not
 * delayed at all.
 *
 * Why: with many tasks tracked on one server, one `write()` per message was a large share of the
 * requestor's own CPU (bench/, row 2: 200 tasks polled at the same pollInterval).
 */
import type { Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** Held bytes beyond which the batch is written at once (below the stream's 16 KiB high-water mark, so `send` never waits for 'drain' because of batching). */
const FLUSH_AT_BYTES = 8 * 1024;

/** The transport's child stdin (the SDK keeps the process in a private field); undefined if absent or not corkable. */
function stdinOf(transport: Transport): Writable | undefined {
  const stdin = (transport as unknown as { _process?: { stdin?: Writable | null } })._process?.stdin;
  return stdin && !stdin.destroyed && typeof stdin.cork === 'function' && typeof stdin.uncork === 'function' ? stdin : undefined;
}

/**
 * Makes `transport.send` (the SDK's `StdioClientTransport`) batch its writes per event-loop turn
 * (see the file comment). If the transport does not expose its process the way the SDK's did when
 * this was written, every message goes out on its own, as without this.
 */
export function batchWritesPerTurn(transport: Transport): void {
  const send = transport.send.bind(transport);
  /** The stdin written to in the current turn, and whether it is held (corked) until the turn ends. */
  let turn: { readonly stdin: Writable; held: boolean } | undefined;
  const endTurn = () => {
    const t = turn;
    turn = undefined;
    if (t?.held) t.stdin.uncork();
  };
  transport.send = (message, options) => {
    const stdin = stdinOf(transport);
    if (stdin) {
      if (!turn || turn.stdin !== stdin) {
        if (turn?.held) turn.stdin.uncork();
        const first = !turn;
        turn = { stdin, held: false };
        if (first) setImmediate(endTurn);
      } else if (!turn.held) {
        stdin.cork();
        turn.held = true;
      } else if (stdin.writableLength >= FLUSH_AT_BYTES) {
        stdin.uncork();
        stdin.cork();
      }
    }
    return send(message, options);
  };
}
