/**
 * estimateProgramSize: an upper bound on the number of instructions RE2JS compiles a pattern to,
 * read from the pattern's text alone, before anything is compiled.
 *
 * Why not just compile and ask `programSize()`: compiling is itself the cost. RE2 expands counted
 * repetition (`x{1,1000}` is a thousand copies of `x`), so a 900-character pattern such as
 * `[a-z]{1,1000}` written 69 times compiles to 137,935 instructions, and the compile alone took
 * 0.6 s (an alternation of 80 `a{0,1000}` took 1.4 s) on the extension host's only thread.
 * RE2JS does not export its parser, so this walks the pattern once (RE2 syntax, as
 * `RE2JS.translateRegExp` writes it) and adds up what RE2's simplifier and compiler make of each
 * part, always rounding up: a literal character, a class, `.`, an escape or an assertion is one
 * instruction; a group two (its captures); `*`, `+`, `?` two more; `|` one more per branch; and a
 * counted repetition `{n,m}` multiplies what it repeats by `m` (or `n + 1` for `{n,}`), plus one
 * per copy. Overestimating only means a pattern goes unchecked by the form; the server still checks.
 * test/unit/forms/patternCost.test.ts holds that it never underestimates, against RE2JS itself.
 */

/** Instructions every program has besides its pattern's (start, match, fail, the unanchored loop). */
const PROGRAM_OVERHEAD = 8;

/** The bound (see above); `Infinity` once the product no longer fits a number. */
export function estimateProgramSize(re2Pattern: string): number {
  const scan = new Scan(re2Pattern);
  let size = PROGRAM_OVERHEAD;
  // A `)` with no `(` is an error RE2 reports at once (it parses before it expands); go on past it.
  for (;;) {
    size += scan.alternation();
    if (scan.done()) return size;
    scan.pos++;
    size += 1;
  }
}

class Scan {
  pos = 0;
  constructor(private readonly _p: string) {}

  done(): boolean {
    return this.pos >= this._p.length;
  }

  /** Branches separated by `|`, up to a `)` or the end. */
  alternation(): number {
    let size = this.sequence();
    while (this._p[this.pos] === '|') {
      this.pos++;
      size += 1 + this.sequence();
    }
    return size;
  }

  private sequence(): number {
    let size = 0;
    while (!this.done() && this._p[this.pos] !== '|' && this._p[this.pos] !== ')') {
      let atom = this.atom();
      // Quantifiers apply to what precedes them; several in a row (RE2 refuses most) multiply.
      for (let q = this.quantifier(); q !== undefined; q = this.quantifier()) {
        atom = q === 'simple' ? atom + 2 : q * (atom + 1) + 2;
      }
      size += atom;
    }
    return size;
  }

  /** `*`, `+`, `?` → 'simple'; `{n}`, `{n,}`, `{n,m}` → how many copies RE2 expands it to; each with an optional lazy `?`. */
  private quantifier(): 'simple' | number | undefined {
    const c = this._p[this.pos];
    if (c === '*' || c === '+' || c === '?') {
      this.pos++;
      if (this._p[this.pos] === '?') this.pos++;
      return 'simple';
    }
    if (c !== '{') return undefined;
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this._p.slice(this.pos, this.pos + 24));
    if (!m) return undefined; // a literal `{`: the next atom
    this.pos += m[0].length;
    if (this._p[this.pos] === '?') this.pos++;
    const min = Number(m[1]);
    const copies = m[2] === undefined ? min : m[3] === '' ? min + 1 : Math.max(min, Number(m[3]));
    return Math.max(copies, 1);
  }

  private atom(): number {
    const c = this._p[this.pos]!;
    if (c === '(') {
      this.pos++;
      const inner = this.alternation();
      if (this._p[this.pos] === ')') this.pos++;
      // `(?:`, `(?P<name>`, `(?=` …: their prefix was counted as literal characters, which only rounds up.
      return inner + 2;
    }
    if (c === '[') return this.charClass();
    if (c === '\\') return this.escape();
    this.pos++;
    return 1;
  }

  /** `[...]`, with `]` first taken literally, escapes and `[:alpha:]`: one instruction. */
  private charClass(): number {
    this.pos++;
    if (this._p[this.pos] === '^') this.pos++;
    if (this._p[this.pos] === ']') this.pos++;
    while (!this.done() && this._p[this.pos] !== ']') {
      if (this._p[this.pos] === '\\') this.pos += 2;
      else if (this._p.startsWith('[:', this.pos)) {
        const end = this._p.indexOf(':]', this.pos + 2);
        this.pos = end < 0 ? this.pos + 1 : end + 2;
      } else this.pos++;
    }
    this.pos++;
    return 1;
  }

  /** `\Q…\E` is literal text (one per character); any other escape is one instruction. */
  private escape(): number {
    const next = this._p[this.pos + 1];
    if (next === 'Q') {
      const end = this._p.indexOf('\\E', this.pos + 2);
      const stop = end < 0 ? this._p.length : end;
      const size = stop - (this.pos + 2);
      this.pos = end < 0 ? stop : end + 2;
      return Math.max(size, 1);
    }
    this.pos += 2;
    // `\x{…}`, `\p{…}`, `\P{…}`: skip the braces, so a `{` there is not read as a repetition.
    if ((next === 'x' || next === 'p' || next === 'P') && this._p[this.pos] === '{') {
      const end = this._p.indexOf('}', this.pos);
      this.pos = end < 0 ? this._p.length : end + 1;
    }
    return 1;
  }
}
