// yaml's parseDocument, read once and bounded. The lexer's tokens go through the Prescanner
// (nesting.ts) on their way to the parser, so text nested too deep or holding too many values is
// refused at the token that crosses the limit, before yaml's recursion or memory can be spent on
// it, and the text is lexed once, not once to scan and again to parse. yaml makes one
// YAMLParseError per syntax mistake; on text that is all mistakes (2 MB of `]`: two million
// top-level error tokens) the parse of the rest was most of the time, for errors never shown.
// So past the cap an error report is only counted, and at the first error the cap leaves unbuilt
// the parser is fed no more: the rest of the text is not read, and the caller says where.
import {
  Composer,
  Lexer,
  Parser,
  YAMLParseError,
  type Document,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
} from 'yaml';
import { Prescanner, type Prescan } from './nesting';

export interface CappedParse {
  readonly doc: Document.Parsed;
  /** Errors and warnings yaml found past the cap: counted, never built. */
  readonly unbuiltErrors: number;
  readonly unbuiltWarnings: number;
  /** Where the pre-scan refused the text (then `doc` holds nothing of it). */
  readonly refused?: Prescan;
  /** The offset where reading stopped, at an error past the cap: the text from here is not read. */
  readonly stoppedAt?: number;
}

type OnError = (source: unknown, code: string, message: string, warning?: boolean) => void;
type Token = ReturnType<Parser['next']> extends Generator<infer T> ? T : never;

/** parseDocument(text, options), building at most `cap` errors and warnings and reading no further than an error past them. */
export function parseCapped(
  text: string,
  cap: number,
  options: ParseOptions & DocumentOptions & SchemaOptions,
  scan: Prescanner = new Prescanner(),
): CappedParse {
  const composer = new Composer(options);
  // onError is yaml's own field (private in its types), handed to every compose step it calls.
  const hooks = composer as unknown as { onError: OnError };
  const build = hooks.onError;
  let built = 0,
    unbuiltErrors = 0,
    unbuiltWarnings = 0,
    stop = false,
    cut = false;
  hooks.onError = (source, code, message, warning) => {
    // Once reading stopped, what is reported is about the cut (a collection left open), not the text.
    if (cut) return;
    if (built >= cap) {
      if (warning) unbuiltWarnings++;
      else {
        unbuiltErrors++;
        stop = true;
      }
      return;
    }
    built++;
    build(source, code, message, warning);
  };
  let refused: Prescan | undefined;
  let stoppedAt: number | undefined;
  const parser = new Parser();
  function* tokens(): Generator<Token> {
    for (const lexeme of new Lexer().lex(text)) {
      refused = scan.feed(lexeme);
      if (refused) return;
      if (stop) {
        stoppedAt ??= parser.offset;
        cut = true;
        break;
      }
      for (const token of parser.next(lexeme)) {
        if (token.type === 'error') {
          // The composer turns a top-level error token into an error without calling onError.
          if (built >= cap) {
            if (!stop) unbuiltErrors++;
            stop = true;
            stoppedAt ??= token.offset;
            continue;
          }
          built++;
        }
        yield token;
      }
    }
    // The collections still open (all of them, when reading stopped) end here, as at the text's end.
    yield* parser.end();
  }
  let doc: Document.Parsed | undefined;
  for (const d of composer.compose(tokens(), true, text.length)) {
    if (!doc) {
      doc = d;
      continue;
    }
    // As parseDocument says it: a second document is one error, and the rest is not read.
    doc.errors.push(
      new YAMLParseError(
        [d.range[0], d.range[1]],
        'MULTIPLE_DOCS',
        'Source contains multiple documents; please use YAML.parseAllDocuments()',
      ),
    );
    break;
  }
  // compose(…, forceDoc = true) always yields a document.
  if (!doc) throw new Error('yaml composed no document');
  return {
    doc,
    unbuiltErrors,
    unbuiltWarnings,
    ...(refused ? { refused } : {}),
    ...(stoppedAt !== undefined && stoppedAt < text.length ? { stoppedAt } : {}),
  };
}
