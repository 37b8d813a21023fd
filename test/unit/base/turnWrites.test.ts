/** Writes a turn of the event loop at a time (base/turnWrites.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TurnWrites } from '../../../src/core/base/turnWrites.js';

const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('TurnWrites', () => {
  it('writes the first text of a turn at once and the rest together when the turn ends, in order', async () => {
    const written: string[] = [];
    const batches: number[] = [];
    const writes = new TurnWrites(
      (text) => written.push(text),
      (n) => batches.push(n),
    );
    assert.equal(writes.write('a'), 1, 'the first write returns what the write returned');
    assert.equal(writes.write('b'), undefined);
    assert.equal(writes.write('c'), undefined);
    assert.deepEqual(written, ['a']);
    await endOfTurn();
    assert.deepEqual(written, ['a', 'bc']);
    assert.deepEqual(batches, [2], 'the batch handler is told what writing the batch returned');
  });

  it('writes nothing at once while a batch waits, and a new turn starts at once again', async () => {
    const written: string[] = [];
    const writes = new TurnWrites((text) => void written.push(text));
    writes.write('1');
    writes.write('2');
    await endOfTurn();
    writes.write('3');
    writes.write('4');
    assert.deepEqual(written, ['1', '2', '3']);
    await endOfTurn();
    assert.deepEqual(written, ['1', '2', '3', '4']);
  });

  it('flush writes what waits now, once', async () => {
    const written: string[] = [];
    const writes = new TurnWrites((text) => void written.push(text));
    writes.write('x');
    writes.write('y');
    writes.write('z');
    writes.flush();
    assert.deepEqual(written, ['x', 'yz']);
    await endOfTurn();
    assert.deepEqual(written, ['x', 'yz'], 'nothing is written twice');
  });
});
