/**
 * An AbortController aborted when any of its sources is, linked only while its owner's store lives.
 *
 * `AbortSignal.any` does the same for the life of the sources: it keeps the signal it makes in
 * every source (a weak reference, and a registry entry to clear it). Made twice per question, that
 * was ≈ 20 µs of each `input_required` round's host CPU (bench: rev2026 input_required latency).
 * A question's signal is needed only while the question is open, and every question has a store
 * that ends with it: the links go with that store.
 */
import type { DisposableStore } from './lifecycle.js';

/**
 * A controller aborted with the first of `sources` to abort (at once if one has), which its owner
 * may also abort itself; the links to the sources are cut when `store` is disposed.
 */
export function linkedAbort(store: DisposableStore, ...sources: ReadonlyArray<AbortSignal | undefined>): AbortController {
  const linked = new AbortController();
  const live: AbortSignal[] = [];
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      linked.abort(source.reason);
      return linked;
    }
    live.push(source);
  }
  if (live.length === 0) return linked;
  const unlink = () => {
    for (const source of live) source.removeEventListener('abort', onAbort);
  };
  function onAbort(this: AbortSignal): void {
    unlink();
    linked.abort(this.reason);
  }
  for (const source of live) source.addEventListener('abort', onAbort, { once: true });
  store.add({ dispose: unlink });
  return linked;
}
