// Where the cursor is in a plan, read from the text's indentation rather than the parse tree: a
// line being typed is usually not valid YAML yet (`    ne`, `needs: [a, `), and the lines above
// it still say which mapping it belongs to. Handles block style, flow lists on one line and
// pretty-printed JSON (its keys are quoted, its nesting indented).
import type { Range } from '../plan/types';

export type CursorContext =
  | {
      readonly kind: 'key';
      readonly path: readonly string[];
      readonly prefix: string;
      readonly range: Range;
      readonly line: number;
      readonly indent: number;
    }
  | {
      readonly kind: 'value';
      readonly path: readonly string[];
      readonly prefix: string;
      readonly range: Range;
      readonly inList: boolean;
    }
  | { readonly kind: 'template'; readonly path: readonly string[]; readonly expr: string; readonly range: Range }
  | { readonly kind: 'none' };

export interface LineShape {
  readonly indent: number;
  /** Where the content starts, past any `- ` markers. */
  readonly contentStart: number;
  readonly dashes: number;
  readonly key?: string;
  readonly keyStart: number;
  readonly keyEnd: number;
  /** Column just past `key:`. */
  readonly colon: number;
}

const KEY = /^(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_$.*/-]+))[ \t]*:(?=[ \t]|\r?$)/;

export const isSignificant = (l: string): boolean => !/^\s*(#.*)?\r?$/.test(l);

/** The indentation, list markers and `key:` of one line. */
export function lineShape(l: string): LineShape {
  let i = 0;
  while (l[i] === ' ') i++;
  const indent = i;
  let dashes = 0;
  while (l[i] === '-' && (l[i + 1] === ' ' || l[i + 1] === undefined)) {
    dashes++;
    i += 2;
    while (l[i] === ' ') i++;
  }
  const m = KEY.exec(l.slice(i));
  if (!m) return { indent, contentStart: i, dashes, keyStart: i, keyEnd: i, colon: i };
  const key = m[1] ?? m[2] ?? m[3]!;
  const quoted = m[3] === undefined ? 1 : 0;
  return {
    indent,
    contentStart: i,
    dashes,
    key,
    keyStart: i + quoted,
    keyEnd: i + quoted + key.length,
    colon: i + m[0].length,
  };
}

/**
 * The keys of the mappings enclosing a line whose content starts at `indent`; `seqItem` when the
 * line is a `- ` item, which may sit at its key's own indentation.
 */
export function parentPath(lines: readonly string[], line: number, indent: number, seqItem = false): string[] {
  const path: string[] = [];
  let limit = indent;
  let sameOk = seqItem;
  for (let i = line - 1; i >= 0 && limit > 0; i--) {
    const l = lines[i]!;
    // Most lines above are deeper than the parent looked for: skip them on their indentation alone.
    let n = 0;
    while (l.charCodeAt(n) === 32) n++;
    if (n > limit || !isSignificant(l)) continue;
    const s = lineShape(l);
    const at = s.key !== undefined ? s.contentStart : s.indent;
    if (at > limit || (at === limit && !(sameOk && s.dashes === 0 && s.key !== undefined))) continue;
    if (s.key !== undefined) path.unshift(s.key);
    limit = s.indent;
    // A list's items may sit at their key's own indentation; a key's siblings do not enclose it.
    sameOk = s.dashes > 0;
  }
  return path;
}

const WORD = /[A-Za-z0-9_-]/;
const VALUE_WORD = /[A-Za-z0-9_.*?/-]/;

function wordAround(l: string, col: number, re: RegExp): { start: number; end: number } {
  let start = col,
    end = col;
  while (start > 0 && re.test(l[start - 1]!)) start--;
  while (end < l.length && re.test(l[end]!)) end++;
  return { start, end };
}

const rangeOn = (line: number, start: number, end: number): Range => ({
  start: { line, column: start },
  end: { line, column: end },
});

/** What is being typed at (line, column). */
export function cursorContext(lines: readonly string[], line: number, column: number): CursorContext {
  const l = lines[line];
  if (l === undefined) return { kind: 'none' };
  const col = Math.min(column, l.length);
  const before = l.slice(0, col);
  const s = lineShape(l);
  const hash = before.search(/(^|\s)#/);
  if (hash >= 0 && !before.includes('${{')) return { kind: 'none' };

  const open = before.lastIndexOf('${{');
  if (open >= 0 && before.indexOf('}}', open) < 0) {
    const path =
      s.key !== undefined && col >= s.colon
        ? [...parentPath(lines, line, s.contentStart, s.dashes > 0), s.key]
        : parentPath(lines, line, s.indent);
    const w = wordAround(l, col, WORD);
    return {
      kind: 'template',
      path,
      expr: before.slice(open + 3).trimStart(),
      range: rangeOn(line, w.start, Math.max(col, w.end)),
    };
  }
  if (s.key !== undefined && col >= s.colon) {
    const value = before.slice(s.colon).trimStart();
    const path = [...parentPath(lines, line, s.contentStart, s.dashes > 0), s.key];
    const w = wordAround(l, col, VALUE_WORD);
    if (value.startsWith('[')) {
      const item = value
        .slice(Math.max(value.lastIndexOf('['), value.lastIndexOf(',')) + 1)
        .trim()
        .replace(/^["']/, '');
      return { kind: 'value', path, prefix: item, range: rangeOn(line, w.start, w.end), inList: true };
    }
    if (/^[{|>&*!]/.test(value)) return { kind: 'none' };
    return {
      kind: 'value',
      path,
      prefix: value.replace(/^["']/, ''),
      range: rangeOn(line, w.start, w.end),
      inList: false,
    };
  }
  if (s.dashes > 0 && col >= s.contentStart) {
    const path = parentPath(lines, line, s.indent, true);
    const w = wordAround(l, col, VALUE_WORD);
    return {
      kind: 'value',
      path,
      prefix: before.slice(s.contentStart).replace(/^["']/, ''),
      range: rangeOn(line, w.start, w.end),
      inList: true,
    };
  }
  const indent = Math.min(s.indent, col);
  const typed = before.slice(indent);
  if (!/^["']?[A-Za-z0-9_-]*$/.test(typed)) return { kind: 'none' };
  const w = wordAround(l, col, WORD);
  return {
    kind: 'key',
    path: parentPath(lines, line, indent),
    prefix: typed.replace(/^["']/, ''),
    range: rangeOn(line, w.start, w.end),
    line,
    indent,
  };
}
