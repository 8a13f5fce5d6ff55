// Plans run commands and agents: nothing runs in an untrusted workspace. Viewing and validating
// still work; the user is told why a run did not start and where to grant trust.
import * as vscode from 'vscode';

/** True when the workspace is trusted; otherwise says why nothing runs and returns false. */
export function requireTrust(what: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window
    .showWarningMessage(
      `Braid does not ${what} in an untrusted workspace: a plan runs commands and agents on this machine. Viewing and validating plans still work.`,
      'Manage Workspace Trust',
    )
    .then((pick) => {
      if (pick) void vscode.commands.executeCommand('workbench.trust.manage');
    });
  return false;
}
