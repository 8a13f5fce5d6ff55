// How deep a plan's text nests, read from yaml's lexer before anything is parsed. yaml's parser
// and composer recurse once per level (a generator frame per open collection when a dedent
// closes many at once), so ~3,000 levels overflow the stack inside yaml, where no caller can
// catch it cleanly. The lexer is a loop: it costs a fraction of the parse and cannot overflow.
import { CST, Lexer } from 'yaml';

/**
 * Nesting the pre-scan refuses. Well above the located check after the parse (MAX_DEPTH, 64), so
 * an estimate that is off by a level here or there never refuses a plan that check would accept,
 * and well below the ~1,500 levels yaml survives, so it never lets through one yaml cannot read.
 * The estimate can be low by at most half (a list at its parent key's column adds no column).
 */
export const PRESCAN_DEPTH = 256;

/**
 * The offset of the first token nested more than `limit` levels deep (block collections by the
 * columns of their indicators and keys, flow collections by their brackets), else undefined.
 */
export function nestingPast(text: string, limit = PRESCAN_DEPTH): number | undefined {
  return prescan(text, limit).tooDeep;
}

/**
 * Most keys and values (scalars) a plan may hold. yaml keeps a syntax-tree token and a node with
 * its range for each, about 1.5 KB a value once validated: 250,000 `needs` took 420 MB. A
 * 10,000-step plan holds about 70,000; past this cap the text is refused, located, unparsed.
 */
export const MAX_VALUES = 100_000;

export interface Prescan {
  /** The offset of the first token nested more than the limit deep. */
  tooDeep?: number;
  /** The offset of the scalar past MAX_VALUES. */
  tooMany?: number;
}

/** One pass of yaml's lexer: where the text nests too deep, and where it holds too many values. */
export function prescan(text: string, limit = PRESCAN_DEPTH, maxValues = MAX_VALUES): Prescan {
  const columns: number[] = [];
  let values = 0;
  let flow = 0,
    offset = 0,
    col = 0,
    contentCol = 0;
  const block = (c: number): number | undefined => {
    while (columns.length > 0 && columns[columns.length - 1]! > c) columns.pop();
    if (columns.length === 0 || columns[columns.length - 1]! < c) columns.push(c);
    return columns.length + flow > limit ? offset : undefined;
  };
  for (const token of new Lexer().lex(text)) {
    let past: number | undefined;
    switch (CST.tokenType(token)) {
      // Markers the lexer adds: no width in the text.
      case 'doc-mode':
      case 'scalar':
      case 'flow-error-end':
        if (token === CST.FLOW_END) flow = 0;
        if (token === CST.SCALAR) {
          contentCol = col;
          if (++values > maxValues) return { tooMany: offset };
        }
        continue;
      case 'doc-start':
        columns.length = 0;
        flow = 0;
        break;
      case 'flow-map-start':
      case 'flow-seq-start':
        if (flow === 0) contentCol = col;
        flow++;
        if (columns.length + flow > limit) past = offset;
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        flow = Math.max(0, flow - 1);
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
        if (flow === 0) past = block(col);
        break;
      case 'map-value-ind':
        if (flow === 0) past = block(contentCol);
        break;
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
        if (++values > maxValues) return { tooMany: offset };
        if (flow === 0) contentCol = col;
        break;
      case 'alias':
      case 'anchor':
      case 'tag':
        if (flow === 0) contentCol = col;
        break;
      default:
        break;
    }
    if (past !== undefined) return { tooDeep: past };
    offset += token.length;
    const nl = token.lastIndexOf('\n');
    col = nl < 0 ? col + token.length : token.length - nl - 1;
  }
  return {};
}
