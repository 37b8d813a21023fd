/**
 * The prompt queue never lets one prompt take another's place: two plain requests of one server
 * that arrive in the same millisecond are both answerable (ui/prompts/prompts.ts).
 */
import '../../helpers/vscodeStub.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { plainPromptId, PROMPT_HIDDEN, PromptQueue, type PromptRequest } from '../../../src/ui/prompts/prompts.js';

/** Resolves once `check` holds, re-checked after each turn of the event loop (no timers). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setImmediate(r));
  assert.ok(check(), 'the condition held within 1,000 turns');
}

function prompt(id: string, answer: string): PromptRequest<string> & { runs: number } {
  const p = {
    id,
    serverName: 'demo',
    title: 'asks',
    runs: 0,
    run: async () => {
      p.runs++;
      return answer;
    },
  };
  return p;
}

describe('prompt ids', () => {
  test('plain requests get ids of their own, even within one millisecond', () => {
    const now = Date.now;
    Date.now = () => 1_000;
    try {
      assert.notEqual(plainPromptId('sampling', 's'), plainPromptId('sampling', 's'));
    } finally {
      Date.now = now;
    }
  });

  test('a second prompt under an id already waiting does not replace the first: each is answered', async () => {
    const queue = new PromptQueue(() => 'notify');
    const first = prompt('sampling:s:1', 'first');
    const second = prompt('sampling:s:1', 'second');
    const a = queue.request(first, new AbortController().signal);
    const b = queue.request(second, new AbortController().signal);
    assert.equal(queue.waitingIds.length, 2, 'both wait for Respond');
    for (const id of queue.waitingIds) assert.equal(queue.respond(id), true);
    assert.deepEqual(await Promise.all([a, b]), ['first', 'second']);
    queue.dispose();
  });

  test("a task's next prompt, asked as soon as its answered one returns, keeps the task's id (Respond on its row finds it)", async () => {
    // The sampling flow: the consent pick answers "write the reply myself" and the reply editor is
    // asked for at once, under the same task id, while the answered pick is still being cleaned up.
    const queue = new PromptQueue(() => 'immediately');
    const id = 'received:demo/task-1';
    let replyRuns = 0;
    let closed!: () => void;
    const replyClosed = new Promise<void>((r) => (closed = r));
    const consent = queue.request(prompt(id, 'manual'), new AbortController().signal);
    const reply = consent.then(() =>
      queue.request<string>(
        {
          id,
          serverName: 'demo',
          title: 'waits for your reply',
          immediate: true,
          exclusive: false,
          // Closed unanswered the first time (it waits for Respond again), answered the second.
          run: async () => {
            if (++replyRuns > 1) return 'Forty-two.';
            closed();
            return PROMPT_HIDDEN;
          },
        },
        new AbortController().signal,
      ),
    );
    await replyClosed;
    await until(() => queue.waitingIds.length === 1);
    assert.deepEqual(queue.waitingIds, [id], 'the closed reply waits under the task id');
    assert.equal(queue.respond(id), true);
    assert.equal(await reply, 'Forty-two.');
    queue.dispose();
  });
});
