// Plan problems in the Problems panel at their exact ranges, refreshed as the user types
// (debounced) and for every plan in the workspace at start, so a broken plan shows unopened.
import * as vscode from 'vscode';
import type { Diagnostic, Range } from '../../core/plan/types';
import { missingAgentDiagnostics, missingFor } from './missingAgentNotice';
import { isPlanUri, type Plans } from './plans';

const DEBOUNCE_MS = 250;

export function toRange(r: Range): vscode.Range {
  return new vscode.Range(r.start.line, r.start.column, r.end.line, r.end.column);
}

const SEVERITY = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
} as const;

export function toDiagnostic(d: Diagnostic): vscode.Diagnostic {
  const out = new vscode.Diagnostic(toRange(d.range), d.message, SEVERITY[d.severity]);
  out.source = 'braid';
  out.code = d.code;
  return out;
}

export class PlanDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection('braid');
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly plans: Plans) {
    this.subs.push(
      vscode.workspace.onDidOpenTextDocument((d) => this.schedule(d, 0)),
      vscode.workspace.onDidChangeTextDocument((e) => this.schedule(e.document, DEBOUNCE_MS)),
      vscode.workspace.onDidDeleteFiles((e) => e.files.forEach((u) => this.collection.delete(u))),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('braid')) void this.refreshAll();
      }),
    );
    for (const d of vscode.workspace.textDocuments) this.schedule(d, 0);
  }

  /** Validates every plan in the workspace (opened ones from their editor text). */
  async refreshAll(): Promise<void> {
    for (const uri of await this.plans.find()) await this.refresh(uri);
  }

  /** Validates one plan now and returns its problems. */
  async refresh(uri: vscode.Uri): Promise<readonly Diagnostic[]> {
    try {
      const { graph, diagnostics: found } = await this.plans.compile(uri);
      // A valid plan whose agent CLI is missing says so on the `agent:` line, before any run.
      const missing = graph ? missingFor(graph, await this.plans.workspaceOf(uri)) : [];
      const diagnostics =
        missing.length === 0 ? found : [...found, ...missingAgentDiagnostics(graph!, await this.textOf(uri), missing)];
      this.collection.set(uri, diagnostics.map(toDiagnostic));
      return diagnostics;
    } catch (err) {
      // Unreadable file (deleted between find and read): nothing to show for it.
      this.collection.delete(uri);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return [];
    }
  }

  private async textOf(uri: vscode.Uri): Promise<string> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    return open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  }

  private schedule(doc: vscode.TextDocument, delay: number): void {
    if (!isPlanUri(doc.uri)) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.refresh(doc.uri);
      }, delay),
    );
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const s of this.subs) s.dispose();
    this.collection.dispose();
  }
}
