// Every place a plan names a step: its key, `needs` entries (a step, a matrix group, one of its
// concrete ids, a glob) and `${{ steps.<id>.… }}` in any value. Found from each piece's facts,
// so a lookup is a scan of cached data, not a parse.
import type { Position, Range } from '../plan/types';
import type { Span } from './chunkFacts';
import type { Piece, PlanSnapshot } from './planSnapshot';

export interface StepRef {
  readonly kind: 'key' | 'need' | 'template';
  /** The text written there (a group, a concrete id or a glob), without quotes. */
  readonly text: string;
  readonly range: Range;
  /** The step the reference is written in. */
  readonly inStep?: string;
}

/** The inner span of a scalar: without its quotes. */
export function inner(piece: Piece, s: Span): Span {
  const c = piece.parsed.text[s[0]];
  return (c === '"' || c === "'") && s[1] - s[0] >= 2 ? [s[0] + 1, s[1] - 1] : s;
}

function refsOfPiece(snap: PlanSnapshot, piece: Piece): StepRef[] {
  const out: StepRef[] = [];
  const steps = piece.parsed.facts.steps;
  for (const st of steps) {
    out.push({ kind: 'key', text: st.id, range: snap.range(piece, inner(piece, st.keySpan)), inStep: st.id });
    for (const n of st.needs)
      out.push({ kind: 'need', text: n.text, range: snap.range(piece, inner(piece, n.span)), inStep: st.id });
  }
  for (const t of piece.parsed.facts.templateRefs) {
    const owner = steps.find((st) => st.span[0] <= t.span[0] && t.span[1] <= st.span[1]);
    out.push({
      kind: 'template',
      text: t.id,
      range: snap.range(piece, t.span),
      ...(owner ? { inStep: owner.id } : {}),
    });
  }
  return out;
}

const within = (r: Range, p: Position): boolean =>
  (r.start.line < p.line || (r.start.line === p.line && r.start.column <= p.column)) &&
  (r.end.line > p.line || (r.end.line === p.line && r.end.column >= p.column));

/** The step reference under the cursor, if any. */
export function stepRefAt(snap: PlanSnapshot, pos: Position): StepRef | undefined {
  return refsOfPiece(snap, snap.pieceAt(pos.line)).find((r) => within(r.range, pos));
}

/** Every step reference in the document, in file order. */
export function allStepRefs(snap: PlanSnapshot): StepRef[] {
  return snap.pieces.flatMap((p) => refsOfPiece(snap, p));
}
