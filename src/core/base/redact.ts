/**
 * Keeps secrets out of logs. A {@link Redactor} knows the secret values of one server (the
 * `${input:…}` values it was started with, env values and headers of secret-looking names)
 * and scrubs them, plus anything that looks like a credential (Authorization and other
 * credential headers, bearer tokens, `token=…` pairs, passwords in URLs, JSON fields named
 * like secrets), from every string or JSON value before it is logged.
 *
 * {@link RedactingLog} wraps a {@link ServerLog}: every line of every level goes through the
 * redactor, so no caller can log around it.
 */
import type { ServerLog } from './log.js';

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/** Values shorter than this are not substituted (they would blank out ordinary words and numbers). */
export const MIN_SECRET_LENGTH = 4;

/** Substrings that make a name secret-looking, wherever they appear (`GITHUB_TOKEN`, `dbPassword`). */
const SECRET_SUBSTRINGS = ['token', 'secret', 'passw', 'credential', 'apikey', 'api_key', 'api-key', 'authoriz', 'cookie', 'bearer', 'privatekey', 'private_key', 'private-key', 'passphrase'];
/** Words that make a name secret-looking only as a whole word (`API_KEY`, `x-auth`, but not `KEYBOARD`, `author`). */
const SECRET_WORDS = new Set(['key', 'pass', 'auth', 'oauth', 'pat', 'jwt']);
/** Protocol and environment names that match the patterns but hold no secret. */
const NOT_SECRET = new Set(['progresstoken', 'maxtokens', 'tokens', 'pwd', 'oldpwd', 'ssh_auth_sock']);

/**
 * Whether a name (env var, header, JSON field, command-line flag) looks like it holds a secret:
 * TOKEN, SECRET, PASSWORD, CREDENTIAL, API_KEY, AUTHORIZATION, COOKIE… anywhere in it, or KEY,
 * PASS, AUTH… as a word of it. Case-insensitive; leading dashes of flags are ignored.
 */
export function isSecretName(name: string): boolean {
  if (name.length > MAX_REMEMBERED_NAME) return secretName(name);
  let secret = rememberedNames.get(name);
  if (secret === undefined) {
    secret = secretName(name);
    if (rememberedNames.size >= MAX_REMEMBERED_NAMES) rememberedNames.clear();
    rememberedNames.set(name, secret);
  }
  return secret;
}

/**
 * The answers for names met before: the same few field names come with every call's arguments
 * (bench: rev2026 host CPU per call). Short names only, and a bounded number of them.
 */
const rememberedNames = new Map<string, boolean>();
const MAX_REMEMBERED_NAMES = 1024;
const MAX_REMEMBERED_NAME = 64;

function secretName(name: string): boolean {
  const n = name.replace(/^-+/, '');
  const lower = n.toLowerCase();
  // Counts (`maxTokens`, `inputTokens`, `max_tokens`) are no secrets.
  if (!lower || NOT_SECRET.has(lower) || lower.endsWith('tokens')) return false;
  if (SECRET_SUBSTRINGS.some((s) => lower.includes(s))) return true;
  // Words of snake_case, kebab-case, dotted and camelCase names.
  const words = n
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+|\s+/)
    .map((w) => w.toLowerCase());
  return words.some((w) => SECRET_WORDS.has(w));
}

/** Header names whose value is always a credential, whatever else the name says. */
const CREDENTIAL_HEADERS = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token|x-access-token|x-csrf-token|x-amz-security-token)$/i;

/** Whether an HTTP header's value is a credential. */
export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.test(name) || isSecretName(name);
}

/** The secrets in one header value: the whole value, and the credential of `Bearer …`/`Basic …`. */
export function headerSecrets(value: string): string[] {
  const m = /^\s*(?:bearer|basic|token|digest)\s+(.+)$/i.exec(value);
  return m ? [value, m[1]!.trim()] : [value];
}

// --- patterns for secrets whose value is not known ---------------------------------------

/** `Authorization: Bearer x`, `Cookie: a=b; c=d` (a header line, up to the end of the line or a quote). */
const HEADER_LINE = /\b(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token|x-access-token)(\s*:\s*)([^\r\n"']+)/gi;
/** `Bearer abc…`, `Basic dXNlcjpw…` with a credential of 8+ characters. */
const SCHEME_CREDENTIAL = /\b(bearer|basic)(\s+)([A-Za-z0-9\-._~+/]{8,}=*)/gi;
/** `https://user:password@host`. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:)([^@\s/]+)(@)/gi;
/**
 * Credentials recognisable by their shape alone, whatever names them: GitHub (`ghp_…`,
 * `github_pat_…`), GitLab (`glpat-…`), OpenAI/Anthropic-style (`sk-…`), Slack (`xoxb-…`), AWS
 * access key ids (`AKIA…`), Google API keys (`AIza…`) and JWTs (`eyJ….eyJ….…`). Each needs a
 * long run after its prefix, so ordinary words are left as they are.
 */
const KNOWN_TOKEN = /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)/g;
/** `"name": "value"` inside JSON text. */
const JSON_PAIR = /("(?:[^"\\]|\\.){1,100}")(\s*:\s*)("(?:[^"\\]|\\.)*")/g;
/** The `name=`, `--name=`, `name: ` of a pair in free text (not the `https:` of a URL). */
const NAME_SEP = /(?<![\w-])(-{0,2}[A-Za-z_][\w.-]{0,80})(=|:(?!\/\/)[ \t]*)/g;
/** The value after {@link NAME_SEP}: up to a space, quote, separator or closing bracket. */
const PAIR_VALUE = /[^\s&"',;)}\]]+/y;

/** `token=x`, `--password=x`, `client_secret: x`: the values of secret-looking names. */
function redactNameValues(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(NAME_SEP)) {
    const start = m.index + m[0].length;
    if (start <= last || !isSecretName(m[1]!) || text.startsWith(REDACTED, start)) continue;
    PAIR_VALUE.lastIndex = start;
    const value = PAIR_VALUE.exec(text);
    if (!value) continue;
    out += `${text.slice(last, start)}${REDACTED}`;
    last = start + value[0].length;
  }
  return last === 0 ? text : out + text.slice(last);
}

/**
 * The shortest text {@link SCHEME_CREDENTIAL} or {@link KNOWN_TOKEN} can match (`basic` and a
 * space before 8 characters); every other pattern needs a `:` or a `=`.
 */
const SHORTEST_BARE_MATCH = 14;

/** Scrubs credential-looking parts of a text whose secret values are not known. */
export function redactPatterns(text: string): string {
  // A short word with no separator (most argument values and every usual field name) matches no
  // pattern: left as it is without running them (bench: rev2026 host CPU per call; a call's arguments are summarized).
  if (text.length < SHORTEST_BARE_MATCH && !text.includes(':') && !text.includes('=')) return text;
  const scrubbed = text
    .replace(HEADER_LINE, (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`)
    .replace(SCHEME_CREDENTIAL, (_m, scheme: string, sep: string) => `${scheme}${sep}${REDACTED}`)
    .replace(URL_PASSWORD, (_m, before: string, _pw: string, at: string) => `${before}${REDACTED}${at}`)
    .replace(KNOWN_TOKEN, REDACTED)
    .replace(JSON_PAIR, (m, key: string, sep: string) => {
      let name: unknown;
      try {
        name = JSON.parse(key);
      } catch {
        return m;
      }
      return typeof name === 'string' && isSecretName(name) ? `${key}${sep}"${REDACTED}"` : m;
    });
  return redactNameValues(scrubbed);
}

/**
 * The secret values of one server, and the scrubbing of any text or JSON value before it is
 * logged. Secrets only accumulate (a restart with a new input value keeps the old one hidden).
 */
export class Redactor {
  private readonly _secrets = new Set<string>();
  /** Every form a secret can take in a log line, longest first. */
  private _forms: string[] = [];

  /** Adds secret values (shorter than {@link MIN_SECRET_LENGTH} or blank ones are ignored). */
  add(values: Iterable<string | undefined | null>): void {
    let changed = false;
    for (const v of values) {
      if (typeof v !== 'string' || v.trim().length < MIN_SECRET_LENGTH || this._secrets.has(v)) continue;
      this._secrets.add(v);
      changed = true;
    }
    if (!changed) return;
    const forms = new Set<string>();
    for (const s of this._secrets) {
      forms.add(s);
      forms.add(JSON.stringify(s).slice(1, -1)); // as it appears inside JSON text
      forms.add(encodeURIComponent(s)); // in a URL
      forms.add(JSON.stringify(JSON.stringify(s).slice(1, -1)).slice(1, -1)); // JSON inside JSON (an error message quoting a body)
    }
    this._forms = [...forms].filter((f) => f.trim().length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  }

  /**
   * A string redacted, then cut to `max` characters. Only a prefix long enough to hold any
   * secret that starts before the cut is scanned (a 50 MB message costs no more than a short one).
   */
  private _redactString(text: string, max: number): string {
    if (text.length <= max) return this.redactText(text);
    const longest = this._forms[0]?.length ?? 0;
    const scanned = this.redactText(text.slice(0, max + longest + 256));
    return `${scanned.slice(0, max)}… (${text.length} chars)`;
  }

  /** How many secret values are known. */
  get size(): number {
    return this._secrets.size;
  }

  /** The text with every known secret and every credential-looking part replaced by {@link REDACTED}. */
  redactText(text: string): string {
    let out = text;
    for (const f of this._forms) if (out.includes(f)) out = out.split(f).join(REDACTED);
    return redactPatterns(out);
  }

  /**
   * A copy of a JSON value with every string redacted and the value of every field named like
   * a secret (`password`, `apiKey`, `Authorization`…) replaced, whatever its content: under such
   * a field every string and number is replaced, however deep (`token: { value: "…" }`), and
   * only the shape is kept. What nests deeper than 64 levels is replaced whole, never copied
   * unscrubbed. The one scrubbing of logged JSON and of a tool call's arguments (requestor/trackerUtil.ts).
   */
  redactValue(value: unknown, depth = 0, maxString = Infinity): unknown {
    return this._redactValue(value, depth, maxString, false);
  }

  private _redactValue(value: unknown, depth: number, maxString: number, secret: boolean): unknown {
    if (secret && (typeof value === 'string' || typeof value === 'number')) return REDACTED;
    if (typeof value === 'string') return this._redactString(value, maxString);
    if (value === null || typeof value !== 'object') return value;
    if (depth > 64) return REDACTED;
    if (Array.isArray(value)) return value.map((v) => this._redactValue(v, depth + 1, maxString, secret));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[this.redactText(k)] = this._redactValue(v, depth + 1, maxString, secret || isSecretName(k));
    }
    return out;
  }
}

/**
 * A command line for the log, with the values of secret-looking flags hidden
 * (`--token=x` → `--token=[redacted]`, `--password x` → `--password [redacted]`).
 * Known secret values are hidden by the log's redactor afterwards.
 */
export function describeCommandLine(command: string, args: readonly string[]): string {
  const out = [command];
  let hideNext = false;
  for (const arg of args) {
    if (hideNext && !arg.startsWith('-')) {
      out.push(REDACTED);
      hideNext = false;
      continue;
    }
    hideNext = false;
    const eq = /^(-{1,2}[^=\s]+)=(.*)$/s.exec(arg);
    if (eq) {
      out.push(isSecretName(eq[1]!) ? `${eq[1]}=${REDACTED}` : arg);
    } else {
      if (/^-{1,2}[A-Za-z]/.test(arg) && isSecretName(arg)) hideNext = true;
      out.push(/\s/.test(arg) ? JSON.stringify(arg) : arg);
    }
  }
  return out.join(' ');
}

/** `NAME=value, OTHER=[redacted]` for an env map (values of secret-looking names hidden). */
export function describeEnv(env: Readonly<Record<string, string | null>>): string {
  return Object.entries(env)
    .map(([k, v]) => (v === null ? `${k} unset` : `${k}=${isSecretName(k) ? REDACTED : v}`))
    .join(', ');
}

/**
 * `Name=value, Authorization=[redacted]` for headers (credential headers hidden). `=` rather than
 * `: `: a header line pattern hides everything up to the end of the line after `Authorization: `.
 */
export function describeHeaders(headers: Readonly<Record<string, string>>): string {
  return Object.entries(headers)
    .map(([k, v]) => `${k}=${isCredentialHeader(k) ? REDACTED : v}`)
    .join(', ');
}

/**
 * A {@link ServerLog} whose every line, at every level, is redacted first. Share one per
 * server (its {@link Redactor} collects that server's secrets) between everything that logs
 * for it.
 */
export class RedactingLog implements ServerLog {
  constructor(
    readonly inner: ServerLog,
    readonly redactor: Redactor = new Redactor(),
  ) {}

  get traceEnabled(): boolean | undefined {
    return this.inner.traceEnabled;
  }

  trace(message: string): void {
    this.inner.trace(this.redactor.redactText(message));
  }
  debug(message: string): void {
    this.inner.debug(this.redactor.redactText(message));
  }
  info(message: string): void {
    this.inner.info(this.redactor.redactText(message));
  }
  warn(message: string): void {
    this.inner.warn(this.redactor.redactText(message));
  }
  error(message: string): void {
    this.inner.error(this.redactor.redactText(message));
  }

  /**
   * Logs a JSON value at trace level: redacted field by field first (so a secret escaped inside
   * JSON, or a field named `password`, is caught), then serialized and cut to `max` characters
   * — in that order, so a cut never leaves half a secret behind.
   */
  traceJson(prefix: string, value: unknown, max = 4000): void {
    if (this.inner.traceEnabled === false) return;
    const s = JSON.stringify(this.redactor.redactValue(value, 0, max)) ?? String(value);
    this.trace(`${prefix}${s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s}`);
  }
}

/** The log itself if it already redacts, else a redacting wrapper around it. */
export function redactingLog(log: ServerLog): RedactingLog {
  return log instanceof RedactingLog ? log : new RedactingLog(log);
}
