// The plan language service: one entry point over the pieces in this folder, keeping each open
// document's parsed pieces between versions (planSnapshot.ts) so a request after an edit costs
// the edited step, not the plan. Every answer is plain data; nothing throws on broken YAML.
import type { KeyDocs } from '../plan/keyDocs';
import type { Position } from '../plan/types';
import { complete } from './completion';
import { hover } from './hover';
import { definition, prepareRename, references, rename } from './navigation';
import { PlanSource, type PlanSnapshot } from './planSnapshot';
import { quickFixes, type FixableDiagnostic } from './quickFixes';
import { documentSymbols } from './symbols';
import type { CodeAction, CompletionItem, DocumentSymbol, Hover, Location, ServiceContext, TextEdit } from './types';

export interface DocumentRef {
  /** Identifies the document (its URI). */
  readonly key: string;
  readonly version: number;
  readonly text: string;
}

export class PlanLanguageService {
  private readonly sources = new Map<string, PlanSource>();

  constructor(private readonly docs: KeyDocs) {}

  /** The parsed document, reusing the previous version's unchanged pieces. */
  snapshot(d: DocumentRef): PlanSnapshot {
    let source = this.sources.get(d.key);
    if (!source) this.sources.set(d.key, (source = new PlanSource()));
    return source.update(d.text, d.version);
  }

  /** Drops a closed document's pieces. */
  forget(key: string): void {
    this.sources.delete(key);
  }

  completion(d: DocumentRef, pos: Position, ctx?: ServiceContext, trigger?: string): CompletionItem[] {
    return complete(this.snapshot(d), pos, this.docs, ctx, trigger);
  }

  hover(d: DocumentRef, pos: Position, ctx?: ServiceContext): Hover | undefined {
    return hover(this.snapshot(d), pos, this.docs, ctx);
  }

  definition(d: DocumentRef, pos: Position): Location | undefined {
    return definition(this.snapshot(d), pos);
  }

  references(d: DocumentRef, pos: Position, includeDeclaration = true): Location[] {
    return references(this.snapshot(d), pos, includeDeclaration);
  }

  prepareRename(d: DocumentRef, pos: Position): ReturnType<typeof prepareRename> {
    return prepareRename(this.snapshot(d), pos);
  }

  rename(d: DocumentRef, pos: Position, newName: string): { edits: TextEdit[] } | { error: string } {
    return rename(this.snapshot(d), pos, newName);
  }

  symbols(d: DocumentRef): DocumentSymbol[] {
    return documentSymbols(this.snapshot(d));
  }

  quickFixes(d: DocumentRef, diagnostics: readonly FixableDiagnostic[]): CodeAction[] {
    return quickFixes(this.snapshot(d), diagnostics);
  }
}
