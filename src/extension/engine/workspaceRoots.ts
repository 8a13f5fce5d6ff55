// Where runs of the open folders are recorded: the engine, the new-run watch and `braid mcp` all
// serve these roots.
import * as vscode from 'vscode';
import { isGitRepo } from '../../core/engine/isolation/worktree';

/** Where runs of the open folders are recorded: each folder's git root, else the folder. */
export async function workspaceRoots(): Promise<string[]> {
  const roots = new Set<string>();
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    if (f.uri.scheme !== 'file') continue;
    roots.add((await isGitRepo(f.uri.fsPath)) ?? f.uri.fsPath);
  }
  return [...roots];
}
