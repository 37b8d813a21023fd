/** The bench's round order (bench/stats.ts): every side once per round, each round starting one side further on. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alternate, rotate } from '../../../bench/stats.js';

/** A side that records when it ran and answers with its name and round. */
function sides(names: readonly string[], order: string[]): Array<() => Promise<string>> {
  const rounds = new Map<string, number>();
  return names.map((name) => async () => {
    const round = rounds.get(name) ?? 0;
    rounds.set(name, round + 1);
    order.push(name);
    return `${name}${round}`;
  });
}

describe('bench round order', () => {
  it('rotate: A,B,C then B,C,A then C,A,B; each side\'s results in its own list, in round order', async () => {
    const order: string[] = [];
    const told: number[] = [];
    const out = await rotate(3, sides(['A', 'B', 'C'], order), (r) => told.push(r));
    assert.deepEqual(order, ['A', 'B', 'C', 'B', 'C', 'A', 'C', 'A', 'B']);
    assert.deepEqual(out, [
      ['A0', 'A1', 'A2'],
      ['B0', 'B1', 'B2'],
      ['C0', 'C1', 'C2'],
    ]);
    assert.deepEqual(told, [0, 1, 2]);
  });

  it('alternate: A,B then B,A, as two sides of rotate', async () => {
    const order: string[] = [];
    const [a, b] = sides(['A', 'B'], order);
    const out = await alternate(4, a!, b!);
    assert.deepEqual(order, ['A', 'B', 'B', 'A', 'A', 'B', 'B', 'A']);
    assert.deepEqual(out, { a: ['A0', 'A1', 'A2', 'A3'], b: ['B0', 'B1', 'B2', 'B3'] });
  });
});
