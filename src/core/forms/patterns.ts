/** patternCheck and matchesPattern: a server's `pattern` on RE2JS, with every step of its cost bounded (the bounds and their figures below). */
import { RE2JS } from 're2js';
import { estimateProgramSize } from './patternCost.js';

/**
 * A `pattern` comes from the server (a tool's input schema, an elicitation schema) and is checked
 * against text as it is typed, and against a default at once. JavaScript's own `RegExp` backtracks:
 * `^(a|a)+$` takes time doubling with each character of the input, and a schema with a
 * 25-character default hung the extension host for about a second, a longer one for ever.
 *
 * So patterns run on RE2JS (`re2js`, pure JavaScript, no native code): RE2's automata, whose time
 * is linear in the input for every pattern, checked by its authors' fuzzers against `RegExp` and
 * Go's `regexp`. What RE2 cannot express (backreferences, lookahead) is not checked — as for an
 * invalid pattern, the form does not enforce it and the server still validates what it gets.
 *
 * Linear in the input is not cheap: the cost is the input times the compiled program, and RE2
 * expands counted repetition, so a 900-character pattern (`[a-z]{1,1000}` 69 times) compiles to
 * 137,935 instructions in 0.6 s and then took 39 s against a 3,000-character default. So every
 * step is bounded, and a pattern past a bound is not enforced here (the form says so, see
 * {@link patternCheck}; the server checks it):
 * - a pattern longer than {@link MAX_PATTERN_CHARS} is never parsed;
 * - a pattern whose program, estimated from its text (patternCost.ts, never less than RE2JS's own
 *   count), exceeds {@link MAX_ESTIMATED_PROGRAM} is never compiled. Compiling took 0.5–3 µs
 *   per instruction here, so at most about 12 ms;
 * - a compiled pattern checks a value only while length × program × (800 + program) stays under
 *   {@link MAX_PATTERN_WORK}. Measured on one core (Node 20, the first check of a fresh program,
 *   which is the slow one: later ones reuse the lazy DFA's states), worst of three inputs
 *   (`a`×3000, `ab`×1500, `a`×2999 + `!`): `^(?:.{0,50}a){5}$` (509 instructions) 59 ms,
 *   `^[a-z]{1,50}`×10 (994) 107 ms, ×20 (1,984) 573 ms, ×30 (2,974) 1,350 ms; so time grows
 *   faster than the program (the lazy DFA's states get bigger too), within
 *   0.05 ns × length × program × (800 + program), and the bound keeps one check under about 20 ms;
 * - a compiled program that could not check even {@link MIN_CHECKED_VALUE_CHARS} characters
 *   that way (about 900 instructions) counts as too complex, as if it had not compiled.
 * With a value longer than {@link MAX_PATTERN_INPUT_CHARS}, or past its program's bound, only
 * that value goes unchecked. Ordinary patterns are far from these bounds: `^[a-z0-9_-]+$` is 6
 * instructions (values up to 10,000 characters), an email pattern with two `{0,61}` is 259 (up
 * to 1,459 characters).
 *
 * We chose this over rejecting "dangerous" patterns (nested quantifiers, backreferences) and
 * keeping `RegExp`: telling a safe pattern from a catastrophic one is itself a hard problem (star
 * height is not enough: `(a|a)+` has one quantifier), and a wrong guess hangs the host; over a
 * worker with a timeout: validation runs synchronously on every keystroke of an input box.
 */
export const MAX_PATTERN_CHARS = 1000;
/** Longest value checked against a pattern (characters), however small its program. */
export const MAX_PATTERN_INPUT_CHARS = 10_000;
/** Largest program compiled, as estimated from the pattern's text (instructions). */
export const MAX_ESTIMATED_PROGRAM = 4000;
/** What one check may cost: value length × program × (800 + program) (see above: about 20 ms). */
export const MAX_PATTERN_WORK = 400_000_000;
/** A program that cannot check values this long within MAX_PATTERN_WORK is too complex. */
export const MIN_CHECKED_VALUE_CHARS = 256;
/** Compiled patterns kept (a server can send any number of them). */
const MAX_CACHED_PATTERNS = 100;

/**
 * Whether the form checks a pattern: `checked` up to `maxValueChars` characters (a longer value
 * is left to the server), or `unchecked` and why.
 */
export type PatternCheck =
  | { readonly kind: 'checked'; readonly programSize: number; readonly maxValueChars: number }
  | { readonly kind: 'unchecked'; readonly reason: 'too-long' | 'too-complex' | 'unsupported' };

interface Compiled {
  readonly check: PatternCheck;
  readonly re?: RE2JS;
}

const patternCache = new Map<string, Compiled>();
const TOO_LONG: Compiled = { check: { kind: 'unchecked', reason: 'too-long' } };
const TOO_COMPLEX: Compiled = { check: { kind: 'unchecked', reason: 'too-complex' } };
const UNSUPPORTED: Compiled = { check: { kind: 'unchecked', reason: 'unsupported' } };

/** Whether (and up to which length) the form checks `pattern`; compiles it at most once (cached). */
export function patternCheck(pattern: string): PatternCheck {
  return compilePattern(pattern).check;
}

/** Whether `value` matches `pattern`; undefined when it cannot be checked (see above). */
export function matchesPattern(pattern: string, value: string): boolean | undefined {
  const { check, re } = compilePattern(pattern);
  if (check.kind !== 'checked' || !re || value.length > check.maxValueChars) return undefined;
  return re.test(value);
}

function compilePattern(pattern: string): Compiled {
  // Not cached: a server could fill the cache with megabyte keys.
  if (pattern.length > MAX_PATTERN_CHARS) return TOO_LONG;
  const cached = patternCache.get(pattern);
  if (cached) return cached;
  const compiled = compileBounded(pattern);
  if (patternCache.size >= MAX_CACHED_PATTERNS) patternCache.delete(patternCache.keys().next().value!);
  patternCache.set(pattern, compiled);
  return compiled;
}

function compileBounded(pattern: string): Compiled {
  let re: RE2JS;
  try {
    const translated = RE2JS.translateRegExp(pattern);
    if (estimateProgramSize(translated) > MAX_ESTIMATED_PROGRAM) return TOO_COMPLEX;
    re = RE2JS.compile(translated);
  } catch {
    return UNSUPPORTED; // invalid, or not expressible in RE2: not the user's fault, so not enforced
  }
  const programSize = re.programSize();
  const maxValueChars = Math.min(MAX_PATTERN_INPUT_CHARS, Math.floor(MAX_PATTERN_WORK / (programSize * (800 + programSize))));
  if (maxValueChars < MIN_CHECKED_VALUE_CHARS) return TOO_COMPLEX;
  return { check: { kind: 'checked', programSize, maxValueChars }, re };
}
