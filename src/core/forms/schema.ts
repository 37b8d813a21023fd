/** parseForm: an elicitation `requestedSchema` (or a tool's `inputSchema`) → typed fields, or why the form cannot express it. */
import { COMPOSITION_KEYWORDS, type EnumOption, type EnumValue, FORMATS, type FormField, isEnumValue, isFiniteNumber, isObject, type Json, optCount, optNumber, optString, type ParsedForm, type ParseOptions, type StringFormat, type UnsupportedProperty } from './formTypes.js';

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

export function parseProperty(key: string, prop: unknown, required: boolean): PropertyParse {
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
