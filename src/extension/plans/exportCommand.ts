// Export Plan to GitHub Actions: the plan as .github/workflows/braid-<plan>.yml in its workspace
// (its git root, else its workspace folder), written and opened. Exporting runs nothing.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import * as vscode from 'vscode';
import { exportGithubActions } from '../../core/export/githubActions';
import { planSlug } from '../../core/export/ghText';
import { compilePlan } from '../../core/plan/compile';
import { readSettings } from '../common/config';
import { pickPlan, type Plans } from './plans';

/** The workflow file a plan exports to, under `root`. */
export function workflowPathFor(root: string, planFile: string): string {
  return join(root, '.github', 'workflows', `braid-${planSlug(planFile)}.yml`);
}

/** Exports the plan (the given one, the active editor's, or picked); resolves with the file written. */
export async function exportPlanToGithubActions(plans: Plans, given?: vscode.Uri): Promise<vscode.Uri | undefined> {
  const plan = await pickPlan(plans, given);
  if (!plan) return undefined;
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === plan.toString());
  const text = open ? open.getText() : Buffer.from(await vscode.workspace.fs.readFile(plan)).toString('utf8');
  // As `braid export` compiles it: the agent presets at the permission setting, no machine-local overrides.
  const permission = readSettings(plan).agentPermission;
  const compiled = compilePlan(plan.fsPath, text, { isGit: true, permission });
  const name = vscode.workspace.asRelativePath(plan);
  if (!compiled.graph) {
    void vscode.window
      .showErrorMessage(`Braid: ${name} has problems; fix them to export it.`, 'Show Problems')
      .then((pick) => pick && vscode.commands.executeCommand('workbench.actions.view.problems'));
    return undefined;
  }
  // GitHub reads workflows at the repository's root: the plan's git root, else its workspace folder.
  const gitOrDir = await plans.workspaceOf(plan);
  const root = gitOrDir === dirname(plan.fsPath) ? (plans.folderOf(plan)?.uri.fsPath ?? gitOrDir) : gitOrDir;
  const planPath = relative(root, plan.fsPath).split(sep).join('/');
  const result = exportGithubActions(compiled.graph, { planPath, permission });
  const file = workflowPathFor(root, plan.fsPath);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, result.yaml);
  const uri = vscode.Uri.file(file);
  await vscode.window.showTextDocument(uri, { preview: false });
  const rel = vscode.workspace.asRelativePath(uri);
  if (result.problems.length > 0)
    void vscode.window.showErrorMessage(`Braid: ${rel} cannot run on GitHub: ${result.problems.join('; ')}`);
  else {
    const notes =
      result.notes.length > 0
        ? ` ${result.notes.length} setting${result.notes.length === 1 ? ' has' : 's have'} no counterpart there (see the file's header).`
        : '';
    void vscode.window.showInformationMessage(`Braid: exported ${name} to ${rel} (${result.jobs} jobs).${notes}`);
  }
  return uri;
}
