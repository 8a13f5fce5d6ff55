// Plan texts for the language service tests, with the cursor written in as `‸`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PlanSource, type PlanSnapshot } from '../../src/core/language/planSnapshot';
import type { TextEdit } from '../../src/core/language/types';
import { keyDocsFrom, type KeyDocs } from '../../src/core/plan/keyDocs';
import type { Position } from '../../src/core/plan/types';

export const CURSOR = '‸';

export const docs: KeyDocs = keyDocsFrom(readFileSync(join(__dirname, '..', '..', 'docs', 'plan-format.md'), 'utf8'));

/** The text without its cursor mark, the mark's position, and the snapshot of that text. */
export function at(marked: string): { text: string; pos: Position; snap: PlanSnapshot } {
  const i = marked.indexOf(CURSOR);
  if (i < 0) throw new Error('no cursor mark in the text');
  const text = marked.slice(0, i) + marked.slice(i + CURSOR.length);
  const before = text.slice(0, i).split('\n');
  return {
    text,
    pos: { line: before.length - 1, column: before[before.length - 1]!.length },
    snap: new PlanSource().update(text),
  };
}

/** The position of the `nth` occurrence of `needle` (plus `offset` columns). */
export function posOf(text: string, needle: string, offset = 0, nth = 0): Position {
  let i = -1;
  for (let k = 0; k <= nth; k++) {
    i = text.indexOf(needle, i + 1);
    if (i < 0) throw new Error(`"${needle}" not found`);
  }
  const before = text.slice(0, i + offset).split('\n');
  return { line: before.length - 1, column: before[before.length - 1]!.length };
}

/** Applies non-overlapping edits to `text`. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const lines = text.split('\n');
  const off = (p: Position) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.column;
  const sorted = [...edits].sort((a, b) => off(b.range.start) - off(a.range.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, off(e.range.start)) + e.newText + out.slice(off(e.range.end));
  return out;
}
