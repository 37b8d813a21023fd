/** Types of a parsed form (fields, options, results) and the JSON helpers the form modules share. */

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

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const optString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const optCount = (v: unknown): number | undefined => (isFiniteNumber(v) && v >= 0 ? Math.floor(v) : undefined);
export const optNumber = (v: unknown): number | undefined => (isFiniteNumber(v) ? v : undefined);
export const isEnumValue = (v: unknown): v is EnumValue => typeof v === 'string' || isFiniteNumber(v) || typeof v === 'boolean';

export const FORMATS: readonly StringFormat[] = ['email', 'uri', 'date', 'date-time'];

/** Keywords that only annotate a property; anything else unknown is ignored too, but these are expected. */
export const COMPOSITION_KEYWORDS = ['$ref', 'allOf', 'not', 'if', 'then', 'else', 'patternProperties', 'dependentSchemas'];
