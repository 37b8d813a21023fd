/**
 * copyJson: the copy structuredClone makes of JSON data, and structuredClone's own for anything else.
 * sharedJson: plain JSON data frozen whole once and shared; anything else copyJson's.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyJson, sharedJson } from '../../../src/core/base/jsonCopy.js';
import { MAX_JSON_DEPTH } from '../../../src/core/base/jsonDepth.js';

function nested(levels: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { v };
  return v;
}

describe('copyJson', () => {
  test('JSON data: equal to structuredClone, sharing nothing with the original', () => {
    const value = { content: [{ type: 'text', text: 'echo' }, { type: 'image', data: 'AA==', mimeType: 'image/png' }], structuredContent: { n: 1, ok: true, none: null, list: [1, [2, [3]]], '1': 'integer key' }, isError: false };
    const copy = copyJson(value);
    assert.deepStrictEqual(copy, structuredClone(value));
    assert.deepStrictEqual(Object.keys(copy.structuredContent), Object.keys(structuredClone(value).structuredContent), 'keys in the same order');
    copy.content[0]!.text = 'changed';
    copy.structuredContent.list.push(4);
    assert.equal(value.content[0]!.text, 'echo');
    assert.deepEqual(value.structuredContent.list, [1, [2, [3]]]);
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    assert.deepStrictEqual(copyJson(bare), structuredClone(bare), 'an object without a prototype becomes a plain one');
    const holes = [1, , 3]; // a hole stays a hole, as structuredClone keeps it
    assert.equal(1 in copyJson(holes), 1 in structuredClone(holes));
  });

  test('anything else is structuredClone\'s: a Date, a Map, a class instance copied as it copies them; a function refused alike', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    const value = { at: new Date(0), map: new Map([['a', 1]]), point: new Point(1), error: new RangeError('r') };
    const copy = copyJson(value);
    assert.deepStrictEqual(copy, structuredClone(value));
    assert.ok(copy.at instanceof Date && copy.at !== value.at);
    assert.ok(copy.map instanceof Map && copy.map.get('a') === 1);
    assert.throws(() => copyJson({ f: () => 1 }), { name: 'DataCloneError' });
  });

  test('deeper than MAX_JSON_DEPTH, the rest is structuredClone\'s (copied, or refused with its error)', () => {
    const deep = nested(MAX_JSON_DEPTH + 20);
    assert.deepStrictEqual(copyJson(deep), structuredClone(deep));
    let cloneError: unknown;
    const tooDeep = nested(200_000);
    try {
      structuredClone(tooDeep);
    } catch (e) {
      cloneError = e;
    }
    assert.ok(cloneError instanceof Error, 'structuredClone refuses it');
    assert.throws(() => copyJson(tooDeep), { name: (cloneError as Error).name });
  });
});

describe('sharedJson', () => {
  const isFrozenWhole = (v: unknown): boolean =>
    typeof v !== 'object' || v === null || (Object.isFrozen(v) && (Array.isArray(v) ? v : Object.values(v as object)).every(isFrozenWhole));

  test('plain JSON data: the value itself, frozen whole, and the same value every time after', () => {
    const value = { content: [{ type: 'text', text: 'echo' }], structuredContent: { list: [1, [2, [3]]], none: null }, isError: false };
    const before = structuredClone(value);
    const shared = sharedJson(value);
    assert.equal(shared, value, 'shared, not copied');
    assert.deepStrictEqual(shared, before, 'unchanged');
    assert.ok(isFrozenWhole(shared), 'every object and array in it is frozen');
    assert.throws(() => {
      (shared.content[0] as { text: string }).text = 'changed';
    }, TypeError);
    assert.equal(sharedJson(value), value);
  });

  test('anything else is copied as copyJson copies it, and the original is left unfrozen', () => {
    class Point {
      constructor(readonly x: number) {}
    }
    for (const value of [{ at: new Date(0), list: [{ a: 1 }] }, { point: new Point(1), list: [{ a: 1 }] }, { bare: Object.assign(Object.create(null) as object, { a: 1 }), list: [{ a: 1 }] }, nested(MAX_JSON_DEPTH + 5) as object]) {
      const shared = sharedJson(value);
      assert.notEqual(shared, value, 'copied');
      assert.deepStrictEqual(shared, copyJson(value));
      assert.ok(!Object.isFrozen(value), 'nothing of it frozen');
      if ('list' in value) assert.ok(!Object.isFrozen((value.list as object[])[0]), 'not even a part of it');
    }
    assert.throws(() => sharedJson({ f: () => 1, list: [] }), { name: 'DataCloneError' });
  });
});
