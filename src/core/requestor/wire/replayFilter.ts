/**
 * The events of a resumed `tasks/result` stream that the SDK may see (resultStream.ts). On a
 * resumed stream the SDK client takes every JSON-RPC response as the resumed request's (it gives
 * each one the request's new id), but a server's replay may carry more than that request's
 * events: the official everything server replays every event of the session after the given id,
 * other requests' answers included, and the first of them became the task's "result". So a
 * response is let through only when it answers the request the stream was opened for (its id in
 * the window that sent it); any other response keeps its event id (so the stream's place is not
 * lost) and loses its data. Requests and notifications pass as they are.
 */

/** Whether the JSON-RPC message `data` may reach the SDK on the stream of request `requestId`. */
function passes(data: string, requestId: number | string): boolean {
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return true; // not JSON: the SDK reports it as a protocol error, as any other
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return true;
  const m = message as { method?: unknown; id?: unknown; result?: unknown; error?: unknown };
  const isResponse = m.method === undefined && ('result' in m || 'error' in m);
  return !isResponse || m.id === requestId;
}

/** One SSE event block (its lines, no blank line): as it is, or with only its id when its data is another request's answer. */
function filterEvent(block: string, requestId: number | string): string {
  const lines = block.split(/\r\n|\r|\n/);
  const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
  if (data.length === 0 || passes(data.join('\n'), requestId)) return block;
  return lines.filter((l) => l.startsWith('id:')).join('\n');
}

/** The body of a resumed stream of request `requestId`, other requests' answers taken out. */
export function replayFilter(requestId: number | string): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  const blocks = (controller: TransformStreamDefaultController<Uint8Array>, final: boolean) => {
    // Events end with a blank line; what follows the last one waits for more.
    const parts = pending.split(/\r\n\r\n|\n\n|\r\r/);
    pending = final ? '' : parts.pop()!;
    const out = (final ? parts.filter((p) => p.length > 0) : parts).map((b) => filterEvent(b, requestId)).filter((b) => b.length > 0);
    if (out.length) controller.enqueue(encoder.encode(out.map((b) => `${b}\n\n`).join('')));
  };
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      blocks(controller, false);
    },
    flush(controller) {
      pending += decoder.decode();
      blocks(controller, true);
    },
  });
}
