/**
 * The prompt queue never lets one prompt take another's place: two plain requests of one server
 * that arrive in the same millisecond are both answerable (ui/prompts.ts).
 */
import '../../helpers/vscodeStub.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { plainPromptId, PromptQueue, type PromptRequest } from '../../../src/ui/prompts.js';

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
});
