/** validateField: raw text the user typed → typed value or a readable error; and back (formatFieldValue). */
import { checkValue } from './validation.js';
import type { EnumOption, EnumValue, FieldResult, FieldValue, FormField } from './formTypes.js';
import { fieldLabel, rangeText } from './labels.js';

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
