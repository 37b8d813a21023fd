/**
 * The one sentence a malformed request from a server is answered with (-32602, Invalid params):
 * the method, the field and what was expected — "sampling/createMessage: params.messages is
 * required (expected an array)" — instead of the validator's JSON list of issues, which a server
 * author cannot read at a glance and which may run to kilobytes over several lines.
 *
 * The issues are zod's (the SDK's schemas are zod), read through their documented fields only.
 * Field names and values in the sentence come from the request, that is from the server: they are
 * shortened and put on one line, so the sentence stays one line whatever the server sent.
 */
import { InvalidParamsError } from './errors.js';

/** One zod issue, as far as the sentence reads it. */
export interface ParamIssue {
  readonly code?: string;
  readonly path: ReadonlyArray<PropertyKey>;
  readonly message: string;
  readonly expected?: unknown;
  readonly values?: readonly unknown[];
  readonly minimum?: unknown;
  readonly maximum?: unknown;
  readonly inclusive?: boolean;
  readonly origin?: string;
  readonly format?: string;
  readonly keys?: readonly string[];
  /** An `invalid_union`: the issues of each alternative. */
  readonly errors?: ReadonlyArray<ReadonlyArray<ParamIssue>>;
}

/** A zod error, or what stands for one: its list of issues. */
export interface ParamIssues {
  readonly issues: ReadonlyArray<ParamIssue>;
}

/** Longest field path, and longest piece of server text, the sentence quotes. */
const MAX_PATH = 120;
const MAX_QUOTE = 40;

/**
 * The -32602 error for `request` (the whole JSON-RPC request: paths start at `params`) that failed
 * `error`'s checks. `method` is the method as this host serves it (never the server's text).
 */
export function invalidParams(method: string, error: ParamIssues, request: unknown): InvalidParamsError {
  return new InvalidParamsError(paramsSentence(method, error.issues, request));
}

/** The sentence {@link invalidParams} answers with: the first issue, on one line. */
export function paramsSentence(method: string, issues: ReadonlyArray<ParamIssue>, request: unknown): string {
  const issue = issues[0];
  if (!issue) return `${method}: the params are invalid`;
  return `${method}: ${describe(issue, [], request)}`;
}

/**
 * The issues of a validation error the SDK raised with zod's text as its message (`String(zodError)`:
 * the issues as JSON, after an optional "Invalid … request: " lead), or undefined for any other error.
 */
export function sdkValidationIssues(e: unknown): ParamIssue[] | undefined {
  const message = (e as { message?: unknown } | undefined)?.message;
  if (typeof message !== 'string') return undefined;
  const start = message.indexOf('[');
  if (start < 0 || !/^(?:[A-Za-z ]*request: )?$/.test(message.slice(0, start))) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.slice(start));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  return parsed.every((i) => typeof i === 'object' && i !== null && Array.isArray((i as ParamIssue).path) && typeof (i as ParamIssue).message === 'string') ? (parsed as ParamIssue[]) : undefined;
}

function describe(issue: ParamIssue, prefix: ReadonlyArray<PropertyKey>, request: unknown): string {
  const path = [...prefix, ...issue.path];
  const where = fieldName(path);
  const value = valueAt(request, path);
  switch (issue.code) {
    case 'invalid_type':
      return value === undefined ? `${where} is required (expected ${typeName(issue.expected)})` : `${where} must be ${typeName(issue.expected)}, not ${kindOf(value)}`;
    case 'invalid_value': {
      const allowed = (issue.values ?? []).slice(0, 5).map((v) => quote(JSON.stringify(v) ?? String(v))).join(' or ');
      return value === undefined ? `${where} is required (expected ${allowed})` : `${where} must be ${allowed}`;
    }
    case 'too_small':
    case 'too_big':
      return `${where} ${bound(issue)}`;
    case 'invalid_format':
      return `${where} must be a valid ${oneLine(String(issue.format ?? 'value'))}`;
    case 'unrecognized_keys':
      return `${where} has unknown fields: ${(issue.keys ?? []).slice(0, 3).map((k) => quote(JSON.stringify(k))).join(', ')}`;
    case 'invalid_union': {
      const branch = likeliestBranch(issue.errors ?? []);
      if (branch?.[0]) return describe(branch[0], path, request);
      return value === undefined ? `${where} is required` : `${where} matches none of the accepted forms`;
    }
    default:
      return `${where} is invalid (${quote(issue.message, MAX_PATH)})`;
  }
}

/**
 * Of a union's alternatives, the one the request most likely meant: the fewest issues, one whose
 * literal (a `mode`, a `type`) does not match counting as the wrong alternative altogether.
 */
function likeliestBranch(branches: ReadonlyArray<ReadonlyArray<ParamIssue>>): ReadonlyArray<ParamIssue> | undefined {
  let best: ReadonlyArray<ParamIssue> | undefined;
  let bestScore = Infinity;
  for (const branch of branches) {
    const score = branch.length + (branch.some((i) => i.code === 'invalid_value') ? 1_000 : 0);
    if (branch.length > 0 && score < bestScore) {
      best = branch;
      bestScore = score;
    }
  }
  return best;
}

function bound(issue: ParamIssue): string {
  const small = issue.code === 'too_small';
  const limit = String(small ? issue.minimum : issue.maximum);
  switch (issue.origin) {
    case 'array':
    case 'set':
      return `must have ${small ? 'at least' : 'at most'} ${limit} item${limit === '1' ? '' : 's'}`;
    case 'string':
      return `must be ${small ? 'at least' : 'at most'} ${limit} character${limit === '1' ? '' : 's'} long`;
    default:
      return `must be ${issue.inclusive === false ? (small ? 'greater than' : 'less than') : small ? 'at least' : 'at most'} ${limit}`;
  }
}

/** `params.messages[0].content`; a key that is no plain name is quoted, the whole path shortened. */
function fieldName(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return 'the request';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && /^[A-Za-z_$][\w$-]*$/.test(seg) && seg.length <= MAX_QUOTE) out += out ? `.${seg}` : seg;
    else out += `[${quote(JSON.stringify(String(seg)))}]`;
  }
  return out.length > MAX_PATH ? `${out.slice(0, MAX_PATH)}…` : out;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let value = root;
  for (const seg of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[seg];
  }
  return value;
}

const TYPE_NAMES: Readonly<Record<string, string>> = { int: 'an integer', record: 'an object', object: 'an object', array: 'an array', nonoptional: 'a value', undefined: 'nothing' };

function typeName(expected: unknown): string {
  const name = oneLine(String(expected ?? 'value'));
  return TYPE_NAMES[name] ?? `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return 'a fractional number';
  return typeName(typeof value);
}

/** Server text on one line and short. */
function quote(text: string, max = MAX_QUOTE): string {
  const line = oneLine(text);
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}
