// The plan language service's VS Code face: completion, hover, definition, references, rename,
// Outline symbols and quick fixes for *.braid.{yaml,yml,json}, each provider converting between
// VS Code's types and the core's plain data (src/core/language). No YAML extension is needed;
// where one (or VS Code's JSON service) already reads the plan schema, keys and enum values are
// left to it and only what the schema cannot know is added.
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { PlanLanguageService, type DocumentRef } from '../../core/language/languageService';
import { keyDocsFromSchema } from '../../core/language/schemaDocs';
import type { CompletionItem, CompletionKind, ServiceContext } from '../../core/language/types';
import type { KeyDocs } from '../../core/plan/keyDocs';
import type { Position } from '../../core/plan/types';
import { runningMs, type TimeFacts } from '../../core/format';
import type { StepStatus } from '../../core/status';
import { readSettings } from '../common/config';
import { toRange } from './diagnostics';
import type { Plans } from './plans';

export interface LanguageDeps {
  readonly selector: vscode.DocumentSelector;
  /** out/plan.schema.json: the key docs are its descriptions. */
  readonly schemaPath: string;
  /** For the plan's own diagnostics (the quick fixes' suggestions), cached by version. */
  readonly plans: Pick<Plans, 'compileDocument'>;
  /** Read only: a step id's hover shows its last run (the runs model, runs/runsModel.ts). */
  readonly runs: {
    latestOf(
      planFile: string,
    ): { readonly steps: ReadonlyMap<string, TimeFacts & { readonly status: StepStatus }> } | undefined;
  };
}

const TRIGGERS = ['.', ':', ' ', '[', ',', '{'];
const YAML_EXTENSION = 'redhat.vscode-yaml';

const KIND: Record<CompletionKind, vscode.CompletionItemKind> = {
  key: vscode.CompletionItemKind.Property,
  value: vscode.CompletionItemKind.EnumMember,
  step: vscode.CompletionItemKind.Module,
  agent: vscode.CompletionItemKind.Class,
  pool: vscode.CompletionItemKind.Constant,
  template: vscode.CompletionItemKind.Variable,
  glob: vscode.CompletionItemKind.Reference,
};

const toPosition = (p: vscode.Position): Position => ({ line: p.line, column: p.character });
const ref = (doc: vscode.TextDocument): DocumentRef => ({
  key: doc.uri.toString(),
  version: doc.version,
  text: doc.getText(),
});

function readDocs(schemaPath: string): KeyDocs {
  try {
    return keyDocsFromSchema(JSON.parse(readFileSync(schemaPath, 'utf8')));
  } catch {
    // A build without the schema still completes; it just has no key docs to show.
    return { plan: new Map(), step: new Map() };
  }
}

/** Registers every provider; the returned Disposable removes them. */
export function registerLanguageService(deps: LanguageDeps): vscode.Disposable {
  const service = new PlanLanguageService(readDocs(deps.schemaPath));
  const context = (doc: vscode.TextDocument): ServiceContext => ({
    agents: Object.keys(readSettings(doc.uri).agents),
    lastRun: (id) => {
      const s = deps.runs.latestOf(doc.uri.fsPath)?.steps.get(id);
      const ran = s ? runningMs(s, Date.now()) : undefined;
      return s ? { status: s.status, ...(ran !== undefined ? { durationMs: ran } : {}) } : undefined;
    },
    schemaServed:
      doc.languageId === 'json' ||
      doc.languageId === 'jsonc' ||
      vscode.extensions.getExtension(YAML_EXTENSION) !== undefined,
  });
  const toItem = (i: CompletionItem): vscode.CompletionItem => {
    const item = new vscode.CompletionItem(i.label, KIND[i.kind]);
    item.range = toRange(i.range);
    if (i.insertText !== undefined) item.insertText = i.insertText;
    if (i.detail !== undefined) item.detail = i.detail;
    if (i.documentation !== undefined) item.documentation = new vscode.MarkdownString(i.documentation);
    if (i.sortText !== undefined) item.sortText = i.sortText;
    if (i.retrigger) item.command = { title: 'more', command: 'editor.action.triggerSuggest' };
    return item;
  };
  const { selector } = deps;
  const subs: vscode.Disposable[] = [
    vscode.workspace.onDidCloseTextDocument((d) => service.forget(d.uri.toString())),
    vscode.languages.registerCompletionItemProvider(
      selector,
      {
        provideCompletionItems: (doc, pos, _token, c) =>
          service.completion(ref(doc), toPosition(pos), context(doc), c.triggerCharacter).map(toItem),
      },
      ...TRIGGERS,
    ),
    vscode.languages.registerHoverProvider(selector, {
      provideHover: (doc, pos) => {
        const h = service.hover(ref(doc), toPosition(pos), context(doc));
        return h && new vscode.Hover(new vscode.MarkdownString(h.contents), toRange(h.range));
      },
    }),
    vscode.languages.registerDefinitionProvider(selector, {
      provideDefinition: (doc, pos) => {
        const d = service.definition(ref(doc), toPosition(pos));
        return d && new vscode.Location(doc.uri, toRange(d.range));
      },
    }),
    vscode.languages.registerReferenceProvider(selector, {
      provideReferences: (doc, pos, c) =>
        service
          .references(ref(doc), toPosition(pos), c.includeDeclaration)
          .map((l) => new vscode.Location(doc.uri, toRange(l.range))),
    }),
    vscode.languages.registerRenameProvider(selector, {
      prepareRename: (doc, pos) => {
        const r = service.prepareRename(ref(doc), toPosition(pos));
        // Thrown, as the API asks: VS Code shows the message where the rename box would be.
        if ('error' in r) throw new Error(r.error);
        return { range: toRange(r.range), placeholder: r.text };
      },
      provideRenameEdits: (doc, pos, newName) => {
        const r = service.rename(ref(doc), toPosition(pos), newName);
        if ('error' in r) throw new Error(r.error);
        const edit = new vscode.WorkspaceEdit();
        for (const e of r.edits) edit.replace(doc.uri, toRange(e.range), e.newText);
        return edit;
      },
    }),
    vscode.languages.registerDocumentSymbolProvider(
      selector,
      {
        provideDocumentSymbols: (doc) =>
          service
            .symbols(ref(doc))
            .map(
              (s) =>
                new vscode.DocumentSymbol(
                  s.name,
                  s.detail,
                  s.kind === 'agent' ? vscode.SymbolKind.Event : vscode.SymbolKind.Function,
                  toRange(s.range),
                  toRange(s.selectionRange),
                ),
            ),
      },
      { label: 'Braid steps' },
    ),
    vscode.languages.registerCodeActionsProvider(
      selector,
      {
        provideCodeActions: async (doc, _range, c) => {
          const mine = c.diagnostics.filter((d) => d.source === 'braid');
          if (mine.length === 0) return [];
          // VS Code's diagnostics carry no data: the plan's own (same version, cached) hold the suggestions.
          const { diagnostics } = await deps.plans.compileDocument(doc);
          const fixable = mine.map((d) => {
            const core = diagnostics.find(
              (x) => x.code === d.code && x.message === d.message && toRange(x.range).isEqual(d.range),
            );
            return {
              code: String(d.code ?? ''),
              message: d.message,
              range: { start: toPosition(d.range.start), end: toPosition(d.range.end) },
              ...(core?.suggestion !== undefined ? { suggestion: core.suggestion } : {}),
            };
          });
          return service.quickFixes(ref(doc), fixable).map((a) => {
            const action = new vscode.CodeAction(a.title, vscode.CodeActionKind.QuickFix);
            action.edit = new vscode.WorkspaceEdit();
            for (const e of a.edits) action.edit.replace(doc.uri, toRange(e.range), e.newText);
            action.diagnostics = [mine[a.diagnostic]!];
            action.isPreferred = a.preferred;
            return action;
          });
        },
      },
      { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] },
    ),
  ];
  return vscode.Disposable.from(...subs);
}
