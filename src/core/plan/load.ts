// Reading a plan file's text into a document that keeps every node's source range. JSON plans go
// through the same parser (JSON is YAML 1.2 flow syntax), so both get the same diagnostics.
import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseDocument,
  type Document,
  type Node as YamlNode,
  type Pair,
  type YAMLMap,
} from 'yaml';
import { MAX_TOKENS, MAX_VALUES } from './nesting';
import { parseCapped } from './cappedParse';
import { countUnbuilt, MAX_BUILT_DIAGNOSTICS, overCap, UNREAD } from './problemCap';
import type { Diagnostic, Range, Severity } from './types';

export interface LoadedPlan {
  readonly file: string;
  readonly text: string;
  readonly doc: Document.Parsed;
  readonly lineCounter: LineStarts;
  /** The document as plain data; undefined when the YAML did not parse. */
  readonly value: unknown;
  /** YAML syntax errors and warnings, located. */
  readonly diagnostics: Diagnostic[];
}

const ZERO: Range = { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } };

/** Deepest nesting of mappings and lists read; a plan needs about six. */
export const MAX_DEPTH = 64;
/** Most alias expansions (yaml's count: each use of an anchor times the aliases inside it). */
export const MAX_ALIAS_COUNT = 1000;

/**
 * Where each line of the text starts. yaml's own LineCounter learns lines from its lexer, which
 * skips some newlines in broken flow collections (positions then land past their line's end).
 */
export class LineStarts {
  private readonly starts: number[] = [0];
  constructor(text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }
  /** 1-based line and column of an offset, as yaml's LineCounter gives them. */
  linePos(offset: number): { line: number; col: number } {
    let lo = 0,
      hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - this.starts[lo]! + 1 };
  }
}

/** A Range (0-based lines and UTF-16 columns) from two offsets in the text. */
export function offsetsToRange(lc: LineStarts, start: number, end: number): Range {
  const a = lc.linePos(start);
  const b = lc.linePos(Math.max(start, end));
  return { start: { line: a.line - 1, column: a.col - 1 }, end: { line: b.line - 1, column: b.col - 1 } };
}

/** Parses plan text; syntax problems come back as diagnostics, never as exceptions. */
export function loadPlan(file: string, text: string): LoadedPlan {
  const lineCounter = new LineStarts(text);
  // The parser's own `uniqueKeys` compares each key with every earlier one (quadratic: 1.2 s for a
  // 10,000-step plan); duplicateKeys below does the same check with one set per mapping.
  // logLevel 'error': yaml's warnings would go to process.emitWarning (a raw Node warning on the
  // CLI's stderr); what they warn about is reported below as a located problem instead.
  // yaml makes an Error for each syntax problem, and a stack trace costs more than the rest of the
  // error: on text that is all mistakes (2 MB of `]`) the traces were most of the time and memory.
  const traces = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let parsed: ReturnType<typeof parseCapped>;
  try {
    // Past the cap yaml's errors are counted, not built, and past the first of those the text is
    // not read (parseCapped): the list would drop them anyway.
    parsed = parseCapped(text, MAX_BUILT_DIAGNOSTICS, {
      prettyErrors: false,
      uniqueKeys: false,
      keepSourceTokens: false,
      logLevel: 'error',
    });
  } finally {
    Error.stackTraceLimit = traces;
  }
  const { tooDeep, tooMany, tooLong } = parsed.refused ?? {};
  const refused = tooDeep ?? tooMany ?? tooLong;
  if (refused !== undefined) {
    // Parsing this would overflow the stack inside yaml, or take more time and memory than
    // validation may (#32: ≤ 2 s and ≤ 300 MB for any file up to 5 MB): the parse stopped at the
    // token that crossed the limit.
    const diagnostics: Diagnostic[] = [
      {
        file,
        severity: 'error',
        range: offsetsToRange(lineCounter, refused, refused + 1),
        ...(tooDeep !== undefined
          ? { message: `YAML: nested more than ${MAX_DEPTH} levels deep`, code: 'yaml-depth' }
          : tooMany !== undefined
            ? {
                message: `YAML: more than ${MAX_VALUES.toLocaleString('en-US')} keys, values and lists; a plan needs far fewer (a 10,000-step plan holds about 90,000)`,
                code: 'yaml-too-many-values',
              }
            : {
                message: `YAML: more than ${MAX_TOKENS.toLocaleString('en-US')} pieces (keys, values, indents, line breaks, comments, brackets); a plan needs far fewer (a 10,000-step plan holds about 330,000)`,
                code: 'yaml-too-long',
              }),
      },
    ];
    return { file, text, doc: parseDocument(''), lineCounter, value: undefined, diagnostics };
  }
  const { doc } = parsed;
  const diagnostics: Diagnostic[] = [];
  countUnbuilt(diagnostics, parsed.unbuiltErrors, parsed.unbuiltWarnings);
  const push = (severity: Severity, e: { pos: [number, number]; code: string; message: string }) =>
    overCap(diagnostics, severity) ||
    diagnostics.push({
      file,
      severity,
      range: offsetsToRange(lineCounter, e.pos[0], e.pos[1]),
      // The parser's messages can carry a source excerpt after the first line; the range shows where.
      message: `YAML: ${e.message.split(/\r?\n/)[0] ?? e.message}`,
      code: `yaml-${e.code.toLowerCase().replace(/_/g, '-')}`,
    });
  const shape = inspect(doc);
  for (const e of doc.errors) {
    // yaml catches its own stack overflow on deep nesting; the depth check below says it more plainly.
    if (e.code === 'RESOURCE_EXHAUSTION' && shape.tooDeep) continue;
    push(
      'error',
      e.code === 'RESOURCE_EXHAUSTION'
        ? { ...e, message: `nested too deeply to read (a plan may nest at most ${MAX_DEPTH} levels)` }
        : e,
    );
  }
  for (const w of doc.warnings) push('warning', w);
  for (const pos of shape.duplicates) push('error', { pos, code: 'DUPLICATE_KEY', message: 'Map keys must be unique' });
  // zod builds its output with plain assignment, where `__proto__` sets a prototype instead of a key.
  for (const pos of shape.reserved)
    push('error', { pos, code: 'RESERVED_KEY', message: '`__proto__` cannot be used as a name' });
  for (const pos of shape.complexKeys)
    push('error', { pos, code: 'COMPLEX_KEY', message: 'a key must be a plain name, not a list or a mapping' });
  if (shape.tooDeep)
    push('error', { pos: shape.tooDeep, code: 'DEPTH', message: `nested more than ${MAX_DEPTH} levels deep` });
  // Past the cap, not counted against it: the one problem that says where reading stopped.
  if (parsed.stoppedAt !== undefined)
    diagnostics.push({
      file,
      severity: 'error',
      range: offsetsToRange(lineCounter, parsed.stoppedAt, parsed.stoppedAt),
      message: `YAML: more than ${MAX_BUILT_DIAGNOSTICS.toLocaleString('en-US')} syntax errors; from here on the text is not read`,
      code: UNREAD,
    });
  let value: unknown;
  if (!diagnostics.some((d) => d.severity === 'error')) {
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      // An alias bomb (yaml throws a ReferenceError for it): still the user's text, so a problem at its first alias.
      if (!(e instanceof ReferenceError)) throw e;
      const at = shape.firstAlias ?? [0, 0];
      const message = /resource exhaustion/.test(e.message)
        ? `aliases expand to too much data (more than ${MAX_ALIAS_COUNT} copies); write the repeated parts out`
        : e.message;
      push('error', { pos: at, code: 'ALIAS', message });
    }
  }
  return { file, text, doc, lineCounter, value, diagnostics };
}

type Span = [number, number];

interface Shape {
  /** Keys that repeat an earlier key of the same mapping. */
  readonly duplicates: Span[];
  /** `__proto__` keys. */
  readonly reserved: Span[];
  /** Keys that are lists or mappings (yaml would stringify them). */
  readonly complexKeys: Span[];
  /** The first collection nested deeper than MAX_DEPTH. */
  tooDeep?: Span | undefined;
  /** The first alias in the text. */
  firstAlias?: Span | undefined;
}

/** One walk over the document, with a stack of its own (no recursion: the nesting is the user's). */
function inspect(doc: Document.Parsed): Shape {
  const shape: Shape = { duplicates: [], reserved: [], complexKeys: [] };
  const first = (a: Span | undefined, r: readonly number[] | undefined | null): Span | undefined =>
    r && (a === undefined || r[0]! < a[0]) ? [r[0]!, r[1]!] : a;
  const stack: Array<{ node: unknown; depth: number }> = [{ node: doc.contents, depth: 1 }];
  const pairs = (items: readonly Pair[], depth: number) => {
    const seen = new Set<unknown>();
    for (const p of items) {
      const key = p.key as YamlNode | null;
      if (isScalar(key) && key.range) {
        if (seen.has(key.value)) shape.duplicates.push([key.range[0], key.range[1]]);
        if (key.value === '__proto__') shape.reserved.push([key.range[0], key.range[1]]);
        seen.add(key.value);
      } else if ((isMap(key) || isSeq(key)) && key.range) shape.complexKeys.push([key.range[0], key.range[1]]);
      // A complex key is already an error; what it holds is not looked at.
      if (isAlias(key)) stack.push({ node: key, depth: depth + 1 });
      stack.push({ node: p.value, depth: depth + 1 });
    }
  };
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (isAlias(node)) {
      shape.firstAlias = first(shape.firstAlias, node.range);
      continue;
    }
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth > MAX_DEPTH) {
      shape.tooDeep = first(shape.tooDeep, node.range);
      continue;
    }
    if (isMap(node)) {
      pairs(node.items, depth);
      continue;
    }
    const loose: Pair[] = [];
    for (const item of node.items) {
      // `[a: 1]` is a flow list holding one-pair mappings.
      if (isPair(item)) loose.push(item);
      else stack.push({ node: item, depth: depth + 1 });
    }
    if (loose.length > 0) for (const p of loose) pairs([p], depth);
  }
  return shape;
}

// Lookups by key are memoised per mapping: a 5,000-step plan locates every step's key.
const pairIndex = new WeakMap<YAMLMap, Map<string, Pair>>();

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  let index = pairIndex.get(map);
  if (!index) {
    index = new Map();
    for (const p of map.items) {
      const k = isScalar(p.key) ? String(p.key.value) : undefined;
      if (k !== undefined && !index.has(k)) index.set(k, p);
    }
    pairIndex.set(map, index);
  }
  return index.get(key);
}

const nodeRange = (lp: LoadedPlan, node: unknown): Range | undefined => {
  const r = (node as YamlNode | null | undefined)?.range;
  return r ? offsetsToRange(lp.lineCounter, r[0], r[1]) : undefined;
};

/**
 * The Range of the node at a key path (`['steps', 'build', 'needs', 1]`): the value there, or with
 * `key` the mapping key itself. A path that does not exist (a missing key) falls back to the key
 * of the deepest pair that does, else to the start of the document.
 */
export function rangeAt(lp: LoadedPlan, path: readonly PropertyKey[], opts: { key?: boolean } = {}): Range {
  let node: unknown = lp.doc.contents;
  let fallback: Range = nodeRange(lp, node) ?? ZERO;
  if (path.length === 0) return fallback;
  // Without a deeper key, the whole document would be underlined: point at its first character.
  fallback = { start: fallback.start, end: fallback.start };
  for (let i = 0; i < path.length; i++) {
    if (isAlias(node)) node = node.resolve(lp.doc);
    const seg = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = pairOf(node, String(seg));
      if (!pair) return fallback;
      const keyRange = nodeRange(lp, pair.key) ?? fallback;
      if (last) return opts.key ? keyRange : (nodeRange(lp, pair.value) ?? keyRange);
      fallback = keyRange;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      const r = nodeRange(lp, item);
      if (!r) return fallback;
      if (last) return r;
      fallback = r;
      node = item;
    } else if (isScalar(node) && seg === 0) {
      // A list field written as one scalar (`needs: build`): its first element is the scalar.
      return nodeRange(lp, node) ?? fallback;
    } else {
      return fallback;
    }
  }
  return fallback;
}

/**
 * The Range of `value.slice(start, end)` inside the string node at `path`, when that piece is
 * written verbatim in the source (true of templates but for line folds and escapes); else the
 * node's own Range. The n-th occurrence in the value is matched to the n-th in the source.
 */
export function rangeWithin(
  lp: LoadedPlan,
  path: readonly PropertyKey[],
  value: string,
  start: number,
  end: number,
): Range {
  const whole = rangeAt(lp, path);
  const node = nodeAt(lp, path);
  const r = node?.range;
  if (!r || !isScalar(node)) return whole;
  const piece = value.slice(start, end);
  let nth = 0;
  for (let i = value.indexOf(piece); i >= 0 && i < start; i = value.indexOf(piece, i + 1)) nth++;
  const source = lp.text.slice(r[0], r[1]);
  let at = source.indexOf(piece);
  for (let k = 0; k < nth && at >= 0; k++) at = source.indexOf(piece, at + 1);
  return at < 0 ? whole : offsetsToRange(lp.lineCounter, r[0] + at, r[0] + at + piece.length);
}

function nodeAt(lp: LoadedPlan, path: readonly PropertyKey[]): YamlNode | undefined {
  let node: unknown = lp.doc.contents;
  for (const seg of path) {
    if (isAlias(node)) node = node.resolve(lp.doc);
    if (isMap(node)) node = pairOf(node, String(seg))?.value;
    else if (isSeq(node) && typeof seg === 'number') node = node.items[seg];
    else if (isScalar(node) && seg === 0) return node;
    else return undefined;
  }
  return (node ?? undefined) as YamlNode | undefined;
}
