// yaml's parseDocument, with its error objects capped. yaml makes one YAMLParseError per syntax
// mistake, and on text that is all mistakes (2 MB of `]`: two million top-level error tokens)
// those objects, and the spread that copies them into the document, were most of the time and
// the memory (690 MB, 40 s). Here the parser's tokens stream into the composer as parseDocument
// does, but past the cap an error token is dropped and an error report only counted.
import {
  Composer,
  Parser,
  YAMLParseError,
  type Document,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
} from 'yaml';

export interface CappedParse {
  readonly doc: Document.Parsed;
  /** Errors and warnings yaml found past the cap: counted, never built. */
  readonly unbuiltErrors: number;
  readonly unbuiltWarnings: number;
}

type OnError = (source: unknown, code: string, message: string, warning?: boolean) => void;

/** parseDocument(text, options), building at most `cap` errors and warnings. */
export function parseCapped(
  text: string,
  cap: number,
  options: ParseOptions & DocumentOptions & SchemaOptions,
): CappedParse {
  const composer = new Composer(options);
  // onError is yaml's own field (private in its types), handed to every compose step it calls.
  const hooks = composer as unknown as { onError: OnError };
  const build = hooks.onError;
  let built = 0,
    unbuiltErrors = 0,
    unbuiltWarnings = 0;
  hooks.onError = (source, code, message, warning) => {
    if (built >= cap) {
      if (warning) unbuiltWarnings++;
      else unbuiltErrors++;
      return;
    }
    built++;
    build(source, code, message, warning);
  };
  function* tokens(): Generator<ReturnType<Parser['parse']> extends Generator<infer T> ? T : never> {
    for (const token of new Parser().parse(text)) {
      if (token.type === 'error') {
        // The composer turns a top-level error token into an error without calling onError.
        if (built >= cap) {
          unbuiltErrors++;
          continue;
        }
        built++;
      }
      yield token;
    }
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
  return { doc, unbuiltErrors, unbuiltWarnings };
}
