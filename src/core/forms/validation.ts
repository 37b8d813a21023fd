/** checkValue: whether one typed value satisfies its field (type, range, length, pattern, format); used by validateField and validateAnswer. */
import { RE2JS } from 're2js';
import { type FormField, isFiniteNumber, type StringFormat } from './formTypes.js';
import { itemCountText, lowerBound, plural, rangeText, upperBound } from './labels.js';

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

/**
 * A `pattern` comes from the server (a tool's input schema, an elicitation schema) and is checked
 * against text as it is typed, and against a default at once. JavaScript's own `RegExp` backtracks:
 * `^(a|a)+$` takes time doubling with each character of the input, and a schema with a
 * 25-character default hung the extension host for about a second, a longer one for ever.
 *
 * So patterns run on RE2JS (`re2js`, pure JavaScript, no native code): RE2's automata, whose time
 * is linear in the input for every pattern, checked by its authors' fuzzers against `RegExp` and
 * Go's `regexp`. Both sizes are capped too, as a linear engine is still O(input × pattern): a
 * pattern longer than {@link MAX_PATTERN_CHARS} or a value longer than {@link MAX_PATTERN_INPUT_CHARS}
 * is not checked. What RE2 cannot express (backreferences, lookahead) is not checked either — as for
 * an invalid pattern, the form does not enforce it and the server still validates what it gets.
 *
 * We chose this over rejecting "dangerous" patterns (nested quantifiers, backreferences) and
 * keeping `RegExp`: telling a safe pattern from a catastrophic one is itself a hard problem (star
 * height is not enough: `(a|a)+` has one quantifier), and a wrong guess hangs the host; over a
 * worker with a timeout: validation runs synchronously on every keystroke of an input box.
 */
export const MAX_PATTERN_CHARS = 1000;
/** Longest value checked against a pattern (characters). */
export const MAX_PATTERN_INPUT_CHARS = 10_000;
/** Compiled patterns kept (a server can send any number of them). */
const MAX_CACHED_PATTERNS = 100;

const patternCache = new Map<string, RE2JS | undefined>();

/** Whether `value` matches `pattern`; undefined when it cannot be checked (see above). */
export function matchesPattern(pattern: string, value: string): boolean | undefined {
  if (value.length > MAX_PATTERN_INPUT_CHARS) return undefined;
  const re = compilePattern(pattern);
  return re ? re.test(value) : undefined;
}

function compilePattern(pattern: string): RE2JS | undefined {
  if (patternCache.has(pattern)) return patternCache.get(pattern);
  let re: RE2JS | undefined;
  if (pattern.length <= MAX_PATTERN_CHARS) {
    try {
      re = RE2JS.compile(RE2JS.translateRegExp(pattern));
    } catch {
      re = undefined; // invalid, or not expressible in RE2: not the user's fault, so not enforced
    }
  }
  if (patternCache.size >= MAX_CACHED_PATTERNS) patternCache.delete(patternCache.keys().next().value!);
  patternCache.set(pattern, re);
  return re;
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
