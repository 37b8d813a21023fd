/** checkValue: whether one typed value satisfies its field (type, range, length, pattern, format); used by validateField and validateAnswer. */
import { type FormField, isFiniteNumber, type StringFormat } from './formTypes.js';
import { itemCountText, lowerBound, plural, rangeText, upperBound } from './labels.js';
import { matchesPattern } from './patterns.js';

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
      if (field.pattern !== undefined && matchesPattern(field.pattern, value) === false) return `Must match the pattern ${field.pattern}`;
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

export function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a number';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'text';
  return `a ${typeof v}`;
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
