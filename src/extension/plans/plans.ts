// The plan files of the workspace and their compiled form, from the editor's text when open (so
// lenses and Problems follow typing) and from disk otherwise. Compiling is pure and cheap; results
// are cached by document version.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { isGitRepo } from '../../core/engine/isolation/worktree';
import { compilePlan, type CompileOptions, type CompileResult } from '../../core/plan/compile';
import { readSettings } from '../common/config';
import { BRAID_DIR } from '../../core/engine/records/braidLayout';

export const PLAN_GLOB = '**/*.braid.{yaml,yml,json}';
/** The plan files, for the providers that work on them (lenses, the language service). */
export const PLAN_SELECTOR: vscode.DocumentSelector = [{ scheme: 'file', pattern: PLAN_GLOB }];
const PLAN_NAME = /\.braid\.(ya?ml|json)$/i;

export function isPlanUri(uri: vscode.Uri): boolean {
  return uri.scheme === 'file' && PLAN_NAME.test(uri.path);
}

export class Plans implements vscode.Disposable {
  private readonly cache = new Map<string, { version: number; result: CompileResult }>();
  private readonly roots = new Map<string, string | undefined>();
  private readonly subs: vscode.Disposable[] = [];

  constructor() {
    this.subs.push(vscode.workspace.onDidCloseTextDocument((d) => this.cache.delete(d.uri.toString())));
  }

  /** Plans in the workspace, sorted by path; `.braid/` worktrees are not the user's plans. */
  async find(): Promise<vscode.Uri[]> {
    const found = await vscode.workspace.findFiles(PLAN_GLOB, `{**/node_modules/**,**/${BRAID_DIR}/**}`);
    return found.sort((a, b) => a.fsPath.localeCompare(b.fsPath));
  }

  /** The workspace folder a plan runs in: the folder that holds it. */
  folderOf(uri: vscode.Uri): vscode.WorkspaceFolder | undefined {
    return vscode.workspace.getWorkspaceFolder(uri);
  }

  /** The git top level holding the plan's folder, if any (cached: it does not change under us). */
  private async gitRoot(uri: vscode.Uri): Promise<string | undefined> {
    const dir = dirname(uri.fsPath);
    if (!this.roots.has(dir)) this.roots.set(dir, await isGitRepo(dir));
    return this.roots.get(dir);
  }

  /** Where a plan's runs happen and are recorded, as the CLI decides it: its git root, else its folder. */
  async workspaceOf(uri: vscode.Uri): Promise<string> {
    return (await this.gitRoot(uri)) ?? dirname(uri.fsPath);
  }

  async options(uri: vscode.Uri): Promise<CompileOptions> {
    const s = readSettings(uri);
    return {
      isGit: (await this.gitRoot(uri)) !== undefined,
      agentOverrides: Object.fromEntries(Object.entries(s.agents).map(([k, v]) => [k, { command: v }])),
      ...(s.isolation ? { defaultIsolation: s.isolation } : {}),
      permission: s.agentPermission,
    };
  }

  /** Compiles an open document (cached by version). */
  async compileDocument(doc: vscode.TextDocument): Promise<CompileResult> {
    const key = doc.uri.toString();
    const hit = this.cache.get(key);
    if (hit && hit.version === doc.version) return hit.result;
    const result = compilePlan(doc.uri.fsPath, doc.getText(), await this.options(doc.uri));
    this.cache.set(key, { version: doc.version, result });
    return result;
  }

  /** Compiles a plan from its open editor if there is one, else from disk. */
  async compile(uri: vscode.Uri): Promise<CompileResult> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (open) return this.compileDocument(open);
    return compilePlan(uri.fsPath, await readFile(uri.fsPath, 'utf8'), await this.options(uri));
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}

/** The plan a bare command acts on: the given one, the active editor's, the only one, else a quick pick. */
export async function pickPlan(plans: Plans, given?: vscode.Uri): Promise<vscode.Uri | undefined> {
  if (given) return given;
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active && isPlanUri(active)) return active;
  const found = await plans.find();
  if (found.length === 0) {
    const pick = await vscode.window.showInformationMessage(
      'Braid: there is no plan (*.braid.yaml) in this workspace.',
      'New Plan',
    );
    if (pick) await vscode.commands.executeCommand('braid.newPlan');
    return undefined;
  }
  if (found.length === 1) return found[0];
  const item = await vscode.window.showQuickPick(
    found.map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri })),
    { title: 'Braid: choose a plan', matchOnDescription: true },
  );
  return item?.uri;
}
