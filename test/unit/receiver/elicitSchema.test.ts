/**
 * The host's `elicitation/create` check (elicitSchema.ts) against the SDK's own `ElicitRequestSchema`:
 * for every request, the same verdict, the same parsed request on success and the same error on
 * refusal, whichever field shapes it holds, in any order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ElicitRequestSchema } from '@modelcontextprotocol/core';
import { elicitRequestSchema } from '../../../src/core/receiver/elicitSchema.js';
import { checkQuestion } from '../../../src/core/receiver/questionDoor.js';

/** Form fields of every shape the SDK knows, fields two shapes could take, and fields none can. */
const FIELDS: Record<string, unknown> = {
  text: { type: 'string' },
  textFull: { type: 'string', title: 'T', description: 'd', minLength: 1, maxLength: 9, format: 'email', default: 'a@b.c', extra: 'dropped' },
  textBadFormat: { type: 'string', format: 'phone' },
  textBadDefault: { type: 'string', default: 3 },
  bool: { type: 'boolean', default: true, extra: 1 },
  boolBadDefault: { type: 'boolean', default: 'yes' },
  number: { type: 'number', minimum: 0, maximum: 5, default: 2 },
  integer: { type: 'integer', extra: true },
  numberBadMin: { type: 'integer', minimum: '0' },
  legacyEnum: { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'], default: 'a' },
  untitledEnum: { type: 'string', enum: ['a', 'b'] },
  enumNotArray: { type: 'string', enum: 'a' },
  titledEnum: { type: 'string', oneOf: [{ const: 'a', title: 'A' }], default: 'a' },
  titledEnumBad: { type: 'string', oneOf: [{ const: 'a' }] },
  enumAndOneOf: { type: 'string', enum: ['a'], oneOf: [{ const: 'a', title: 'A' }] },
  multiUntitled: { type: 'array', items: { type: 'string', enum: ['a'] }, minItems: 1, default: ['a'] },
  multiTitled: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] } },
  multiBad: { type: 'array', items: { type: 'number' } },
  objectType: { type: 'object' },
  noType: { title: 'x' },
  nullField: null,
  stringField: 'string',
  arrayField: [{ type: 'string' }],
};

function requests(): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  const form = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    method: 'elicitation/create',
    params: { message: 'Fill in', requestedSchema: { type: 'object', properties, ...extra } },
  });
  for (const [name, field] of Object.entries(FIELDS)) out.push([`one field: ${name}`, form({ [name]: field })]);
  out.push(['every valid field', form(Object.fromEntries(Object.entries(FIELDS).filter(([n]) => !/Bad|NotArray|objectType|noType|Field$/.test(n))), { required: ['text'] })]);
  out.push(['every field', form(FIELDS)]);
  out.push(['no fields', form({})]);
  out.push(['form mode, schema keys kept', { method: 'elicitation/create', params: { mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: { a: FIELDS.text }, $schema: 'x' }, _meta: { k: 1 }, task: { ttl: 5 } } }]);
  out.push(['properties not an object', form('nope' as never)]);
  out.push(['requestedSchema of another type', { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'array', properties: {} } } }]);
  out.push(['url mode', { method: 'elicitation/create', params: { mode: 'url', message: 'Go', elicitationId: 'e1', url: 'https://example.com/x' } }]);
  out.push(['url mode without url', { method: 'elicitation/create', params: { mode: 'url', message: 'Go', elicitationId: 'e1' } }]);
  out.push(['url mode, form fields too', { method: 'elicitation/create', params: { mode: 'url', message: 'Go', elicitationId: 'e1', url: 'https://example.com', requestedSchema: { type: 'object', properties: { a: FIELDS.text } } } }]);
  out.push(['no message', { method: 'elicitation/create', params: { requestedSchema: { type: 'object', properties: { a: FIELDS.bool } } } }]);
  out.push(['no params', { method: 'elicitation/create' }]);
  out.push(['another method', { method: 'sampling/createMessage', params: { message: 'm', requestedSchema: { type: 'object', properties: {} } } }]);
  return out;
}

test('the same verdict, parsed request and error as the SDK schema, for every field shape', () => {
  let accepted = 0;
  let refused = 0;
  for (const [name, request] of requests()) {
    const sdk = ElicitRequestSchema.safeParse(request);
    const host = elicitRequestSchema.safeParse(request);
    assert.equal(host.success, sdk.success, `${name}: verdict`);
    if (sdk.success && host.success) {
      assert.deepStrictEqual(host.data, sdk.data, `${name}: parsed request`);
      accepted++;
    } else if (!sdk.success && !host.success) {
      assert.deepStrictEqual(host.error.issues, sdk.error.issues, `${name}: error`);
      refused++;
    }
  }
  // Both verdicts were met, many times: the comparison is not one-sided.
  assert.ok(accepted >= 15 && refused >= 10, `accepted ${accepted}, refused ${refused}`);
});

test('a field two shapes could take is kept as the first shape the SDK tries takes it', () => {
  const request = { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: { pick: FIELDS.legacyEnum } } } };
  const { params } = checkQuestion(request) as unknown as { params: { requestedSchema: { properties: { pick: Record<string, unknown> } } } };
  // The legacy enum shape (tried before the plain string shape) keeps its options and their names.
  assert.deepStrictEqual(params.requestedSchema.properties.pick, { type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'], default: 'a' });
  assert.throws(() => checkQuestion({ method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: { n: FIELDS.numberBadMin } } } }), (e: Error & { code?: number }) => e.code === -32602 && /requestedSchema/.test(e.message));
});

test('a form of text, boolean and number fields is taken field by field; only a refusal is parsed again with the SDK schema', () => {
  const sdk = ElicitRequestSchema as unknown as { safeParse: (value: unknown) => unknown };
  let sdkParses = 0;
  const own = Object.getOwnPropertyDescriptor(sdk, 'safeParse');
  const original = sdk.safeParse;
  sdk.safeParse = (value: unknown) => (sdkParses++, original.call(sdk, value));
  try {
    const form = (properties: Record<string, unknown>) => ({ method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties } } });
    assert.ok(elicitRequestSchema.safeParse(form({ a: FIELDS.textFull, b: FIELDS.bool, c: FIELDS.number, d: FIELDS.integer })).success);
    assert.equal(sdkParses, 0, 'the one shape each field can meet took it');
    assert.ok(!elicitRequestSchema.safeParse(form({ a: FIELDS.textBadFormat })).success);
    assert.equal(sdkParses, 1, "a refused request gets the SDK schema's own error");
  } finally {
    if (own) Object.defineProperty(sdk, 'safeParse', own);
    else delete (sdk as { safeParse?: unknown }).safeParse;
  }
});
