// Glob matching in time linear in the pattern times the path. picomatch compiles a glob to a
// regular expression, and V8's backtracking makes `*a*a*a*a*a*a*a*a*a*a` against a 41-character
// name take 15 s; validation runs as the user types and merge-back on the engine's thread, so
// neither may hang on a pattern. Same syntax as picomatch for what plans use: `*`, `?`, `**` as a
// whole segment, `[…]` classes (ranges, `!`/`^`, POSIX names), `{a,b}` and `{1..3}` braces,
// backslash escapes and a leading `!`. Extglobs (`+(…)`, `@(…)`…) are refused, not guessed at.

export interface GlobOptions {
  /** Let `*`, `?` and `**` match names that start with a dot (picomatch's `dot`). */
  readonly dot?: boolean;
}

export type GlobResult = { readonly match: (path: string) => boolean } | { readonly error: string };

/** Longest glob accepted: far above any real path, and it bounds brace nesting. */
export const MAX_GLOB_LENGTH = 1000;
/** Most alternatives one glob's braces may expand to. */
export const MAX_BRACE_ALTERNATIVES = 256;

type Token =
  | { readonly t: 'lit'; readonly c: string }
  | { readonly t: 'one' }
  | { readonly t: 'star' }
  | { readonly t: 'class'; readonly negate: boolean; readonly test: (c: string) => boolean };
type Segment = { readonly globstar: true } | { readonly globstar: false; readonly tokens: readonly Token[] };

class GlobError extends Error {}

const POSIX: Record<string, RegExp> = {
  alnum: /[A-Za-z0-9]/,
  alpha: /[A-Za-z]/,
  ascii: /[\x00-\x7f]/,
  blank: /[ \t]/,
  cntrl: /[\x00-\x1f\x7f]/,
  digit: /[0-9]/,
  graph: /[\x21-\x7e]/,
  lower: /[a-z]/,
  print: /[\x20-\x7e]/,
  punct: /[!-/:-@[-`{-~]/,
  space: /\s/,
  upper: /[A-Z]/,
  word: /\w/,
  xdigit: /[A-Fa-f0-9]/,
};

/** Compiles `pattern`, or says why it cannot be used (an extglob, too long, too many braces). */
export function compileGlob(pattern: string, opts: GlobOptions = {}): GlobResult {
  try {
    if (pattern.length > MAX_GLOB_LENGTH) throw new GlobError(`a glob may be at most ${MAX_GLOB_LENGTH} characters`);
    let body = pattern;
    let negate = false;
    // As picomatch: a leading `!` negates (`!(` would be an extglob).
    while (body.startsWith('!') && body[1] !== '(') {
      negate = !negate;
      body = body.slice(1);
    }
    const alternatives = expandBraces(stripDotSlash(body)).map((alt) => parseSegments(alt));
    const dot = opts.dot ?? false;
    const match = (path: string): boolean => {
      const parts = stripDotSlash(path).split('/');
      return alternatives.some((segs) => matchSegments(segs, parts, dot)) !== negate;
    };
    return { match };
  } catch (e) {
    if (e instanceof GlobError) return { error: e.message };
    throw e;
  }
}

/** A matcher for any of `patterns`; throws on a pattern validation would have refused. */
export function globMatcher(patterns: readonly string[], opts: GlobOptions = {}): (path: string) => boolean {
  const matchers = patterns.map((p) => {
    const r = compileGlob(p, opts);
    if ('error' in r) throw new Error(`glob ${JSON.stringify(p)}: ${r.error}`);
    return r.match;
  });
  return (path) => matchers.some((m) => m(path));
}

/** Why `pattern` cannot be used as a glob, or undefined. */
export function globProblem(pattern: string): string | undefined {
  const r = compileGlob(pattern);
  return 'error' in r ? r.error : undefined;
}

const stripDotSlash = (s: string): string => {
  let out = s;
  while (out.startsWith('./')) out = out.slice(2);
  return out;
};

/** Every alternative `{a,b}` and `{1..3}` spell, outermost first; escapes are kept for the parser. */
function expandBraces(pattern: string): string[] {
  const open = findOpenBrace(pattern);
  if (open < 0) return [pattern];
  const close = matchingBrace(pattern, open);
  if (close < 0) return [pattern];
  const inner = pattern.slice(open + 1, close);
  const parts = splitTopLevel(inner);
  const range = parts.length === 1 ? braceRange(inner) : undefined;
  const before = pattern.slice(0, open);
  const after = pattern.slice(close + 1);
  if (parts.length === 1 && !range) {
    // `{x}` is literal, as in bash and picomatch; keep looking for braces after it.
    return expandBraces(after).map((rest) => `${before}\\{${inner}\\}${rest}`);
  }
  const choices = range ?? parts.flatMap((p) => expandBraces(p));
  const tails = expandBraces(after);
  if (choices.length * tails.length > MAX_BRACE_ALTERNATIVES) {
    throw new GlobError(`its braces expand to more than ${MAX_BRACE_ALTERNATIVES} alternatives`);
  }
  const out: string[] = [];
  for (const c of choices) for (const t of tails) out.push(before + c + t);
  return out;
}

function findOpenBrace(s: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '{') return i;
  }
  return -1;
}

function matchingBrace(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(s.slice(start));
  return parts;
}

function braceRange(inner: string): string[] | undefined {
  const num = /^(-?\d+)\.\.(-?\d+)$/.exec(inner);
  const chr = /^([A-Za-z])\.\.([A-Za-z])$/.exec(inner);
  if (!num && !chr) return undefined;
  const a = num ? Number(num[1]) : chr![1]!.charCodeAt(0);
  const b = num ? Number(num[2]) : chr![2]!.charCodeAt(0);
  if (Math.abs(b - a) + 1 > MAX_BRACE_ALTERNATIVES)
    throw new GlobError(`its braces expand to more than ${MAX_BRACE_ALTERNATIVES} alternatives`);
  const out: string[] = [];
  for (let v = a; ; v += a <= b ? 1 : -1) {
    out.push(num ? String(v) : String.fromCharCode(v));
    if (v === b) break;
  }
  return out;
}

function parseSegments(pattern: string): Segment[] {
  const segs: Segment[] = [];
  let tokens: Token[] = [];
  let text = '';
  const end = () => {
    segs.push(text === '**' ? { globstar: true } : { globstar: false, tokens });
    tokens = [];
    text = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '/') {
      end();
      continue;
    }
    text += c;
    if ('?*+@!'.includes(c) && pattern[i + 1] === '(') {
      throw new GlobError(`\`${c}(…)\` extglobs are not supported; use braces ({a,b}) or several globs`);
    }
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next !== undefined) {
        tokens.push({ t: 'lit', c: next });
        text += next;
        i++;
      }
    } else if (c === '*') {
      if (tokens[tokens.length - 1]?.t !== 'star') tokens.push({ t: 'star' });
    } else if (c === '?') tokens.push({ t: 'one' });
    else if (c === '[') {
      const cls = parseClass(pattern, i);
      if (cls) {
        tokens.push(cls.token);
        text += pattern.slice(i + 1, cls.end + 1);
        i = cls.end;
      } else tokens.push({ t: 'lit', c });
    } else tokens.push({ t: 'lit', c });
  }
  end();
  return segs;
}

/** A `[…]` class starting at `open`, or undefined when it is not closed (then `[` is literal). */
function parseClass(p: string, open: number): { token: Token; end: number } | undefined {
  let i = open + 1;
  const negate = p[i] === '!' || p[i] === '^';
  if (negate) i++;
  const tests: Array<(c: string) => boolean> = [];
  let first = true;
  for (; i < p.length; i++) {
    const c = p[i]!;
    if (c === '/') return undefined;
    if (c === ']' && !first) {
      return { token: { t: 'class', negate, test: (x) => tests.some((t) => t(x)) }, end: i };
    }
    first = false;
    const posix = c === '[' && p[i + 1] === ':' ? /^\[:([a-z]+):\]/.exec(p.slice(i)) : null;
    if (posix) {
      const re = POSIX[posix[1]!];
      if (re && Object.hasOwn(POSIX, posix[1]!)) {
        tests.push((x) => re.test(x));
        i += posix[0].length - 1;
        continue;
      }
    }
    let lo = c;
    if (c === '\\' && i + 1 < p.length) lo = p[++i]!;
    if (p[i + 1] === '-' && p[i + 2] !== undefined && p[i + 2] !== ']') {
      let hi = p[i + 2]!;
      i += 2;
      if (hi === '\\' && i + 1 < p.length) hi = p[++i]!;
      const a = lo,
        b = hi;
      tests.push((x) => x >= a && x <= b);
    } else {
      const a = lo;
      tests.push((x) => x === a);
    }
  }
  return undefined;
}

/** Segments against path parts; `**` spans any number of parts, by the same greedy walk as `*`. */
function matchSegments(segs: readonly Segment[], parts: readonly string[], dot: boolean): boolean {
  let si = 0,
    pi = 0;
  let starSi = -1,
    starPi = 0;
  while (pi < parts.length) {
    const seg = segs[si];
    const part = parts[pi]!;
    if (seg?.globstar) {
      starSi = si;
      starPi = pi;
      si++;
      continue;
    }
    if (seg && matchSegment(seg.tokens, part, dot)) {
      si++;
      pi++;
      continue;
    }
    // Let the last `**` swallow one more part, unless that part is hidden from it.
    if (starSi >= 0 && globstarTakes(parts[starPi]!, dot)) {
      si = starSi + 1;
      pi = ++starPi;
      continue;
    }
    return false;
  }
  while (segs[si]?.globstar) si++;
  return si === segs.length;
}

const globstarTakes = (part: string, dot: boolean): boolean =>
  part !== '.' && part !== '..' && (dot || !part.startsWith('.'));

function matchSegment(tokens: readonly Token[], s: string, dot: boolean): boolean {
  if (s === '') return tokens.length === 0;
  // A leading dot is matched only by a literal dot, unless `dot`; `.` and `..` never by a wildcard.
  const first = tokens[0];
  if (s.startsWith('.') && first?.t !== 'lit' && (!dot || s === '.' || s === '..')) return false;
  let ti = 0,
    si = 0;
  let starTi = -1,
    starSi = 0;
  while (si < s.length) {
    const tok = tokens[ti];
    if (tok?.t === 'star') {
      starTi = ti++;
      starSi = si;
      continue;
    }
    if (tok && oneChar(tok, s[si]!)) {
      ti++;
      si++;
      continue;
    }
    if (starTi >= 0) {
      ti = starTi + 1;
      si = ++starSi;
      continue;
    }
    return false;
  }
  while (tokens[ti]?.t === 'star') ti++;
  return ti === tokens.length;
}

function oneChar(tok: Token, c: string): boolean {
  switch (tok.t) {
    case 'lit':
      return tok.c === c;
    case 'one':
      return true;
    case 'class':
      return tok.test(c) !== tok.negate;
    case 'star':
      return false;
  }
}
