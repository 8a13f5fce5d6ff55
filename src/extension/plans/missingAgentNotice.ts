// A plan whose agent CLI is not installed: a warning on the step's `agent:` line as soon as the plan
// is validated (before any run; core/engine/steps/missingAgents.ts), and, when a run is asked for, a notification with the install
// command whole and a *Copy* action, instead of a run that fails in its first step.
import * as vscode from 'vscode';
import { installCommand } from '../../core/agents/which';
import { missingAgentCommands, type MissingAgent } from '../../core/engine/steps/missingAgents';
import type { Graph } from '../../core/plan/types';

export { missingAgentDiagnostics } from '../../core/engine/steps/missingAgents';

/** The plan's missing agent CLIs among `selected` steps (all by default). */
export function missingFor(
  graph: Graph,
  workspace: string,
  selected: ReadonlySet<string> = new Set(graph.order),
): MissingAgent[] {
  return missingAgentCommands(graph, selected, workspace, process.env);
}

const COPY = 'Copy Install Command';
const PROBLEMS = 'Show Problems';

/** Says what is missing, short enough to read whole; *Copy* puts the install command on the clipboard. */
export async function noticeMissing(planName: string, missing: readonly MissingAgent[]): Promise<void> {
  const first = missing[0];
  if (!first) return;
  const install = installCommand(first.command);
  const others = missing.length > 1 ? ` (and ${missing.length - 1} more CLI${missing.length > 2 ? 's' : ''})` : '';
  const text = install
    ? `Braid: ${planName} needs ${first.command}${others}, which is not installed. Install it with: ${install}`
    : `Braid: ${planName} needs ${first.command}${others}, which is not on PATH.`;
  const pick = await vscode.window.showErrorMessage(text, ...(install ? [COPY] : []), PROBLEMS);
  if (pick === COPY && install) {
    await vscode.env.clipboard.writeText(install);
    void vscode.window.showInformationMessage(
      `Braid: copied "${install}": run it in a terminal, then run the plan again.`,
    );
  } else if (pick === PROBLEMS) {
    await vscode.commands.executeCommand('workbench.actions.view.problems');
  }
}
