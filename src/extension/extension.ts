// Minimal extension entry: registers the commands package.json declares, so the extension-host
// harness (test/vscode) tests something real. The full extension replaces this file.
import * as vscode from 'vscode';

const PENDING_COMMANDS = ['braid.validatePlan', 'braid.showGraph'] as const;

/** Called by VS Code when a workspace contains a plan, or when a Braid command runs. */
export function activate(context: vscode.ExtensionContext): void {
  for (const id of PENDING_COMMANDS) {
    context.subscriptions.push(
      vscode.commands.registerCommand(id, () => vscode.window.showInformationMessage(`Braid: ${id} is not implemented yet.`)),
    );
  }
}

/** Nothing to undo beyond context.subscriptions, which VS Code disposes. */
export function deactivate(): void {}
