// Quick fixes for the plan's own diagnostics: a did-you-mean suggestion (unknown key, step or
// agent: the validator puts the word in `suggestion`) replaces the text it is about; a template
// inside single quotes is taken out of them (`'a ${{ x }} b'` → `'a '"${{ x }}"' b'`), which
// leaves every other character of the shell source as it was.
import { isScalar, visit, type Scalar } from 'yaml';
import { singleQuotedRefs } from '../templates';
import type { Range } from '../plan/types';
import type { Piece, PlanSnapshot } from './planSnapshot';
import type { CodeAction, TextEdit } from './types';

/** What the fixes need of a diagnostic (the extension passes the ones in the editor's request). */
export interface FixableDiagnostic {
  readonly code: string;
  readonly range: Range;
  readonly message: string;
  readonly suggestion?: string;
}

/** The code actions for `diagnostics`, each naming the one it fixes by index. */
export function quickFixes(snap: PlanSnapshot, diagnostics: readonly FixableDiagnostic[]): CodeAction[] {
  return diagnostics.flatMap((d, i): CodeAction[] => {
    if (d.suggestion !== undefined) {
      const old = textAt(snap, d.range);
      if (old === undefined) return [];
      const q = old[0];
      const quoted = (q === '"' || q === "'") && old.length >= 2 && old[old.length - 1] === q;
      const newText = quoted ? `${q}${d.suggestion}${q}` : d.suggestion;
      return [
        {
          title: `Change to \`${d.suggestion}\``,
          diagnostic: i,
          edits: [{ range: d.range, newText }],
          preferred: true,
        },
      ];
    }
    if (d.code === 'single-quoted') {
      const edits = unquoteEdits(snap, d);
      const expr = /\$\{\{ (.+?) \}\} is inside single quotes/.exec(d.message)?.[1];
      return edits.length === 0 || expr === undefined
        ? []
        : [{ title: `Take \${{ ${expr} }} out of the single quotes`, diagnostic: i, edits, preferred: true }];
    }
    return [];
  });
}

function textAt(snap: PlanSnapshot, r: Range): string | undefined {
  if (r.start.line !== r.end.line) return undefined;
  return snap.lines[r.start.line]?.slice(r.start.column, r.end.column);
}

function scalarAt(piece: Piece, offset: number): Scalar | undefined {
  let found: Scalar | undefined;
  visit(piece.parsed.lp.doc, {
    Scalar(_, node) {
      if (node.range?.[0] === offset && typeof node.value === 'string') {
        found = node;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

// What opens and closes a double-quoted shell word, as each YAML scalar style spells it.
const QUOTES: Record<string, readonly [string, string]> = {
  QUOTE_DOUBLE: ['\'\\"', '\\"\''],
  QUOTE_SINGLE: ["''\"", "\"''"],
};

function unquoteEdits(snap: PlanSnapshot, d: FixableDiagnostic): TextEdit[] {
  const expr = /\$\{\{ (.+?) \}\} is inside single quotes/.exec(d.message)?.[1];
  const piece = snap.pieceAt(d.range.start.line);
  const node = scalarAt(piece, snap.offsetIn(piece, d.range.start.line, d.range.start.column));
  if (!node || !isScalar(node) || !node.range || expr === undefined) return [];
  const value = node.value as string;
  const source = piece.parsed.text.slice(node.range[0], node.range[1]);
  const [open, close] = QUOTES[node.type ?? ''] ?? ['\'"', '"\''];
  const edits: TextEdit[] = [];
  for (const r of singleQuotedRefs(value)) {
    if (r.expr !== expr) continue;
    // Only a plain '…' on one line: `$'…'` and quoted here-documents need another fix.
    const quote = value.lastIndexOf("'", r.start);
    if (quote < 0 || value[quote - 1] === '$' || value.slice(quote, r.start).includes('\n')) continue;
    const text = value.slice(r.start, r.end);
    let nth = 0;
    for (let k = value.indexOf(text); k >= 0 && k < r.start; k = value.indexOf(text, k + 1)) nth++;
    let at = source.indexOf(text);
    for (let k = 0; k < nth && at >= 0; k++) at = source.indexOf(text, at + 1);
    if (at < 0) continue;
    const start = snap.range(piece, [node.range[0] + at, node.range[0] + at]);
    const end = snap.range(piece, [node.range[0] + at + text.length, node.range[0] + at + text.length]);
    edits.push({ range: start, newText: open }, { range: end, newText: close });
  }
  return edits;
}
