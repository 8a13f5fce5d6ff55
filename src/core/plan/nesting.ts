// How deep a plan's text nests and how many values it holds, read token by token from yaml's
// lexer as the tokens go to the parser (cappedParse.ts), so the text is lexed once. yaml's parser
// and composer recurse once per level (a generator frame per open collection when a dedent closes
// many at once), so ~3,000 levels overflow the stack inside yaml, where no caller can catch it
// cleanly: the scan refuses the token that opens a level too deep, before the dedent that would
// close them all has reached the parser.
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
 * Most nodes (keys, values, aliases, collections and list items) a plan may hold. yaml keeps a
 * syntax-tree token and a node with its range for each, about 1.5 KB once validated: 250,000
 * `needs` took 420 MB, 1,600,000 empty mappings (`[{}, {}, …]`, 5 MB) 2.3 GB and 16 s. A
 * 10,000-step plan holds about 90,000; past this cap the text is refused, located, unparsed.
 */
export const MAX_VALUES = 150_000;

/**
 * Most lexer tokens (a node, but also each indent, line break, comment and bracket): 4.9 million
 * blank lines, no node among them, took 8.5 s and 550 MB in yaml's parser. A 10,000-step plan
 * with a few fields a step lexes to about 330,000.
 */
export const MAX_TOKENS = 750_000;

export interface Prescan {
  /** The offset of the first token nested more than the limit deep. */
  tooDeep?: number;
  /** The offset of the node past MAX_VALUES. */
  tooMany?: number;
  /** The offset of the token past MAX_TOKENS. */
  tooLong?: number;
}

type TokenType = ReturnType<typeof CST.tokenType>;
const NODES: ReadonlySet<TokenType> = new Set<TokenType>([
  'scalar',
  'single-quoted-scalar',
  'double-quoted-scalar',
  'alias',
  'flow-map-start',
  'flow-seq-start',
  'seq-item-ind',
  'explicit-key-ind',
]);

/** The lexer's tokens, one at a time: where the text nests too deep, holds too many nodes, or too many tokens. */
export class Prescanner {
  private readonly columns: number[] = [];
  private values = 0;
  private tokens = 0;
  private flow = 0;
  private offset = 0;
  private col = 0;
  private contentCol = 0;

  constructor(
    private readonly limit = PRESCAN_DEPTH,
    private readonly maxValues = MAX_VALUES,
    private readonly maxTokens = MAX_TOKENS,
  ) {}

  /** Reads the next lexer token; a refusal at it, else undefined. */
  feed(token: string): Prescan | undefined {
    let past: number | undefined;
    if (++this.tokens > this.maxTokens) return { tooLong: this.offset };
    const type = CST.tokenType(token);
    // Each of these makes a node (a scalar's text follows its marker and makes none of its own).
    if (NODES.has(type) && ++this.values > this.maxValues) return { tooMany: this.offset };
    switch (type) {
      // Markers the lexer adds: no width in the text.
      case 'doc-mode':
      case 'scalar':
      case 'flow-error-end':
        if (token === CST.FLOW_END) this.flow = 0;
        if (token === CST.SCALAR) this.contentCol = this.col;
        return undefined;
      case 'doc-start':
        this.columns.length = 0;
        this.flow = 0;
        break;
      case 'flow-map-start':
      case 'flow-seq-start':
        if (this.flow === 0) this.contentCol = this.col;
        this.flow++;
        if (this.columns.length + this.flow > this.limit) past = this.offset;
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        this.flow = Math.max(0, this.flow - 1);
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
        if (this.flow === 0) past = this.block(this.col);
        break;
      case 'map-value-ind':
        if (this.flow === 0) past = this.block(this.contentCol);
        break;
      case 'single-quoted-scalar':
      case 'double-quoted-scalar':
        if (this.flow === 0) this.contentCol = this.col;
        break;
      case 'alias':
      case 'anchor':
      case 'tag':
        if (this.flow === 0) this.contentCol = this.col;
        break;
      default:
        break;
    }
    if (past !== undefined) return { tooDeep: past };
    this.offset += token.length;
    const nl = token.lastIndexOf('\n');
    this.col = nl < 0 ? this.col + token.length : token.length - nl - 1;
    return undefined;
  }

  /** A block collection's indicator or key at column `c`: closes the deeper ones, opens one if new. */
  private block(c: number): number | undefined {
    const columns = this.columns;
    while (columns.length > 0 && columns[columns.length - 1]! > c) columns.pop();
    if (columns.length === 0 || columns[columns.length - 1]! < c) columns.push(c);
    return columns.length + this.flow > this.limit ? this.offset : undefined;
  }
}

/** One pass of yaml's lexer over the whole text through a Prescanner. */
export function prescan(text: string, limit = PRESCAN_DEPTH, maxValues = MAX_VALUES, maxTokens = MAX_TOKENS): Prescan {
  const scan = new Prescanner(limit, maxValues, maxTokens);
  for (const token of new Lexer().lex(text)) {
    const refused = scan.feed(token);
    if (refused) return refused;
  }
  return {};
}
