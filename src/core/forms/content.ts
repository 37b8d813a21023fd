/** validateAnswer (every problem of a complete answer) and defaultAnswer (defaults, sample values for required fields). */
import { checkValue, jsonTypeOf } from './validation.js';
import { type FieldValue, type FormContent, type FormField, type FormProblem, isObject, type NumberField, optCount, type ParsedForm, type StringField } from './formTypes.js';
import { fieldLabel, lowerBound, upperBound } from './labels.js';
import { parseProperty } from './schema.js';

/** Every problem of a complete answer against the form (empty when it can be sent). */
export function validateAnswer(form: ParsedForm, content: unknown): FormProblem[] {
  if (!isObject(content)) return [{ message: `The answer must be a JSON object, not ${jsonTypeOf(content)}` }];
  const problems: FormProblem[] = [];
  const known = new Set<string>();
  for (const field of form.fields) {
    known.add(field.key);
    const value = content[field.key];
    if (value === undefined) {
      if (field.required) problems.push({ key: field.key, message: `${fieldLabel(field)} is required` });
      continue;
    }
    const error = checkValue(field, value);
    if (error) problems.push({ key: field.key, message: `${fieldLabel(field)}: ${error}` });
  }
  for (const p of form.unsupportedProperties) {
    known.add(p.key);
    if (p.required && content[p.key] === undefined) problems.push({ key: p.key, message: `${p.key} is required` });
  }
  if (!form.allowsExtraKeys) {
    for (const key of Object.keys(content)) {
      if (!known.has(key)) problems.push({ key, message: `"${key}" is not a field of this form` });
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// defaultAnswer

export interface DefaultAnswerOptions {
  /** Also fill required fields that have no (valid) default with a valid value. */
  readonly fillRequired?: boolean;
}

/**
 * The answer with every default applied (SEP-1034: a client pre-fills defaults, and an
 * accepted answer carries them). A default that breaks its own field's constraints is not
 * applied. With `fillRequired`, every required field left without a value gets a valid one
 * that respects its format, range, length, options and item count (and required properties
 * the form can't express get a minimal value built from their schema).
 */
export function defaultAnswer(form: ParsedForm, options: DefaultAnswerOptions = {}): FormContent {
  const content: FormContent = {};
  for (const field of form.fields) {
    const d = field.default;
    if (d !== undefined && checkValue(field, d) === undefined) {
      content[field.key] = Array.isArray(d) ? [...d] : d;
    } else if (options.fillRequired && field.required) {
      content[field.key] = sampleValue(field);
    }
  }
  if (options.fillRequired) {
    for (const p of form.unsupportedProperties) {
      if (!p.required) continue;
      const d = isObject(p.schema) ? p.schema.default : undefined;
      content[p.key] = d !== undefined ? structuredClone(d) : exampleFromSchema(p.schema, 0);
    }
  }
  return content;
}

/** A valid value for a field (ignores its default). */
export function sampleValue(field: FormField): FieldValue {
  switch (field.kind) {
    case 'string':
      return sampleString(field);
    case 'number':
      return sampleNumber(field);
    case 'boolean':
      return false;
    case 'enum':
      return field.options[0]?.value ?? null;
    case 'multiselect': {
      const n = Math.min(field.minItems ?? 0, field.options.length);
      return field.options.slice(0, n).map((o) => o.value);
    }
  }
}

function sampleNumber(f: NumberField): number {
  const lo = lowerBound(f);
  const hi = upperBound(f);
  const ok = (v: number) => checkValue(f, v) === undefined;
  const candidates: number[] = [];
  if (lo) {
    const start = lo.inclusive ? lo.value : f.integer ? Math.floor(lo.value) + 1 : lo.value + 1;
    candidates.push(f.integer ? Math.ceil(start) : start);
  }
  if (hi) {
    const end = hi.inclusive ? hi.value : f.integer ? Math.ceil(hi.value) - 1 : hi.value - 1;
    candidates.push(f.integer ? Math.floor(end) : end);
  }
  candidates.push(0, 1);
  if (lo && hi) candidates.push((lo.value + hi.value) / 2, Math.round((lo.value + hi.value) / 2));
  return candidates.find(ok) ?? candidates[0]!;
}

function sampleString(f: StringField): string {
  const min = f.minLength ?? 0;
  const max = f.maxLength ?? Infinity;
  const fit = (base: string, pad: (s: string, n: number) => string): string => {
    const len = [...base].length;
    if (len < min) return pad(base, min - len);
    return base;
  };
  let candidates: string[];
  switch (f.format) {
    case 'email':
      candidates = [fit('user@example.com', (s, n) => 'u'.repeat(n) + s), fit('a@b.co', (s, n) => 'a'.repeat(n) + s)];
      break;
    case 'uri':
      candidates = [fit('https://example.com', (s, n) => `${s}/${'a'.repeat(Math.max(0, n - 1))}`), fit('a:b', (s, n) => s + 'b'.repeat(n))];
      break;
    case 'date':
      candidates = ['2025-01-01'];
      break;
    case 'date-time':
      candidates = ['2025-01-01T00:00:00Z', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00+00:00'];
      break;
    default: {
      const pad = (s: string, n: number) => s + 'x'.repeat(n);
      candidates = [fit('example', pad), fit('x', pad), fit('a', (s, n) => s + 'a'.repeat(n)), fit('0', (s, n) => s + '0'.repeat(n)), fit('A', (s, n) => s + 'A'.repeat(n)), ''];
      if (f.pattern) candidates.push(...patternCandidates(min));
      break;
    }
  }
  const truncated = candidates.map((c) => ([...c].length > max ? [...c].slice(0, max).join('') : c));
  return [...candidates, ...truncated].find((c) => checkValue(f, c) === undefined) ?? truncated[0] ?? '';
}

function patternCandidates(min: number): string[] {
  const n = Math.max(min, 1);
  return ['abc', 'a1', 'A1', 'example-1', 'example_1', 'a-b', '1.0.0', 'x'.repeat(n), '1'.repeat(n), 'a'.repeat(n) + '1', 'ab-12'];
}

/** A minimal JSON value that satisfies a (possibly nested) schema, best effort. */
function exampleFromSchema(schema: unknown, depth: number): unknown {
  if (!isObject(schema) || depth > 8) return null;
  if (schema.default !== undefined) return structuredClone(schema.default);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  for (const kw of ['anyOf', 'oneOf']) {
    const alts = schema[kw];
    if (Array.isArray(alts) && alts.length) {
      const first = alts.find((a) => !(isObject(a) && a.type === 'null')) ?? alts[0];
      return exampleFromSchema(first, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length) return exampleFromSchema(Object.assign({}, ...schema.allOf.filter(isObject)), depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required : [];
      for (const key of required) if (typeof key === 'string') out[key] = exampleFromSchema(props[key] ?? {}, depth + 1);
      return out;
    }
    case 'array': {
      const n = optCount(schema.minItems) ?? 0;
      return Array.from({ length: n }, () => exampleFromSchema(schema.items, depth + 1));
    }
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean': {
      const parsed = parseProperty('value', schema, true);
      return 'field' in parsed ? sampleValue(parsed.field) : null;
    }
    default:
      return isObject(schema.properties) ? exampleFromSchema({ ...schema, type: 'object' }, depth + 1) : null;
  }
}
