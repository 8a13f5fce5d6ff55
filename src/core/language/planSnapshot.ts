// One version of a plan's text, parsed piece by piece (planChunks.ts), with the document-wide
// index the services share: steps by id and matrix group, declared names. A new version reuses
// every piece whose text did not change, so an edit costs one piece's parse plus a scan.
import { instanceId, MAX_MATRIX_STEPS } from '../plan/expand';
import { loadPlan, type LoadedPlan } from '../plan/load';
import type { Range } from '../plan/types';
import { chunkFacts, type ChunkFacts, type Span, type StepFacts } from './chunkFacts';
import { splitPlan, type ChunkSpan } from './planChunks';

/** A parsed piece, shared by every version whose text holds it unchanged. */
export class ParsedPiece {
  private cached?: ChunkFacts;
  readonly lp: LoadedPlan;

  constructor(
    readonly text: string,
    readonly stepPiece: boolean,
  ) {
    this.lp = loadPlan('', text);
  }

  get facts(): ChunkFacts {
    this.cached ??= chunkFacts(this.lp.doc, this.text, this.stepPiece);
    return this.cached;
  }
}

export interface Piece extends ChunkSpan {
  readonly parsed: ParsedPiece;
}

/** A step as the index knows it, with its piece for locating it. */
export interface StepEntry {
  readonly facts: StepFacts;
  readonly piece: Piece;
  /** The concrete ids it expands to (itself without a matrix). */
  readonly ids: readonly string[];
}

// Ids and groups do not depend on where pieces sit, and an edit rarely changes them: a version
// whose pieces name the same steps in the same order reuses the previous version's maps.
interface IdIndex {
  readonly byGroup: ReadonlyMap<string, number>;
  readonly groupOfId: ReadonlyMap<string, string>;
  readonly ids: readonly string[];
}

interface Index extends IdIndex {
  readonly steps: readonly StepEntry[];
  readonly facts: readonly ChunkFacts[];
}

export class PlanSnapshot {
  private index?: Index;

  constructor(
    readonly text: string,
    readonly lines: readonly string[],
    readonly pieces: readonly Piece[],
    private previous?: PlanSnapshot,
  ) {
    // One version back is all a reuse needs: the older ones can go.
    if (previous) previous.previous = undefined;
  }

  /** The piece holding a line (the last one past the end). */
  pieceAt(line: number): Piece {
    let lo = 0,
      hi = this.pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.pieces[mid]!.startLine <= line) lo = mid;
      else hi = mid - 1;
    }
    return this.pieces[lo]!;
  }

  /** A piece's offsets as a document Range. */
  range(piece: Piece, s: Span): Range {
    const lc = piece.parsed.lp.lineCounter;
    const a = lc.linePos(s[0]),
      b = lc.linePos(Math.max(s[0], s[1]));
    return {
      start: { line: piece.startLine + a.line - 1, column: a.col - 1 },
      end: { line: piece.startLine + b.line - 1, column: b.col - 1 },
    };
  }

  /** A document position as an offset in its piece. */
  offsetIn(piece: Piece, line: number, column: number): number {
    let off = 0;
    for (let l = piece.startLine; l < line && l < piece.endLine; l++) off += this.lines[l]!.length + 1;
    return off + column;
  }

  get steps(): readonly StepEntry[] {
    return this.built().steps;
  }
  stepByGroup(group: string): StepEntry | undefined {
    const b = this.built();
    const i = b.byGroup.get(group);
    return i === undefined ? undefined : b.steps[i];
  }
  /** The matrix group (step key) a concrete id or a group name belongs to. */
  groupOf(id: string): string | undefined {
    return this.built().groupOfId.get(id);
  }
  /** Every concrete step id, in file order. */
  allIds(): readonly string[] {
    return this.built().ids;
  }

  /** Names declared in the plan itself: agents, pools, top-level and defaults env, plan name. */
  declared(): { agents: string[]; pools: string[]; env: string[]; defaultAgent?: string; planName?: string } {
    const fs = this.built().facts;
    const defaultAgent = fs.find((f) => f.defaultAgent !== undefined)?.defaultAgent;
    const planName = fs.find((f) => f.planName !== undefined)?.planName;
    return {
      agents: fs.flatMap((f) => f.agents),
      pools: fs.flatMap((f) => f.pools),
      env: [...new Set(fs.flatMap((f) => [...f.env, ...f.defaultsEnv]))],
      ...(defaultAgent !== undefined ? { defaultAgent } : {}),
      ...(planName !== undefined ? { planName } : {}),
    };
  }

  private built(): Index {
    if (this.index) return this.index;
    const steps: StepEntry[] = [];
    for (const piece of this.pieces)
      for (const facts of piece.parsed.facts.steps) steps.push({ facts, piece, ids: idsOf(facts) });
    const reused =
      this.previous?.index && sameSteps(this.previous.pieces, this.pieces) ? this.previous.index : undefined;
    this.index = { ...(reused ?? idIndex(steps)), steps, facts: this.pieces.map((p) => p.parsed.facts) };
    this.previous = undefined;
    return this.index;
  }
}

function idIndex(steps: readonly StepEntry[]): IdIndex {
  const byGroup = new Map<string, number>();
  const groupOfId = new Map<string, string>();
  steps.forEach((s, i) => {
    if (!byGroup.has(s.facts.id)) byGroup.set(s.facts.id, i);
  });
  for (const s of steps) for (const id of s.ids) if (!groupOfId.has(id)) groupOfId.set(id, s.facts.id);
  for (const s of steps) if (!groupOfId.has(s.facts.id)) groupOfId.set(s.facts.id, s.facts.id);
  return { byGroup, groupOfId, ids: steps.flatMap((s) => s.ids) };
}

/** Whether two versions' pieces define the same step ids, in the same order. */
function sameSteps(a: readonly Piece[], b: readonly Piece[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!.parsed,
      y = b[i]!.parsed;
    if (x === y) continue;
    const xs = x.facts.steps,
      ys = y.facts.steps;
    if (xs.length !== ys.length) return false;
    for (let k = 0; k < xs.length; k++) {
      const p = idsOf(xs[k]!),
        q = idsOf(ys[k]!);
      if (xs[k]!.id !== ys[k]!.id || p.length !== q.length || p.some((id, j) => id !== q[j])) return false;
    }
  }
  return true;
}

const idCache = new WeakMap<StepFacts, readonly string[]>();
const idsOf = (f: StepFacts): readonly string[] => {
  let ids = idCache.get(f);
  if (!ids) idCache.set(f, (ids = concreteIds(f)));
  return ids;
};

/** The ids a step expands to, as expand.ts names them. */
export function concreteIds(s: StepFacts): string[] {
  if (!s.matrix) return [s.id];
  const lists = Object.values(s.matrix);
  if (lists.length === 0 || lists.some((l) => l.length === 0)) return [s.id];
  if (lists.reduce((n, l) => n * l.length, 1) > MAX_MATRIX_STEPS) return [];
  let acc: string[][] = [[]];
  for (const l of lists) acc = acc.flatMap((a) => l.map((v) => [...a, v]));
  return acc.map((vals) => instanceId(s.id, vals));
}

/** Keeps the parsed pieces of the last version; each new text reuses those it still holds. */
export class PlanSource {
  private prev?: { text: string; byStart: Map<number, Piece> };
  private lastSnapshot?: PlanSnapshot;
  private last?: { version: number; snapshot: PlanSnapshot };

  /** The snapshot of `text`; the same object again for the same version. */
  update(text: string, version?: number): PlanSnapshot {
    if (version !== undefined && this.last?.version === version && this.last.snapshot.text === text)
      return this.last.snapshot;
    const split = splitPlan(text);
    const prev = this.prev;
    // An edit changes one stretch of the text: pieces wholly before it are found at the same
    // offset, pieces wholly after it at the offset shifted by the length change.
    const prefix = prev ? commonPrefix(prev.text, text) : 0;
    const suffix = prev ? commonSuffix(prev.text, text, prefix) : 0;
    const delta = prev ? text.length - prev.text.length : 0;
    const byStart = new Map<number, Piece>();
    const pieces = split.spans.map((span): Piece => {
      let parsed: ParsedPiece | undefined;
      if (prev) {
        const length = span.endOffset - span.startOffset;
        const before = span.endOffset <= prefix;
        const after = span.startOffset >= text.length - suffix;
        const old = prev.byStart.get(before ? span.startOffset : after ? span.startOffset - delta : span.startOffset);
        if (old && old.kind === span.kind && old.endOffset - old.startOffset === length) {
          if (before || after || old.parsed.text === text.slice(span.startOffset, span.endOffset)) parsed = old.parsed;
        }
      }
      parsed ??= new ParsedPiece(text.slice(span.startOffset, span.endOffset), span.kind === 'step');
      const piece: Piece = {
        kind: span.kind,
        startLine: span.startLine,
        endLine: span.endLine,
        startOffset: span.startOffset,
        endOffset: span.endOffset,
        parsed,
      };
      byStart.set(span.startOffset, piece);
      return piece;
    });
    this.prev = { text, byStart };
    const snapshot = new PlanSnapshot(text, split.lines, pieces, this.lastSnapshot);
    this.lastSnapshot = snapshot;
    if (version !== undefined) this.last = { version, snapshot };
    return snapshot;
  }
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The length of the common end of `a` and `b`, not reaching back into their common start. */
function commonSuffix(a: string, b: string, prefix: number): number {
  const n = Math.min(a.length, b.length) - prefix;
  let i = 0;
  while (i < n && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}
