import picomatch from 'picomatch';
import { compileGlob } from './glob';

// Decides whether two write/read globs could ever name the same path. The answer guards locks,
// so it errs towards "overlap": `false` only when the globs are provably disjoint.
//
// Semantics, beyond plain glob matching (each only adds overlaps, so stays conservative):
// - a glob whose last segment is a plain name without an extension (`server`, `docs/api`)
//   probably names a directory, so it also covers what is below it (`server` overlaps
//   `server/x.ts`); `src/a.ts` and `src/*` stay as globs (`src/*` misses `src/a/b.ts`);
// - dotfiles count (`*` overlaps `.env`);
// - `**` matches any run of segments, dot segments included;
// - a negated glob (`!x`), a brace or group holding `/`, or anything else we cannot split into
//   segments overlaps everything.

type Segment =
  | { kind: 'globstar' }
  | { kind: 'literal'; text: string }
  | { kind: 'pattern'; text: string; prefix: string; suffix: string; match: (s: string) => boolean };

/** A glob split into segments; `undefined` when it cannot be reasoned about (overlaps all). */
type Compiled = readonly Segment[] | undefined;

// Characters that may start glob syntax. Over-including is safe: a segment is then treated as a
// pattern, and its provable literal prefix/suffix only get shorter.
const MAGIC = new Set(['*', '?', '[', ']', '{', '}', '(', ')', '!', '+', '@', '\\']);
// Bounded so a long-lived extension host cannot grow them without end; far above a plan's needs.
const CACHE_LIMIT = 50_000;
const compiledCache = new Map<string, Compiled>();
const pairCache = new Map<string, boolean>();

/** True unless globs `a` and `b` provably match no common path (or path below one). */
export function globsOverlap(a: string, b: string): boolean {
  if (a === b) return true;
  const key = a < b ? `${a}\0${b}` : `${b}\0${a}`;
  const cached = pairCache.get(key);
  if (cached !== undefined) return cached;
  const result = overlapCompiled(compile(a), compile(b));
  if (pairCache.size >= CACHE_LIMIT) pairCache.clear();
  pairCache.set(key, result);
  return result;
}

/** The first pair (one glob from each set) that may overlap, or undefined if the sets are disjoint. */
export function writeSetsOverlap(a: readonly string[], b: readonly string[]): [string, string] | undefined {
  for (const x of a) {
    for (const y of b) {
      if (globsOverlap(x, y)) return [x, y];
    }
  }
  return undefined;
}

/**
 * The first conflicting pair between two lock requests (writes exclusive, reads shared), as
 * [glob of a, glob of b]; read–read never conflicts.
 */
export function lockConflict(
  aWrites: readonly string[],
  aReads: readonly string[],
  bWrites: readonly string[],
  bReads: readonly string[],
): [string, string] | undefined {
  if (aWrites.length === 0 && bWrites.length === 0) return undefined;
  return writeSetsOverlap(aWrites, bWrites) ?? writeSetsOverlap(aWrites, bReads) ?? writeSetsOverlap(aReads, bWrites);
}

/** Canonical form: no `./`, no empty or `.` segments, `..` folded, trailing `/` as `/**`. */
export function normalizeGlob(glob: string): string {
  let g = glob.trim();
  if (g.endsWith('/')) g += '**';
  const out: string[] = [];
  for (const seg of g.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..' && out[out.length - 1] !== '**') {
      out.pop();
      continue;
    }
    out.push(seg);
  }
  // The workspace root itself (``, `.`, `./`) covers the whole workspace.
  return out.length === 0 ? '**' : out.join('/');
}

function compile(glob: string): Compiled {
  if (compiledCache.has(glob)) return compiledCache.get(glob);
  const result = compileUncached(glob);
  if (compiledCache.size >= CACHE_LIMIT) compiledCache.clear();
  compiledCache.set(glob, result);
  return result;
}

function compileUncached(glob: string): Compiled {
  const normalized = normalizeGlob(glob);
  const scan = picomatch.scan(normalized);
  if (scan.negated || scan.negatedExtglob) return undefined;
  const parts = splitSegments(normalized);
  if (parts === undefined || parts.includes('..')) return undefined;
  const segments: Segment[] = [];
  for (const text of parts) {
    const pattern = [...text].some((c) => MAGIC.has(c)) ? compileGlob(text, { dot: true }) : undefined;
    // A segment the matcher refuses (an extglob) cannot be reasoned about: it overlaps everything.
    if (pattern && 'error' in pattern) return undefined;
    if (text === '**') {
      // Consecutive globstars mean the same as one.
      if (segments[segments.length - 1]?.kind !== 'globstar') segments.push({ kind: 'globstar' });
    } else if (!pattern) {
      segments.push({ kind: 'literal', text });
    } else {
      const first = [...text].findIndex((c) => MAGIC.has(c));
      let last = text.length - 1;
      while (last >= 0 && !MAGIC.has(text[last] as string)) last--;
      segments.push({
        kind: 'pattern',
        text,
        prefix: text.slice(0, first),
        suffix: text.slice(last + 1),
        match: pattern.match,
      });
    }
  }
  const last = segments[segments.length - 1];
  if (last?.kind === 'literal' && !last.text.slice(1).includes('.')) segments.push({ kind: 'globstar' });
  return segments;
}

/** Splits on `/` outside brackets, braces and parentheses; undefined if a group spans a `/`. */
function splitSegments(glob: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') i++;
    else if (c === '[' || c === '{' || c === '(') depth++;
    else if ((c === ']' || c === '}' || c === ')') && depth > 0) depth--;
    else if (c === '/') {
      if (depth > 0) return undefined;
      parts.push(glob.slice(start, i));
      start = i + 1;
    }
  }
  if (depth > 0) return undefined;
  parts.push(glob.slice(start));
  return parts;
}

function overlapCompiled(a: Compiled, b: Compiled): boolean {
  if (a === undefined || b === undefined) return true;
  // memo[i][j]: do a[i..] and b[j..] overlap? Globstars make this a small two-sequence search.
  const memo = new Map<number, boolean>();
  const width = b.length + 1;
  const go = (i: number, j: number): boolean => {
    const key = i * width + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    const x = a[i];
    const y = b[j];
    if (x === undefined && y === undefined) result = true;
    else if (x?.kind === 'globstar') result = go(i + 1, j) || (y !== undefined && go(i, j + 1));
    else if (y?.kind === 'globstar') result = go(i, j + 1) || (x !== undefined && go(i + 1, j));
    else if (x === undefined || y === undefined) result = false;
    else result = segmentsOverlap(x, y) && go(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return go(0, 0);
}

type Single = Exclude<Segment, { kind: 'globstar' }>;

function segmentsOverlap(x: Single, y: Single): boolean {
  if (x.kind === 'literal' && y.kind === 'literal') return x.text === y.text;
  if (x.kind === 'literal' && y.kind === 'pattern') return y.match(x.text);
  if (x.kind === 'pattern' && y.kind === 'literal') return x.match(y.text);
  if (x.kind === 'pattern' && y.kind === 'pattern') {
    // Every match of a pattern starts with its literal prefix and ends with its literal suffix,
    // so incompatible prefixes or suffixes prove the segments disjoint; otherwise assume overlap.
    const prefixesClash = !x.prefix.startsWith(y.prefix) && !y.prefix.startsWith(x.prefix);
    const suffixesClash = !x.suffix.endsWith(y.suffix) && !y.suffix.endsWith(x.suffix);
    return !prefixesClash && !suffixesClash;
  }
  return true;
}
