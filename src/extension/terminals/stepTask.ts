// A shown step is a VS Code task of type `braid` ({ plan, step, run }) whose CustomExecution is the
// step's pseudoterminal: the task's terminal is where its output shows, and ending the task is
// the user's "stop this step" (stepTerminals.ts). The task provider (taskProvider.ts) offers the
// same type to *launch* a plan or a step.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunView } from '../runs/runView';
import type { StepPty } from './stepPty';

export const TASK_TYPE = 'braid';
export interface BraidTaskDefinition extends vscode.TaskDefinition {
  readonly type: typeof TASK_TYPE;
  /** The plan file, relative to its workspace folder. */
  readonly plan: string;
  readonly step?: string;
  /**
   * The run a shown step belongs to. Without it a step's terminal task would have the same
   * definition, so the same task id, as the provider's task that *launches* that step: the
   * extension host keeps one custom execution an id, and a fetch of the provider's tasks (Run
   * Task) would swap ours for the launcher, so showing a step started a second run of it.
   */
  readonly run?: string;
}

/** Starts the task whose terminal shows `pty`: named after the step, as the run's. */
export async function executeStepTask(
  run: RunView | undefined,
  runId: string,
  stepId: string,
  pty: StepPty,
): Promise<vscode.TaskExecution | undefined> {
  const planUri = run ? vscode.Uri.file(run.planFile) : undefined;
  const folder = planUri ? vscode.workspace.getWorkspaceFolder(planUri) : undefined;
  const plan = run ? (folder ? path.relative(folder.uri.fsPath, run.planFile) : run.planFile) : '';
  const def: BraidTaskDefinition = { type: TASK_TYPE, plan, step: stepId, run: runId };
  const name = run?.steps.get(stepId)?.name ?? stepId;
  const task = new vscode.Task(
    def,
    folder ?? vscode.TaskScope.Workspace,
    name,
    'braid',
    new vscode.CustomExecution(async () => pty),
  );
  task.presentationOptions = {
    reveal: vscode.TaskRevealKind.Silent,
    focus: false,
    panel: vscode.TaskPanelKind.Dedicated,
    echo: false,
    clear: true,
    close: true,
  };
  task.isBackground = false;
  try {
    return await vscode.tasks.executeTask(task);
  } catch (err) {
    // A workbench that refuses tasks (e.g. untrusted) still runs the step: only the view is lost.
    console.warn(`braid: could not show step ${stepId} as a task: ${(err as Error).message}`);
    return undefined;
  }
}
