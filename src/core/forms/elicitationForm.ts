/**
 * A typed model of an elicitation `requestedSchema` (MCP 2025-11-25, form mode: a flat object
 * of primitive properties) and of a tool's `inputSchema` when it is an object of primitives.
 *
 * Used by the VS Code form (one input box / quick pick per field) and by the headless client
 * (which answers every form with {@link defaultAnswer}). No `vscode` import: this is core.
 *
 * - {@link parseForm}: schema → typed fields, or a reason why the form can't express it (the UI
 *   then falls back to a JSON editor).
 * - {@link validateField}: raw text the user typed → typed value, or a readable error (for
 *   input-box validation as the user types).
 * - {@link validateAnswer}: a complete answer → every problem (checked before sending).
 * - {@link defaultAnswer}: every default applied (SEP-1034), and optionally every required
 *   field without a default filled with a valid value.
 */

/** A value an enum option can stand for (elicitation enums are strings; tool enums may be numbers). */
export type EnumValue = string | number | boolean;

/** A value in an answer (`ElicitResult.content` / tool arguments). */
export type FieldValue = string | number | boolean | EnumValue[] | null;

/** The content of an answer: field key → value. */
export type FormContent = Record<string, unknown>;

export type StringFormat = 'email' | 'uri' | 'date' | 'date-time';

interface FieldBase {
  /** The property name (the key in the answer). */
  readonly key: string;
  readonly title?: string;
  readonly description?: string;
  /** Listed in the schema's `required`. */
  readonly required: boolean;
  /** The schema also allows `null` (tool schemas: `type: ["string", "null"]`, `anyOf: [{…}, {type: "null"}]`). */
  readonly nullable?: boolean;
}

export interface StringField extends FieldBase {
  readonly kind: 'string';
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly format?: StringFormat;
  /** ECMAScript regular expression (tool schemas; not part of the elicitation subset). */
  readonly pattern?: string;
  readonly default?: string;
}

export interface NumberField extends FieldBase {
  readonly kind: 'number';
  /** `type: "integer"`. */
  readonly integer: boolean;
  readonly minimum?: number;
  readonly maximum?: number;
  /** Tool schemas only. */
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly default?: number;
}

export interface BooleanField extends FieldBase {
  readonly kind: 'boolean';
  readonly default?: boolean;
}

export interface EnumOption {
  readonly value: EnumValue;
  /** What the user sees: the option's title (`oneOf[].title`, `enumNames[i]`), else the value. */
  readonly title: string;
}

/** Single-select: plain `enum`, legacy `enum` + `enumNames`, or `oneOf` of `{const, title}`. */
export interface EnumField extends FieldBase {
  readonly kind: 'enum';
  readonly options: readonly EnumOption[];
  readonly default?: EnumValue;
}

/** Multi-select: `type: "array"` with `items.enum` or `items.anyOf` of `{const, title}`. */
export interface MultiSelectField extends FieldBase {
  readonly kind: 'multiselect';
  readonly options: readonly EnumOption[];
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly default?: readonly EnumValue[];
}

export type FormField = StringField | NumberField | BooleanField | EnumField | MultiSelectField;

/** A property the form cannot express (nested object, free list, …), kept so defaults can still fill it. */
export interface UnsupportedProperty {
  readonly key: string;
  readonly required: boolean;
  readonly reason: string;
  readonly schema: unknown;
}

export interface ParsedForm {
  readonly fields: readonly FormField[];
  /** Set when the schema has anything the form can't express; the UI should fall back to a JSON editor. */
  readonly unsupported?: string;
  /** The properties behind `unsupported` (also filled by {@link defaultAnswer} when required). */
  readonly unsupportedProperties: readonly UnsupportedProperty[];
  /** Whether keys that are not fields are acceptable in an answer (tool schemas without `additionalProperties: false`). */
  readonly allowsExtraKeys: boolean;
  readonly title?: string;
  readonly description?: string;
}

export interface ParseOptions {
  /**
   * `elicitation` (default): an `elicitation/create` `requestedSchema`; an answer may only
   * contain the form's keys. `tool`: a tool's `inputSchema`; extra keys are allowed unless
   * `additionalProperties: false`.
   */
  readonly source?: 'elicitation' | 'tool';
}

export type FieldResult = { readonly ok: true; readonly value: FieldValue | undefined } | { readonly ok: false; readonly error: string };

export interface FormProblem {
  /** The field concerned (absent for problems with the answer as a whole). */
  readonly key?: string;
  readonly message: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const optString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const optCount = (v: unknown): number | undefined => (isFiniteNumber(v) && v >= 0 ? Math.floor(v) : undefined);
const optNumber = (v: unknown): number | undefined => (isFiniteNumber(v) ? v : undefined);
const isEnumValue = (v: unknown): v is EnumValue => typeof v === 'string' || isFiniteNumber(v) || typeof v === 'boolean';

const FORMATS: readonly StringFormat[] = ['email', 'uri', 'date', 'date-time'];

/** Keywords that only annotate a property; anything else unknown is ignored too, but these are expected. */
const COMPOSITION_KEYWORDS = ['$ref', 'allOf', 'not', 'if', 'then', 'else', 'patternProperties', 'dependentSchemas'];

// ---------------------------------------------------------------------------------------------
// parseForm

/**
 * Parses an elicitation `requestedSchema` (or a tool `inputSchema`) into form fields.
 * Never throws: whatever the form can't express is reported in `unsupported` (with the
 * properties it concerns in `unsupportedProperties`); the fields it could parse are returned anyway.
 */
export function parseForm(schema: unknown, options: ParseOptions = {}): ParsedForm {
  const source = options.source ?? 'elicitation';
  if (!isObject(schema)) {
    return { fields: [], unsupported: 'The schema is not a JSON object.', unsupportedProperties: [], allowsExtraKeys: false };
  }
  const title = optString(schema.title);
  const description = optString(schema.description);
  const base = { title, description };
  const rootType = schema.type;
  if (rootType !== undefined && rootType !== 'object') {
    return { ...base, fields: [], unsupported: `The schema describes ${describeType(rootType)}, not an object of fields.`, unsupportedProperties: [], allowsExtraKeys: false };
  }
  for (const kw of COMPOSITION_KEYWORDS) {
    if (kw in schema) {
      return { ...base, fields: [], unsupported: `The schema uses "${kw}", which the form can't express.`, unsupportedProperties: [], allowsExtraKeys: false };
    }
  }
  for (const kw of ['anyOf', 'oneOf']) {
    if (kw in schema) {
      return { ...base, fields: [], unsupported: `The schema uses a top-level "${kw}", which the form can't express.`, unsupportedProperties: [], allowsExtraKeys: false };
    }
  }
  const properties = schema.properties === undefined ? {} : schema.properties;
  if (!isObject(properties)) {
    return { ...base, fields: [], unsupported: '"properties" is not an object.', unsupportedProperties: [], allowsExtraKeys: false };
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === 'string') : []);
  const allowsExtraKeys = source === 'tool' && schema.additionalProperties !== false;

  const fields: FormField[] = [];
  const unsupportedProperties: UnsupportedProperty[] = [];
  for (const [key, prop] of Object.entries(properties)) {
    const parsed = parseProperty(key, prop, required.has(key));
    if ('reason' in parsed) unsupportedProperties.push({ key, required: required.has(key), reason: parsed.reason, schema: prop });
    else fields.push(parsed.field);
  }
  const problems = unsupportedProperties.map((p) => p.reason);
  // A required key with no property: the form can't ask for it.
  for (const key of required) {
    if (!(key in properties)) {
      const reason = `Field "${key}" is required but not described in "properties".`;
      problems.push(reason);
      unsupportedProperties.push({ key, required: true, reason, schema: {} });
    }
  }
  return {
    ...base,
    fields,
    unsupported: problems.length ? problems.join(' ') : undefined,
    unsupportedProperties,
    allowsExtraKeys,
  };
}

type PropertyParse = { field: FormField } | { reason: string };

function parseProperty(key: string, prop: unknown, required: boolean): PropertyParse {
  if (!isObject(prop)) return { reason: `Field "${key}" has no schema object.` };
  const unsupported = (why: string): PropertyParse => ({ reason: `Field "${key}" ${why}.` });
  for (const kw of COMPOSITION_KEYWORDS) if (kw in prop) return unsupported(`uses "${kw}"`);

  let nullable = false;
  let schema: Json = prop;
  // `anyOf: [{…}, {type: "null"}]` (Optional[...] in Python tool schemas): unwrap, keep the outer annotations.
  for (const kw of ['anyOf', 'oneOf'] as const) {
    const alts = prop[kw];
    if (!Array.isArray(alts) || alts.every((a) => isObject(a) && 'const' in a)) continue;
    const nonNull = alts.filter((a) => !(isObject(a) && a.type === 'null'));
    if (nonNull.length !== 1 || !isObject(nonNull[0])) return unsupported(`is a union of several types ("${kw}")`);
    nullable ||= nonNull.length < alts.length;
    const { [kw]: _alts, ...outer } = prop;
    schema = { ...nonNull[0], ...outer };
    for (const c of COMPOSITION_KEYWORDS) if (c in schema) return unsupported(`uses "${c}"`);
  }

  let type = schema.type;
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== 'null');
    if (nonNull.length !== 1) return unsupported(`allows several types (${type.join(', ')})`);
    nullable ||= nonNull.length !== type.length;
    type = nonNull[0];
  }
  // `const` alone: an enum of one.
  if (type === undefined && 'const' in schema && isEnumValue(schema.const)) type = typeof schema.const === 'number' ? 'number' : typeof schema.const;
  // `enum` without a type: infer it from the values.
  if (type === undefined && Array.isArray(schema.enum) && schema.enum.length > 0) {
    const kinds = new Set(schema.enum.filter((v) => v !== null).map((v) => typeof v));
    if (kinds.size === 1) type = [...kinds][0];
  }

  const base = {
    key,
    title: optString(schema.title),
    description: optString(schema.description),
    required,
    ...(nullable ? { nullable: true } : {}),
  };
  const defaultValue = schema.default === null ? undefined : schema.default;

  const enumOptions = optionsOf(schema);
  if (enumOptions && 'reason' in enumOptions) return unsupported(enumOptions.reason);

  switch (type) {
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean': {
      if (enumOptions) {
        const wrongType = enumOptions.options.find((o) => !valueMatchesType(o.value, type));
        if (wrongType) return unsupported(`has an option (${JSON.stringify(wrongType.value)}) that is not a ${type}`);
        return {
          field: {
            ...base,
            kind: 'enum',
            options: enumOptions.options,
            ...(isEnumValue(defaultValue) && enumOptions.options.some((o) => o.value === defaultValue) ? { default: defaultValue } : {}),
          },
        };
      }
      if (type === 'string') {
        const format = optString(schema.format);
        return {
          field: {
            ...base,
            kind: 'string',
            ...definedProps({
              minLength: optCount(schema.minLength),
              maxLength: optCount(schema.maxLength),
              format: FORMATS.includes(format as StringFormat) ? (format as StringFormat) : undefined,
              pattern: optString(schema.pattern),
              default: optString(defaultValue),
            }),
          },
        };
      }
      if (type === 'boolean') {
        return { field: { ...base, kind: 'boolean', ...definedProps({ default: typeof defaultValue === 'boolean' ? defaultValue : undefined }) } };
      }
      return {
        field: {
          ...base,
          kind: 'number',
          integer: type === 'integer',
          ...definedProps({
            minimum: optNumber(schema.minimum),
            maximum: optNumber(schema.maximum),
            // draft-04 wrote exclusiveMinimum: true next to minimum; later drafts give the bound itself.
            exclusiveMinimum: schema.exclusiveMinimum === true ? optNumber(schema.minimum) : optNumber(schema.exclusiveMinimum),
            exclusiveMaximum: schema.exclusiveMaximum === true ? optNumber(schema.maximum) : optNumber(schema.exclusiveMaximum),
            default: isFiniteNumber(defaultValue) ? defaultValue : undefined,
          }),
        },
      };
    }
    case 'array': {
      const items = schema.items;
      if (!isObject(items)) return unsupported(Array.isArray(items) ? 'is a tuple' : 'is a list without item schema');
      const itemOptions = optionsOf(items);
      if (!itemOptions) return unsupported(items.type === 'object' ? 'is a list of objects' : 'is a list of free values (not a multi-select of fixed options)');
      if ('reason' in itemOptions) return unsupported(`has items that ${itemOptions.reason}`);
      const defaults = Array.isArray(defaultValue) && defaultValue.every((v) => itemOptions.options.some((o) => o.value === v)) ? (defaultValue as EnumValue[]) : undefined;
      return {
        field: {
          ...base,
          kind: 'multiselect',
          options: itemOptions.options,
          ...definedProps({ minItems: optCount(schema.minItems), maxItems: optCount(schema.maxItems), default: defaults }),
        },
      };
    }
    case 'object':
      return unsupported('is a nested object');
    case 'null':
      return unsupported('can only be null');
    case undefined:
      return unsupported('has no "type"');
    default:
      return unsupported(`has an unknown type (${JSON.stringify(type)})`);
  }
}

/** The fixed options of an enum-like schema, or undefined when it has none. */
function optionsOf(schema: Json): { options: EnumOption[] } | { reason: string } | undefined {
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  if (titled && titled.length > 0 && titled.every((a) => isObject(a) && 'const' in a)) {
    const options: EnumOption[] = [];
    for (const a of titled as Json[]) {
      if (!isEnumValue(a.const)) return { reason: 'has an option whose value is not a string, number or boolean' };
      options.push({ value: a.const, title: optString(a.title) ?? String(a.const) });
    }
    return dedupe(options);
  }
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((v) => v !== null);
    if (values.length === 0) return { reason: 'has an empty "enum"' };
    if (!values.every(isEnumValue)) return { reason: 'has an "enum" value that is not a string, number or boolean' };
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return dedupe(values.map((value, i) => ({ value, title: optString(names[i]) ?? String(value) })));
  }
  if ('const' in schema && isEnumValue(schema.const)) return { options: [{ value: schema.const, title: optString(schema.title) ?? String(schema.const) }] };
  return undefined;
}

function dedupe(options: EnumOption[]): { options: EnumOption[] } {
  const seen = new Set<EnumValue>();
  return { options: options.filter((o) => (seen.has(o.value) ? false : (seen.add(o.value), true))) };
}

function valueMatchesType(v: EnumValue, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return Number.isInteger(v);
    default:
      return typeof v === 'number';
  }
}

function describeType(type: unknown): string {
  if (typeof type === 'string') return `a value of type "${type}"`;
  return `a value of type ${JSON.stringify(type)}`;
}

function definedProps<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

// ---------------------------------------------------------------------------------------------
// Labels

/** The name shown for a field: its title, else its key. */
export function fieldLabel(field: Pick<FormField, 'key' | 'title'>): string {
  return field.title?.trim() || field.key;
}

/** A short hint of what a field accepts, e.g. "integer between 1 and 5", "email address, required". */
export function describeField(field: FormField): string {
  const parts: string[] = [];
  switch (field.kind) {
    case 'string':
      parts.push(
        field.format === 'email'
          ? 'email address'
          : field.format === 'uri'
            ? 'URL'
            : field.format === 'date'
              ? 'date (YYYY-MM-DD)'
              : field.format === 'date-time'
                ? 'date and time (YYYY-MM-DDThh:mm:ssZ)'
                : 'text',
      );
      if (field.minLength !== undefined && field.maxLength !== undefined) parts.push(`${field.minLength}–${field.maxLength} characters`);
      else if (field.minLength !== undefined) parts.push(`at least ${plural(field.minLength, 'character')}`);
      else if (field.maxLength !== undefined) parts.push(`at most ${plural(field.maxLength, 'character')}`);
      break;
    case 'number':
      parts.push(rangeText(field));
      break;
    case 'boolean':
      parts.push('yes or no');
      break;
    case 'enum':
      parts.push(`one of: ${field.options.map((o) => o.title).join(', ')}`);
      break;
    case 'multiselect':
      parts.push(`${itemCountText(field) ?? 'any number'} of: ${field.options.map((o) => o.title).join(', ')}`);
      break;
  }
  parts.push(field.required ? 'required' : 'optional');
  return parts.join(', ');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** "a number", "an integer between 1 and 5", "a number greater than 0", … */
function rangeText(f: NumberField): string {
  const what = f.integer ? 'an integer' : 'a number';
  const lo = lowerBound(f);
  const hi = upperBound(f);
  if (lo && hi && lo.inclusive && hi.inclusive) return `${what} between ${fmt(lo.value)} and ${fmt(hi.value)}`;
  const bits: string[] = [];
  if (lo) bits.push(lo.inclusive ? `at least ${fmt(lo.value)}` : `greater than ${fmt(lo.value)}`);
  if (hi) bits.push(hi.inclusive ? `at most ${fmt(hi.value)}` : `less than ${fmt(hi.value)}`);
  return bits.length ? `${what} ${bits.join(' and ')}` : what;
}

function fmt(n: number): string {
  return String(n);
}

function lowerBound(f: NumberField): { value: number; inclusive: boolean } | undefined {
  const inc = f.minimum;
  const exc = f.exclusiveMinimum;
  if (exc !== undefined && (inc === undefined || exc >= inc)) return { value: exc, inclusive: false };
  return inc !== undefined ? { value: inc, inclusive: true } : undefined;
}

function upperBound(f: NumberField): { value: number; inclusive: boolean } | undefined {
  const inc = f.maximum;
  const exc = f.exclusiveMaximum;
  if (exc !== undefined && (inc === undefined || exc <= inc)) return { value: exc, inclusive: false };
  return inc !== undefined ? { value: inc, inclusive: true } : undefined;
}

function itemCountText(f: MultiSelectField): string | undefined {
  const { minItems: lo, maxItems: hi } = f;
  if (lo !== undefined && hi !== undefined) return lo === hi ? `exactly ${lo}` : `${lo} to ${hi}`;
  if (lo !== undefined && lo > 0) return `at least ${lo}`;
  if (hi !== undefined) return `at most ${hi}`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Validation of one value

/**
 * Checks a typed value against a field; returns a readable error, or undefined when valid.
 * (`undefined` — "left out" — is not a value: {@link validateAnswer} checks required-ness.)
 */
export function checkValue(field: FormField, value: unknown): string | undefined {
  if (value === null) return field.nullable ? undefined : 'Must not be empty (null)';
  switch (field.kind) {
    case 'string': {
      if (typeof value !== 'string') return `Must be text, not ${jsonTypeOf(value)}`;
      const length = [...value].length; // JSON Schema counts code points
      if (field.minLength !== undefined && field.maxLength !== undefined && (length < field.minLength || length > field.maxLength)) {
        return field.minLength === field.maxLength
          ? `Must be exactly ${plural(field.minLength, 'character')}`
          : `Must be between ${field.minLength} and ${field.maxLength} characters`;
      }
      if (field.minLength !== undefined && length < field.minLength) return `Must be at least ${plural(field.minLength, 'character')}`;
      if (field.maxLength !== undefined && length > field.maxLength) return `Must be at most ${plural(field.maxLength, 'character')}`;
      if (field.format) {
        const formatError = checkFormat(field.format, value);
        if (formatError) return formatError;
      }
      if (field.pattern !== undefined) {
        const re = compilePattern(field.pattern);
        if (re && !re.test(value)) return `Must match the pattern ${field.pattern}`;
      }
      return undefined;
    }
    case 'number': {
      if (!isFiniteNumber(value)) return `Must be ${field.integer ? 'an integer' : 'a number'}, not ${jsonTypeOf(value)}`;
      const lo = lowerBound(field);
      const hi = upperBound(field);
      const tooLow = lo && (lo.inclusive ? value < lo.value : value <= lo.value);
      const tooHigh = hi && (hi.inclusive ? value > hi.value : value >= hi.value);
      if ((field.integer && !Number.isInteger(value)) || tooLow || tooHigh) return `Must be ${rangeText(field)}`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `Must be true or false, not ${jsonTypeOf(value)}`;
    case 'enum':
      return field.options.some((o) => o.value === value) ? undefined : `Must be one of: ${field.options.map((o) => JSON.stringify(o.value)).join(', ')}`;
    case 'multiselect': {
      if (!Array.isArray(value)) return `Must be a list, not ${jsonTypeOf(value)}`;
      const unknown = value.filter((v) => !field.options.some((o) => o.value === v));
      if (unknown.length) return `Not an option: ${unknown.map((v) => JSON.stringify(v)).join(', ')} (choose from ${field.options.map((o) => JSON.stringify(o.value)).join(', ')})`;
      if (new Set(value).size !== value.length) return 'Each option may be chosen only once';
      const count = itemCountText(field);
      if ((field.minItems !== undefined && value.length < field.minItems) || (field.maxItems !== undefined && value.length > field.maxItems)) {
        return `Choose ${count}`;
      }
      return undefined;
    }
  }
}

function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a number';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'text';
  return `a ${typeof v}`;
}

const patternCache = new Map<string, RegExp | undefined>();
function compilePattern(pattern: string): RegExp | undefined {
  if (!patternCache.has(pattern)) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      try {
        re = new RegExp(pattern);
      } catch {
        re = undefined; // an invalid pattern is not the user's fault: don't enforce it
      }
    }
    patternCache.set(pattern, re);
  }
  return patternCache.get(pattern);
}

// RFC 5322 is far too lax for a form; this is the usual "something@domain.tld" check (like HTML's type=email).
const EMAIL_RE = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days;
}

function checkFormat(format: StringFormat, value: string): string | undefined {
  switch (format) {
    case 'email':
      return EMAIL_RE.test(value) ? undefined : 'Enter a valid email address (e.g. name@example.com)';
    case 'uri': {
      // An absolute URI: a scheme, then something (https://…, mailto:…, urn:…).
      if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value)) return 'Enter a valid URL with a scheme (e.g. https://example.com)';
      try {
        new URL(value);
        return undefined;
      } catch {
        return 'Enter a valid URL with a scheme (e.g. https://example.com)';
      }
    }
    case 'date': {
      const m = DATE_RE.exec(value);
      return m && validDate(+m[1]!, +m[2]!, +m[3]!) ? undefined : 'Enter a valid date as YYYY-MM-DD (e.g. 2025-11-25)';
    }
    case 'date-time': {
      const m = DATE_TIME_RE.exec(value);
      const ok =
        m &&
        validDate(+m[1]!, +m[2]!, +m[3]!) &&
        +m[4]! <= 23 &&
        +m[5]! <= 59 &&
        +m[6]! <= 60 &&
        (m[9] === undefined || (+m[9] <= 23 && +m[10]! <= 59));
      return ok ? undefined : 'Enter a valid date and time as YYYY-MM-DDThh:mm:ssZ (e.g. 2025-11-25T14:30:00Z)';
    }
  }
}

// ---------------------------------------------------------------------------------------------
// validateField: raw input → value

const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const TRUE_WORDS = ['true', 'yes', 'y', 'on', '1'];
const FALSE_WORDS = ['false', 'no', 'n', 'off', '0'];

/**
 * Converts what the user typed into a field's value, or explains what is wrong — for input-box
 * validation as the user types. Empty input means "leave it out": fine for optional fields
 * (`value: undefined`), an error for required ones.
 *
 * Multi-selects take a comma-separated list (or a JSON array); enums take an option's value or title.
 */
export function validateField(field: FormField, rawInput: string): FieldResult {
  const raw = field.kind === 'string' ? rawInput : rawInput.trim();
  if (raw === '' && !(field.kind === 'multiselect' && field.required && (field.minItems ?? 0) === 0)) {
    if (field.required) return { ok: false, error: `${fieldLabel(field)} is required` };
    return { ok: true, value: undefined };
  }
  let value: FieldValue;
  switch (field.kind) {
    case 'string':
      value = rawInput;
      break;
    case 'number': {
      if (!NUMBER_RE.test(raw)) return { ok: false, error: `Enter ${rangeText(field)}` };
      value = Number(raw);
      break;
    }
    case 'boolean': {
      const w = raw.toLowerCase();
      if (TRUE_WORDS.includes(w)) value = true;
      else if (FALSE_WORDS.includes(w)) value = false;
      else return { ok: false, error: 'Enter yes or no (true or false)' };
      break;
    }
    case 'enum': {
      const option = matchOption(field.options, raw);
      if (!option) return { ok: false, error: `Choose one of: ${field.options.map((o) => o.title).join(', ')}` };
      value = option.value;
      break;
    }
    case 'multiselect': {
      let parts: string[];
      if (raw.startsWith('[')) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          return { ok: false, error: 'Enter a comma-separated list or a JSON array' };
        }
        if (!Array.isArray(parsed)) return { ok: false, error: 'Enter a comma-separated list or a JSON array' };
        parts = parsed.map((p) => String(p));
      } else {
        parts = raw === '' ? [] : raw.split(',').map((p) => p.trim()).filter((p) => p !== '');
      }
      const values: EnumValue[] = [];
      for (const p of parts) {
        const option = matchOption(field.options, p);
        if (!option) return { ok: false, error: `"${p}" is not an option (choose from ${field.options.map((o) => o.title).join(', ')})` };
        values.push(option.value);
      }
      value = values;
      break;
    }
  }
  const error = checkValue(field, value);
  return error ? { ok: false, error } : { ok: true, value };
}

/** An option by exact value, then exact title, then case-insensitive value or title. */
function matchOption(options: readonly EnumOption[], input: string): EnumOption | undefined {
  const lower = input.toLowerCase();
  return (
    options.find((o) => String(o.value) === input) ??
    options.find((o) => o.title === input) ??
    options.find((o) => String(o.value).toLowerCase() === lower || o.title.toLowerCase() === lower)
  );
}

/** A value as the text {@link validateField} accepts back (to pre-fill an input box). */
export function formatFieldValue(field: FormField, value: unknown): string {
  if (value === undefined || value === null) return '';
  switch (field.kind) {
    case 'enum':
      return String(value);
    case 'multiselect':
      return Array.isArray(value) ? value.map(String).join(', ') : String(value);
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

// ---------------------------------------------------------------------------------------------
// validateAnswer

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
