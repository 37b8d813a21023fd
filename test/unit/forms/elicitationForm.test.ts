import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkValue,
  defaultAnswer,
  describeField,
  fieldLabel,
  formatFieldValue,
  parseForm,
  sampleValue,
  validateAnswer,
  validateField,
  type EnumField,
  type FormField,
  type MultiSelectField,
  type NumberField,
  type StringField,
} from '../../../src/core/forms/elicitationForm.js';

/** The demo server's profile form: every field kind of the 2025-11-25 elicitation subset. */
const PROFILE = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Full name', description: 'How should we address you?', minLength: 2, maxLength: 60 },
    email: { type: 'string', title: 'Email', format: 'email' },
    homepage: { type: 'string', title: 'Homepage', format: 'uri', default: 'https://example.com' },
    birthday: { type: 'string', title: 'Birthday', format: 'date' },
    nextMeeting: { type: 'string', format: 'date-time' },
    age: { type: 'integer', title: 'Age', minimum: 13, maximum: 120 },
    rating: { type: 'number', minimum: 0, maximum: 5, default: 4.5 },
    newsletter: { type: 'boolean', default: false },
    role: { type: 'string', oneOf: [{ const: 'dev', title: 'Developer' }, { const: 'ops', title: 'Operations' }], default: 'dev' },
    editor: { type: 'string', enum: ['vscode', 'vim'], enumNames: ['Visual Studio Code', 'Vim'] },
    plain: { type: 'string', enum: ['a', 'b', 'c'] },
    languages: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['ts', 'py', 'rs', 'go'] }, default: ['ts'] },
    interests: { type: 'array', items: { anyOf: [{ const: 'tasks', title: 'Long-running tasks' }, { const: 'sampling', title: 'Sampling' }] } },
  },
  required: ['name', 'email', 'role', 'languages', 'age', 'birthday'],
};

function field<K extends FormField['kind']>(schema: unknown, key: string, kind: K): Extract<FormField, { kind: K }> {
  const f = parseForm(schema).fields.find((x) => x.key === key);
  assert.ok(f, `field ${key} parsed`);
  assert.equal(f.kind, kind);
  return f as Extract<FormField, { kind: K }>;
}

describe('parseForm: elicitation requestedSchema (2025-11-25 form mode)', () => {
  test('parses every field kind, in property order, with required flags', () => {
    const form = parseForm(PROFILE);
    assert.equal(form.unsupported, undefined);
    assert.deepEqual(
      form.fields.map((f) => [f.key, f.kind, f.required]),
      [
        ['name', 'string', true],
        ['email', 'string', true],
        ['homepage', 'string', false],
        ['birthday', 'string', true],
        ['nextMeeting', 'string', false],
        ['age', 'number', true],
        ['rating', 'number', false],
        ['newsletter', 'boolean', false],
        ['role', 'enum', true],
        ['editor', 'enum', false],
        ['plain', 'enum', false],
        ['languages', 'multiselect', true],
        ['interests', 'multiselect', false],
      ],
    );
    assert.equal(form.allowsExtraKeys, false);
  });

  test('string: title, description, lengths, format, default', () => {
    const name = field(PROFILE, 'name', 'string');
    assert.deepEqual(name, { key: 'name', title: 'Full name', description: 'How should we address you?', required: true, kind: 'string', minLength: 2, maxLength: 60 });
    assert.equal(field(PROFILE, 'email', 'string').format, 'email');
    const home = field(PROFILE, 'homepage', 'string');
    assert.equal(home.format, 'uri');
    assert.equal(home.default, 'https://example.com');
    assert.equal(field(PROFILE, 'birthday', 'string').format, 'date');
    assert.equal(field(PROFILE, 'nextMeeting', 'string').format, 'date-time');
  });

  test('an unknown string format is ignored (plain text)', () => {
    const f = field({ type: 'object', properties: { x: { type: 'string', format: 'ipv4' } } }, 'x', 'string');
    assert.equal(f.format, undefined);
  });

  test('number and integer with ranges and defaults', () => {
    const age = field(PROFILE, 'age', 'number');
    assert.equal(age.integer, true);
    assert.equal(age.minimum, 13);
    assert.equal(age.maximum, 120);
    const rating = field(PROFILE, 'rating', 'number');
    assert.equal(rating.integer, false);
    assert.equal(rating.default, 4.5);
  });

  test('boolean with default', () => {
    assert.equal(field(PROFILE, 'newsletter', 'boolean').default, false);
  });

  test('single-select: oneOf {const,title}, legacy enumNames, plain enum', () => {
    assert.deepEqual(field(PROFILE, 'role', 'enum').options, [
      { value: 'dev', title: 'Developer' },
      { value: 'ops', title: 'Operations' },
    ]);
    assert.equal(field(PROFILE, 'role', 'enum').default, 'dev');
    assert.deepEqual(field(PROFILE, 'editor', 'enum').options, [
      { value: 'vscode', title: 'Visual Studio Code' },
      { value: 'vim', title: 'Vim' },
    ]);
    assert.deepEqual(
      field(PROFILE, 'plain', 'enum').options.map((o) => o.title),
      ['a', 'b', 'c'],
    );
  });

  test('enumNames shorter than enum falls back to the value as title', () => {
    const f = field({ type: 'object', properties: { x: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } } }, 'x', 'enum');
    assert.deepEqual(f.options, [
      { value: 'a', title: 'A' },
      { value: 'b', title: 'b' },
    ]);
  });

  test('multi-select: items.enum and items.anyOf, min/maxItems, default', () => {
    const langs = field(PROFILE, 'languages', 'multiselect');
    assert.deepEqual(
      langs.options.map((o) => o.value),
      ['ts', 'py', 'rs', 'go'],
    );
    assert.equal(langs.minItems, 1);
    assert.equal(langs.maxItems, 3);
    assert.deepEqual(langs.default, ['ts']);
    const interests = field(PROFILE, 'interests', 'multiselect');
    assert.deepEqual(interests.options, [
      { value: 'tasks', title: 'Long-running tasks' },
      { value: 'sampling', title: 'Sampling' },
    ]);
  });

  test('a default that is not an option is dropped', () => {
    assert.equal(field({ type: 'object', properties: { x: { type: 'string', enum: ['a'], default: 'z' } } }, 'x', 'enum').default, undefined);
    assert.equal(
      field({ type: 'object', properties: { x: { type: 'array', items: { enum: ['a'] }, default: ['a', 'z'] } } }, 'x', 'multiselect').default,
      undefined,
    );
  });

  test('a default of the wrong type is dropped', () => {
    assert.equal(field({ type: 'object', properties: { x: { type: 'integer', default: 'ten' } } }, 'x', 'number').default, undefined);
    assert.equal(field({ type: 'object', properties: { x: { type: 'string', default: 3 } } }, 'x', 'string').default, undefined);
    assert.equal(field({ type: 'object', properties: { x: { type: 'boolean', default: 'yes' } } }, 'x', 'boolean').default, undefined);
  });

  test('empty schema and schema with no properties give an empty form', () => {
    assert.deepEqual(parseForm({ type: 'object', properties: {} }).fields, []);
    assert.deepEqual(parseForm({ type: 'object' }).fields, []);
    assert.equal(parseForm({ type: 'object' }).unsupported, undefined);
  });

  test('unsupported: nested object (the UI falls back to a JSON editor); other fields still parsed', () => {
    const form = parseForm({
      type: 'object',
      properties: { name: { type: 'string' }, address: { type: 'object', properties: { street: { type: 'string' } } } },
      required: ['address'],
    });
    assert.match(form.unsupported!, /"address" is a nested object/);
    assert.deepEqual(
      form.fields.map((f) => f.key),
      ['name'],
    );
    assert.deepEqual(
      form.unsupportedProperties.map((p) => [p.key, p.required]),
      [['address', true]],
    );
  });

  test('unsupported: not an object, wrong root type, free lists, tuples, no type, composition', () => {
    assert.match(parseForm(null).unsupported!, /not a JSON object/);
    assert.match(parseForm([]).unsupported!, /not a JSON object/);
    assert.match(parseForm({ type: 'string' }).unsupported!, /not an object of fields/);
    assert.match(parseForm({ type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } }).unsupported!, /list of free values/);
    assert.match(parseForm({ type: 'object', properties: { tags: { type: 'array', items: { type: 'object' } } } }).unsupported!, /list of objects/);
    assert.match(parseForm({ type: 'object', properties: { tags: { type: 'array' } } }).unsupported!, /without item schema/);
    assert.match(parseForm({ type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }] } } }).unsupported!, /tuple/);
    assert.match(parseForm({ type: 'object', properties: { x: { description: 'no type' } } }).unsupported!, /has no "type"/);
    assert.match(parseForm({ type: 'object', properties: { x: { $ref: '#/defs/x' } } }).unsupported!, /uses "\$ref"/);
    assert.match(parseForm({ type: 'object', properties: { x: { anyOf: [{ type: 'string' }, { type: 'number' }] } } }).unsupported!, /union of several types/);
    assert.match(parseForm({ type: 'object', properties: { x: { type: ['string', 'number'] } } }).unsupported!, /several types/);
    assert.match(parseForm({ type: 'object', allOf: [] }).unsupported!, /"allOf"/);
    assert.match(parseForm({ type: 'object', properties: 3 }).unsupported!, /"properties" is not an object/);
    assert.match(parseForm({ type: 'object', properties: { x: 'string' } }).unsupported!, /no schema object/);
    assert.match(parseForm({ type: 'object', properties: { x: { type: 'string', enum: [] } } }).unsupported!, /empty "enum"/);
    assert.match(parseForm({ type: 'object', properties: { x: { type: 'string', enum: [{}] } } }).unsupported!, /not a string, number or boolean/);
    assert.match(parseForm({ type: 'object', properties: { x: { type: 'string', enum: ['a', 1] } } }).unsupported!, /not a string/);
  });

  test('a required key without a property is unsupported', () => {
    const form = parseForm({ type: 'object', properties: {}, required: ['ghost'] });
    assert.match(form.unsupported!, /"ghost" is required but not described/);
  });
});

describe('parseForm: tool inputSchema', () => {
  test('object of primitives from a zod/SDK tool (with $schema, additionalProperties)', () => {
    const form = parseForm(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          a: { type: 'number', description: 'First number' },
          b: { type: 'number', description: 'Second number' },
          steps: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
          mode: { type: 'string', enum: ['fast', 'slow'] },
        },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      { source: 'tool' },
    );
    assert.equal(form.unsupported, undefined);
    assert.deepEqual(
      form.fields.map((f) => [f.key, f.kind, f.required]),
      [
        ['a', 'number', true],
        ['b', 'number', true],
        ['steps', 'number', false],
        ['mode', 'enum', false],
      ],
    );
    assert.equal(form.allowsExtraKeys, false);
  });

  test('tool schema without additionalProperties:false allows extra keys', () => {
    const form = parseForm({ type: 'object', properties: { a: { type: 'string' } } }, { source: 'tool' });
    assert.equal(form.allowsExtraKeys, true);
    assert.deepEqual(validateAnswer(form, { a: 'x', extra: 1 }), []);
  });

  test('nullable unions (Python Optional) become nullable fields; default null means no default', () => {
    const form = parseForm(
      {
        type: 'object',
        title: 'greetArguments',
        properties: {
          name: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title: 'Name' },
          count: { type: ['integer', 'null'], minimum: 0 },
        },
      },
      { source: 'tool' },
    );
    assert.equal(form.unsupported, undefined);
    assert.equal(form.title, 'greetArguments');
    const name = form.fields[0] as StringField;
    assert.equal(name.kind, 'string');
    assert.equal(name.title, 'Name');
    assert.equal(name.nullable, true);
    assert.equal(name.default, undefined);
    const count = form.fields[1] as NumberField;
    assert.equal(count.integer, true);
    assert.equal(count.nullable, true);
    assert.equal(checkValue(count, null), undefined);
    assert.match(checkValue(form.fields[0]!, 3)!, /Must be text/);
  });

  test('numeric enums, const, enums without type, exclusive bounds, pattern', () => {
    const form = parseForm(
      {
        type: 'object',
        properties: {
          level: { type: 'integer', enum: [1, 2, 3], default: 2 },
          kind: { const: 'fixed' },
          color: { enum: ['red', 'green'] },
          ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
          old: { type: 'number', minimum: 0, exclusiveMinimum: true },
          slug: { type: 'string', pattern: '^[a-z]+-[0-9]+$' },
        },
      },
      { source: 'tool' },
    );
    assert.equal(form.unsupported, undefined);
    const [level, kind, color, ratio, old, slug] = form.fields as [EnumField, EnumField, EnumField, NumberField, NumberField, StringField];
    assert.deepEqual(
      level.options.map((o) => o.value),
      [1, 2, 3],
    );
    assert.equal(level.default, 2);
    assert.deepEqual(kind.options, [{ value: 'fixed', title: 'fixed' }]);
    assert.equal(color.kind, 'enum');
    assert.equal(ratio.exclusiveMinimum, 0);
    assert.equal(ratio.exclusiveMaximum, 1);
    assert.equal(old.exclusiveMinimum, 0);
    assert.equal(slug.pattern, '^[a-z]+-[0-9]+$');
    assert.equal(validateField(ratio, '0').ok, false);
    assert.deepEqual(validateField(ratio, '0.5'), { ok: true, value: 0.5 });
    assert.equal(validateField(ratio, '1').ok, false);
    assert.deepEqual(validateField(slug, 'abc-12'), { ok: true, value: 'abc-12' });
    assert.match((validateField(slug, 'ABC') as { error: string }).error, /Must match the pattern/);
  });

  test('integer enum with a non-integer option is unsupported', () => {
    assert.match(parseForm({ type: 'object', properties: { x: { type: 'integer', enum: [1, 1.5] } } }).unsupported!, /not a integer/);
  });

  test('an invalid pattern is not enforced', () => {
    const f = field({ type: 'object', properties: { x: { type: 'string', pattern: '([' } } }, 'x', 'string');
    assert.deepEqual(validateField(f, 'anything'), { ok: true, value: 'anything' });
  });
});

describe('validateField (input-box validation)', () => {
  const email = field(PROFILE, 'email', 'string');
  const name = field(PROFILE, 'name', 'string');
  const age = field(PROFILE, 'age', 'number');
  const rating = field(PROFILE, 'rating', 'number');
  const role = field(PROFILE, 'role', 'enum');
  const langs = field(PROFILE, 'languages', 'multiselect');
  const interests = field(PROFILE, 'interests', 'multiselect');
  const newsletter = field(PROFILE, 'newsletter', 'boolean');
  const err = (r: ReturnType<typeof validateField>) => {
    assert.equal(r.ok, false, `expected an error, got ${JSON.stringify(r)}`);
    return (r as { error: string }).error;
  };

  test('required vs optional empty input', () => {
    assert.equal(err(validateField(name, '')), 'Full name is required');
    assert.deepEqual(validateField(field(PROFILE, 'homepage', 'string'), ''), { ok: true, value: undefined });
    assert.deepEqual(validateField(rating, '   '), { ok: true, value: undefined });
  });

  test('string lengths (counted in code points)', () => {
    assert.equal(err(validateField(name, 'A')), 'Must be between 2 and 60 characters');
    assert.equal(err(validateField(name, 'x'.repeat(61))), 'Must be between 2 and 60 characters');
    assert.deepEqual(validateField(name, 'Al'), { ok: true, value: 'Al' });
    const short = field({ type: 'object', properties: { s: { type: 'string', maxLength: 10 } } }, 's', 'string');
    assert.equal(err(validateField(short, 'x'.repeat(11))), 'Must be at most 10 characters');
    assert.deepEqual(validateField(short, '😀'.repeat(10)), { ok: true, value: '😀'.repeat(10) });
    const long = field({ type: 'object', properties: { s: { type: 'string', minLength: 3 } } }, 's', 'string');
    assert.equal(err(validateField(long, 'ab')), 'Must be at least 3 characters');
    const one = field({ type: 'object', properties: { s: { type: 'string', minLength: 1, maxLength: 1 } } }, 's', 'string');
    assert.equal(err(validateField(one, 'ab')), 'Must be exactly 1 character');
  });

  test('strings keep surrounding spaces', () => {
    assert.deepEqual(validateField(name, '  Al  '), { ok: true, value: '  Al  ' });
  });

  test('email format', () => {
    assert.equal(err(validateField(email, 'nope')), 'Enter a valid email address (e.g. name@example.com)');
    assert.equal(validateField(email, 'a@b').ok, false);
    assert.equal(validateField(email, 'a b@c.com').ok, false);
    assert.deepEqual(validateField(email, 'ada@example.com'), { ok: true, value: 'ada@example.com' });
    assert.equal(validateField(email, 'first.last+tag@sub.example.co.uk').ok, true);
  });

  test('uri format', () => {
    const uri = field(PROFILE, 'homepage', 'string');
    assert.match(err(validateField(uri, 'example.com')), /valid URL/);
    assert.match(err(validateField(uri, 'http://')), /valid URL/);
    assert.equal(validateField(uri, 'https://example.com/a?b=c').ok, true);
    assert.equal(validateField(uri, 'mailto:ada@example.com').ok, true);
    assert.equal(validateField(uri, 'urn:isbn:0451450523').ok, true);
  });

  test('date format (calendar-checked)', () => {
    const date = field(PROFILE, 'birthday', 'string');
    assert.deepEqual(validateField(date, '2024-02-29'), { ok: true, value: '2024-02-29' });
    assert.match(err(validateField(date, '2023-02-29')), /valid date as YYYY-MM-DD/);
    assert.equal(validateField(date, '2023-13-01').ok, false);
    assert.equal(validateField(date, '23-01-01').ok, false);
    assert.equal(validateField(date, '2023-01-01T00:00:00Z').ok, false);
  });

  test('date-time format (RFC 3339)', () => {
    const dt = field(PROFILE, 'nextMeeting', 'string');
    assert.equal(validateField(dt, '2025-11-25T14:30:00Z').ok, true);
    assert.equal(validateField(dt, '2025-11-25T14:30:00.123+02:00').ok, true);
    assert.match(err(validateField(dt, '2025-11-25 14:30')), /valid date and time/);
    assert.equal(validateField(dt, '2025-11-25T24:30:00Z').ok, false);
    assert.equal(validateField(dt, '2025-11-25T14:30:00').ok, false, 'an offset is required');
  });

  test('integers and numbers with ranges', () => {
    const small = field({ type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 5 } } }, 'n', 'number');
    assert.equal(err(validateField(small, '7')), 'Must be an integer between 1 and 5');
    assert.equal(err(validateField(small, '2.5')), 'Must be an integer between 1 and 5');
    assert.equal(err(validateField(small, 'abc')), 'Enter an integer between 1 and 5');
    assert.deepEqual(validateField(small, ' 3 '), { ok: true, value: 3 });
    assert.deepEqual(validateField(small, '5'), { ok: true, value: 5 });
    assert.deepEqual(validateField(small, '1e0'), { ok: true, value: 1 });
    assert.deepEqual(validateField(rating, '4.25'), { ok: true, value: 4.25 });
    assert.equal(err(validateField(rating, '-0.5')), 'Must be a number between 0 and 5');
    assert.equal(err(validateField(rating, '0x10')), 'Enter a number between 0 and 5');
    assert.equal(err(validateField(rating, 'Infinity')), 'Enter a number between 0 and 5');
    assert.equal(validateField(age, '12').ok, false);
    const min = field({ type: 'object', properties: { n: { type: 'number', minimum: 1 } } }, 'n', 'number');
    assert.equal(err(validateField(min, '0')), 'Must be a number at least 1');
    const max = field({ type: 'object', properties: { n: { type: 'integer', maximum: 10 } } }, 'n', 'number');
    assert.equal(err(validateField(max, '11')), 'Must be an integer at most 10');
    const any = field({ type: 'object', properties: { n: { type: 'integer' } } }, 'n', 'number');
    assert.equal(err(validateField(any, '1.5')), 'Must be an integer');
    assert.deepEqual(validateField(any, '-42'), { ok: true, value: -42 });
  });

  test('booleans', () => {
    assert.deepEqual(validateField(newsletter, 'yes'), { ok: true, value: true });
    assert.deepEqual(validateField(newsletter, 'FALSE'), { ok: true, value: false });
    assert.deepEqual(validateField(newsletter, '1'), { ok: true, value: true });
    assert.equal(err(validateField(newsletter, 'maybe')), 'Enter yes or no (true or false)');
  });

  test('single-select by value or title, case-insensitive', () => {
    assert.deepEqual(validateField(role, 'ops'), { ok: true, value: 'ops' });
    assert.deepEqual(validateField(role, 'Developer'), { ok: true, value: 'dev' });
    assert.deepEqual(validateField(role, 'operations'), { ok: true, value: 'ops' });
    assert.equal(err(validateField(role, 'boss')), 'Choose one of: Developer, Operations');
    const level = field({ type: 'object', properties: { l: { type: 'integer', enum: [1, 2] } } }, 'l', 'enum');
    assert.deepEqual(validateField(level, '2'), { ok: true, value: 2 });
  });

  test('multi-select as a comma list or JSON array, with item counts', () => {
    assert.deepEqual(validateField(langs, 'ts, py'), { ok: true, value: ['ts', 'py'] });
    assert.deepEqual(validateField(langs, '["rs"]'), { ok: true, value: ['rs'] });
    assert.equal(err(validateField(langs, 'ts,py,rs,go')), 'Choose 1 to 3');
    assert.equal(err(validateField(langs, 'ts, ts')), 'Each option may be chosen only once');
    assert.match(err(validateField(langs, 'ts, cobol')), /"cobol" is not an option/);
    assert.equal(err(validateField(langs, '')), 'languages is required');
    assert.equal(err(validateField(langs, '[1,')), 'Enter a comma-separated list or a JSON array');
    assert.deepEqual(validateField(interests, 'Sampling, tasks'), { ok: true, value: ['sampling', 'tasks'] });
    assert.deepEqual(validateField(interests, ''), { ok: true, value: undefined });
    const req = field({ type: 'object', properties: { m: { type: 'array', items: { enum: ['a'] } } }, required: ['m'] }, 'm', 'multiselect');
    assert.deepEqual(validateField(req, ''), { ok: true, value: [] }, 'required without minItems: nothing chosen is a valid answer');
  });

  test('formatFieldValue round-trips through validateField', () => {
    for (const [f, v] of [
      [name, 'Ada'],
      [age, 42],
      [rating, 4.5],
      [newsletter, true],
      [role, 'ops'],
      [langs, ['ts', 'go']],
    ] as Array<[FormField, unknown]>) {
      assert.deepEqual(validateField(f, formatFieldValue(f, v)), { ok: true, value: v });
    }
    assert.equal(formatFieldValue(name, undefined), '');
  });
});

describe('validateAnswer (before sending)', () => {
  const form = parseForm(PROFILE);
  const good = {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    birthday: '1815-12-10',
    age: 36,
    role: 'dev',
    languages: ['ts'],
  };

  test('a complete valid answer has no problems', () => {
    assert.deepEqual(validateAnswer(form, good), []);
    assert.deepEqual(validateAnswer(form, { ...good, rating: 5, newsletter: true, interests: [], editor: 'vim' }), []);
  });

  test('missing required fields, wrong types, out-of-range values, unknown keys', () => {
    const problems = validateAnswer(form, { name: 'A', email: 'x', age: '36', role: 'boss', languages: [], typo: 1 });
    assert.deepEqual(problems, [
      { key: 'name', message: 'Full name: Must be between 2 and 60 characters' },
      { key: 'email', message: 'Email: Enter a valid email address (e.g. name@example.com)' },
      { key: 'birthday', message: 'Birthday is required' },
      { key: 'age', message: 'Age: Must be an integer, not text' },
      { key: 'role', message: 'role: Must be one of: "dev", "ops"' },
      { key: 'languages', message: 'languages: Choose 1 to 3' },
      { key: 'typo', message: '"typo" is not a field of this form' },
    ]);
  });

  test('not an object', () => {
    assert.deepEqual(validateAnswer(form, [1]), [{ message: 'The answer must be a JSON object, not a list' }]);
    assert.deepEqual(validateAnswer(form, null), [{ message: 'The answer must be a JSON object, not null' }]);
  });

  test('null is only accepted for nullable fields', () => {
    assert.deepEqual(validateAnswer(form, { ...good, rating: null }), [{ key: 'rating', message: 'rating: Must not be empty (null)' }]);
  });

  test('required unsupported properties must be present', () => {
    const f = parseForm({ type: 'object', properties: { o: { type: 'object' } }, required: ['o'] }, { source: 'tool' });
    assert.deepEqual(validateAnswer(f, {}), [{ key: 'o', message: 'o is required' }]);
    assert.deepEqual(validateAnswer(f, { o: {} }), []);
  });
});

describe('defaultAnswer (SEP-1034 defaults, fillRequired)', () => {
  test('the conformance suite form: every default applied', () => {
    // Exactly the schema of the official `elicitation-sep1034-client-defaults` scenario.
    const form = parseForm({
      type: 'object',
      properties: {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      },
      required: [],
    });
    const expected = { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true };
    assert.deepEqual(defaultAnswer(form), expected);
    assert.deepEqual(defaultAnswer(form, { fillRequired: true }), expected);
  });

  test('without fillRequired, required fields without a default stay empty', () => {
    const form = parseForm(PROFILE);
    assert.deepEqual(defaultAnswer(form), { homepage: 'https://example.com', rating: 4.5, newsletter: false, role: 'dev', languages: ['ts'] });
    assert.ok(validateAnswer(form, defaultAnswer(form)).length > 0);
  });

  test('fillRequired fills every required field with a valid value; optional ones stay out', () => {
    const form = parseForm(PROFILE);
    const answer = defaultAnswer(form, { fillRequired: true });
    assert.deepEqual(validateAnswer(form, answer), []);
    assert.deepEqual(Object.keys(answer).sort(), ['age', 'birthday', 'email', 'homepage', 'languages', 'name', 'newsletter', 'rating', 'role'].sort());
    assert.equal(answer.age, 13);
    assert.equal(answer.birthday, '2025-01-01');
    assert.equal(answer.email, 'user@example.com');
  });

  test('defaults are copied, not shared', () => {
    const form = parseForm(PROFILE);
    const a = defaultAnswer(form);
    (a.languages as string[]).push('py');
    assert.deepEqual(defaultAnswer(form).languages, ['ts']);
  });

  test('a default that breaks its own constraints is not applied (filled instead when required)', () => {
    const form = parseForm({
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 1, maximum: 5, default: 9 },
        s: { type: 'string', maxLength: 3, default: 'too long' },
        e: { type: 'string', format: 'email', default: 'not-an-email' },
      },
      required: ['n'],
    });
    assert.deepEqual(defaultAnswer(form), {});
    assert.deepEqual(defaultAnswer(form, { fillRequired: true }), { n: 1 });
  });

  test('filled values respect formats, lengths, ranges, enums and minItems', () => {
    const schema = {
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', minLength: 30 },
        tinyEmail: { type: 'string', format: 'email', maxLength: 8 },
        uri: { type: 'string', format: 'uri', minLength: 40 },
        date: { type: 'string', format: 'date' },
        dt: { type: 'string', format: 'date-time' },
        text: { type: 'string', minLength: 12, maxLength: 12 },
        short: { type: 'string', maxLength: 3 },
        empty: { type: 'string', maxLength: 0 },
        neg: { type: 'integer', maximum: -10 },
        between: { type: 'number', minimum: 2.5, maximum: 3 },
        exclusive: { type: 'integer', exclusiveMinimum: 7 },
        fraction: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
        flag: { type: 'boolean' },
        pick: { type: 'string', oneOf: [{ const: 'x', title: 'X' }, { const: 'y', title: 'Y' }] },
        many: { type: 'array', minItems: 2, items: { enum: ['a', 'b', 'c'] } },
        none: { type: 'array', items: { enum: ['a'] } },
        slug: { type: 'string', pattern: '^[a-z]+-[0-9]+$' },
      },
    };
    const base = parseForm(schema, { source: 'tool' });
    const form = parseForm({ ...schema, required: base.fields.map((f) => f.key) }, { source: 'tool' });
    const answer = defaultAnswer(form, { fillRequired: true });
    assert.deepEqual(validateAnswer(form, answer), [], JSON.stringify(answer));
    assert.equal(answer.neg, -10);
    assert.equal(answer.between, 2.5);
    assert.equal(answer.exclusive, 8);
    assert.equal(answer.flag, false);
    assert.equal(answer.pick, 'x');
    assert.deepEqual(answer.many, ['a', 'b']);
    assert.deepEqual(answer.none, []);
    assert.equal(answer.empty, '');
    assert.equal(answer.slug, 'example-1');
    for (const f of form.fields) assert.equal(checkValue(f, sampleValue(f)), undefined, f.key);
  });

  test('the conformance tools_call tool gets numbers for its required arguments', () => {
    const form = parseForm(
      { type: 'object', properties: { a: { type: 'number', description: 'First number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      { source: 'tool' },
    );
    assert.deepEqual(defaultAnswer(form, { fillRequired: true }), { a: 0, b: 0 });
  });

  test('required properties the form cannot express get a minimal value from their schema', () => {
    const form = parseForm(
      {
        type: 'object',
        properties: {
          steps: {
            type: 'array',
            minItems: 1,
            items: { type: 'object', properties: { method: { type: 'string' }, params: { type: 'object' } }, required: ['method'] },
          },
          opts: { type: 'object', properties: { level: { type: 'integer', minimum: 3 } }, required: ['level'] },
          tags: { type: 'array', items: { type: 'string' }, default: ['x'] },
          optional: { type: 'object' },
        },
        required: ['steps', 'opts', 'tags'],
      },
      { source: 'tool' },
    );
    assert.ok(form.unsupported);
    assert.deepEqual(defaultAnswer(form, { fillRequired: true }), { steps: [{ method: 'example' }], opts: { level: 3 }, tags: ['x'] });
    assert.deepEqual(defaultAnswer(form), {});
  });

  test('nullable optional fields with default null stay out', () => {
    const form = parseForm({ type: 'object', properties: { n: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null } } }, { source: 'tool' });
    assert.deepEqual(defaultAnswer(form, { fillRequired: true }), {});
  });
});

describe('labels', () => {
  test('fieldLabel prefers the title', () => {
    assert.equal(fieldLabel({ key: 'k', title: 'Title' }), 'Title');
    assert.equal(fieldLabel({ key: 'k', title: '  ' }), 'k');
    assert.equal(fieldLabel({ key: 'k' }), 'k');
  });

  test('describeField summarises what is accepted', () => {
    assert.equal(describeField(field(PROFILE, 'email', 'string')), 'email address, required');
    assert.equal(describeField(field(PROFILE, 'name', 'string')), 'text, 2–60 characters, required');
    assert.equal(describeField(field(PROFILE, 'age', 'number')), 'an integer between 13 and 120, required');
    assert.equal(describeField(field(PROFILE, 'newsletter', 'boolean')), 'yes or no, optional');
    assert.equal(describeField(field(PROFILE, 'role', 'enum')), 'one of: Developer, Operations, required');
    assert.equal(describeField(field(PROFILE, 'languages', 'multiselect') as MultiSelectField), '1 to 3 of: ts, py, rs, go, required');
    assert.equal(describeField(field(PROFILE, 'interests', 'multiselect')), 'any number of: Long-running tasks, Sampling, optional');
  });
});
