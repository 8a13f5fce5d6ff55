// Cutting a plan's text into pieces that parse on their own: each top-level key's block, and in
// a block-style `steps:` each step's block. An edit then re-parses only the piece it touched (a
// 5,000-step plan takes half a second to parse whole). Layouts this cannot cut safely (JSON,
// flow style, several documents, a top-level list) stay one piece: parsed whole, still correct.

export interface ChunkSpan {
  /** `step`: one entry of a block-style `steps:`; `top`: anything else. */
  readonly kind: 'top' | 'step';
  readonly startLine: number;
  /** Exclusive. */
  readonly endLine: number;
  readonly startOffset: number;
  readonly endOffset: number;
}

export interface SplitText {
  readonly lines: readonly string[];
  /** Offset of each line's first character. */
  readonly lineStarts: readonly number[];
  readonly spans: readonly ChunkSpan[];
}

// Char codes, not regular expressions: this runs on every line of every version.
const indentOf = (l: string): number => {
  let i = 0;
  while (l.charCodeAt(i) === 32) i++;
  return i;
};
/** Not blank and not only a comment. */
const isSignificant = (l: string): boolean => {
  let i = 0;
  while (i < l.length && (l.charCodeAt(i) === 32 || l.charCodeAt(i) === 9)) i++;
  const c = l.charCodeAt(i);
  return i < l.length && c !== 35 /* # */ && !(c === 13 && i === l.length - 1);
};
// A column-0 line that is not a `key:` of a block mapping.
const UNSAFE_TOP = /^(---|\.\.\.|%|-(\s|$)|[{[])/;
const STEPS_HEADER = /^(steps|"steps"|'steps')[ \t]*:[ \t]*(#.*)?\r?$/;

/** The lines of `text` and the pieces they are cut into. */
export function splitPlan(text: string): SplitText {
  const lines = text.split('\n');
  const lineStarts: number[] = new Array<number>(lines.length);
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    lineStarts[i] = at;
    at += lines[i]!.length + 1;
  }
  const offset = (line: number): number => (line < lines.length ? lineStarts[line]! : text.length);
  const span = (kind: ChunkSpan['kind'], startLine: number, endLine: number): ChunkSpan => ({
    kind,
    startLine,
    endLine,
    startOffset: offset(startLine),
    endOffset: offset(endLine),
  });
  const whole = { lines, lineStarts, spans: [span('top', 0, lines.length)] };

  const tops: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const c = l.charCodeAt(0);
    if (c === 32 || c === 35 || Number.isNaN(c) || !isSignificant(l)) continue;
    if (UNSAFE_TOP.test(l) || c === 9) return whole;
    tops.push(i);
  }
  if (tops.length === 0) return whole;
  const spans: ChunkSpan[] = [];
  tops.forEach((start, k) => {
    // Comments and blank lines before the first key belong to the first piece.
    const from = k === 0 ? 0 : start;
    const to = tops[k + 1] ?? lines.length;
    const steps = STEPS_HEADER.test(lines[start]!) ? stepStarts(lines, start + 1, to) : undefined;
    if (!steps || steps.length === 0) {
      spans.push(span('top', from, to));
      return;
    }
    spans.push(span('top', from, steps[0]!));
    steps.forEach((s, j) => spans.push(span('step', s, steps[j + 1] ?? to)));
  });
  return { lines, lineStarts, spans };
}

/** First lines of each step in a block-style `steps:` body, or undefined when it is not one. */
function stepStarts(lines: readonly string[], from: number, to: number): number[] | undefined {
  let indent = -1;
  const out: number[] = [];
  for (let i = from; i < to; i++) {
    const l = lines[i]!;
    const n = indentOf(l);
    if ((indent >= 0 && n > indent) || !isSignificant(l)) continue;
    if (indent < 0) indent = n;
    if (n < indent || l[n] === '\t') return undefined;
    // A list or a flow collection at the step level is not a mapping of steps: parse it whole.
    const c = l[n];
    if (c === '-' || c === '{' || c === '[' || c === '.') return undefined;
    out.push(i);
  }
  return out;
}
