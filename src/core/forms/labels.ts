/** Labels and hints of form fields, as the UI shows them. */
import type { FormField, MultiSelectField, NumberField } from './formTypes.js';
import { patternCheck } from './patterns.js';

/** The name shown for a field: its title, else its key. */
export function fieldLabel(field: Pick<FormField, 'key' | 'title'>): string {
  return field.title?.trim() || field.key;
}

/**
 * A short hint of what a field accepts, e.g. "integer between 1 and 5", "email address, required";
 * then, for a pattern the form does not check, a sentence saying so.
 */
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
  const note = field.kind === 'string' && field.pattern !== undefined ? uncheckedPatternNote(field.pattern) : undefined;
  return note ? `${parts.join(', ')}. ${note}.` : parts.join(', ');
}

/**
 * Why the form does not check a field's pattern (the server does), or undefined when it does.
 * The pattern itself is not shown: it may be a megabyte long.
 */
export function uncheckedPatternNote(pattern: string): string | undefined {
  const check = patternCheck(pattern);
  if (check.kind === 'checked') return undefined;
  switch (check.reason) {
    case 'too-long':
      return "The server's pattern is too long to check here; the server checks it";
    case 'too-complex':
      return "The server's pattern is too complex to check here; the server checks it";
    case 'unsupported':
      return "The server's pattern cannot be checked here; the server checks it";
  }
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** "a number", "an integer between 1 and 5", "a number greater than 0", … */
export function rangeText(f: NumberField): string {
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

export function lowerBound(f: NumberField): { value: number; inclusive: boolean } | undefined {
  const inc = f.minimum;
  const exc = f.exclusiveMinimum;
  if (exc !== undefined && (inc === undefined || exc >= inc)) return { value: exc, inclusive: false };
  return inc !== undefined ? { value: inc, inclusive: true } : undefined;
}

export function upperBound(f: NumberField): { value: number; inclusive: boolean } | undefined {
  const inc = f.maximum;
  const exc = f.exclusiveMaximum;
  if (exc !== undefined && (inc === undefined || exc <= inc)) return { value: exc, inclusive: false };
  return inc !== undefined ? { value: inc, inclusive: true } : undefined;
}

export function itemCountText(f: MultiSelectField): string | undefined {
  const { minItems: lo, maxItems: hi } = f;
  if (lo !== undefined && hi !== undefined) return lo === hi ? `exactly ${lo}` : `${lo} to ${hi}`;
  if (lo !== undefined && lo > 0) return `at least ${lo}`;
  if (hi !== undefined) return `at most ${hi}`;
  return undefined;
}
