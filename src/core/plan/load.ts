// Reading a plan file's text into a document that keeps every node's source range. JSON plans go
// through the same parser (JSON is YAML 1.2 flow syntax), so both get the same diagnostics.
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node as YamlNode, type Pair, type YAMLMap } from 'yaml';
import type { Diagnostic, Range, Severity } from './types';

export interface LoadedPlan {
  readonly file: string;
  readonly text: string;
  readonly doc: Document.Parsed;
  readonly lineCounter: LineCounter;
  /** The document as plain data; undefined when the YAML did not parse. */
  readonly value: unknown;
  /** YAML syntax errors and warnings, located. */
  readonly diagnostics: Diagnostic[];
}

const ZERO: Range = { start: { line: 0, column: 0 }, end: { line: 0, column: 0 } };

/** A Range (0-based lines and UTF-16 columns) from two offsets in the text. */
export function offsetsToRange(lc: LineCounter, start: number, end: number): Range {
  const a = lc.linePos(start);
  const b = lc.linePos(Math.max(start, end));
  return { start: { line: a.line - 1, column: a.col - 1 }, end: { line: b.line - 1, column: b.col - 1 } };
}

/** Parses plan text; syntax problems come back as diagnostics, never as exceptions. */
export function loadPlan(file: string, text: string): LoadedPlan {
  const lineCounter = new LineCounter();
  // The parser's own `uniqueKeys` compares each key with every earlier one (quadratic: 1.2 s for a
  // 10,000-step plan); duplicateKeys below does the same check with one set per mapping.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false, keepSourceTokens: false });
  const diagnostics: Diagnostic[] = [];
  const push = (severity: Severity, e: { pos: [number, number]; code: string; message: string }) =>
    diagnostics.push({
      file, severity, range: offsetsToRange(lineCounter, e.pos[0], e.pos[1]),
      // The parser's messages can carry a source excerpt after the first line; the range shows where.
      message: `YAML: ${e.message.split('\n')[0] ?? e.message}`, code: `yaml-${e.code.toLowerCase().replace(/_/g, '-')}`,
    });
  for (const e of doc.errors) push('error', e);
  for (const w of doc.warnings) push('warning', w);
  const keys = keyProblems(doc);
  for (const pos of keys.duplicates) push('error', { pos, code: 'DUPLICATE_KEY', message: 'Map keys must be unique' });
  // zod builds its output with plain assignment, where `__proto__` sets a prototype instead of a key.
  for (const pos of keys.reserved) push('error', { pos, code: 'RESERVED_KEY', message: '`__proto__` cannot be used as a name' });
  let value: unknown;
  if (!diagnostics.some((d) => d.severity === 'error')) {
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      // An alias bomb or an unresolvable alias: still the user's text, so still a diagnostic.
      diagnostics.push({ file, severity: 'error', range: ZERO, message: `YAML: ${(e as Error).message}`, code: 'yaml-alias' });
    }
  }
  return { file, text, doc, lineCounter, value, diagnostics };
}

/** Offsets of every mapping key that repeats an earlier key of the same mapping, and of `__proto__` keys. */
function keyProblems(doc: Document.Parsed): { duplicates: Array<[number, number]>; reserved: Array<[number, number]> } {
  const duplicates: Array<[number, number]> = [];
  const reserved: Array<[number, number]> = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const p of map.items) {
        if (!isScalar(p.key) || !p.key.range) continue;
        const k = p.key.value;
        if (seen.has(k)) duplicates.push([p.key.range[0], p.key.range[1]]);
        if (k === '__proto__') reserved.push([p.key.range[0], p.key.range[1]]);
        seen.add(k);
      }
    },
  });
  return { duplicates, reserved };
}

// Lookups by key are memoised per mapping: a 5,000-step plan locates every step's key.
const pairIndex = new WeakMap<YAMLMap, Map<string, Pair>>();

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  let index = pairIndex.get(map);
  if (!index) {
    index = new Map();
    for (const p of map.items) {
      const k = isScalar(p.key) ? String(p.key.value) : undefined;
      if (k !== undefined && !index.has(k)) index.set(k, p as Pair);
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
      if (last) return opts.key ? keyRange : nodeRange(lp, pair.value) ?? keyRange;
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
export function rangeWithin(lp: LoadedPlan, path: readonly PropertyKey[], value: string, start: number, end: number): Range {
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
