// The commands that look rather than run: logs, validation, a new plan, clean-up, worktrees and
// the plan's source. They work in an untrusted workspace too, except clean-up (it runs git).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import * as vscode from 'vscode';
import { RunStore } from '../../core/engine/records/runStore';
import type { RunRef, StepRef } from '../common/commandIds';
import type { PlanDiagnostics } from '../plans/diagnostics';
import { toRange } from '../plans/diagnostics';
import { pickInstance, pickRun, pickStep, refOf } from './runPickers';
import { pickPlan, type Plans } from '../plans/plans';
import type { RunsModel } from './runsModel';
import { isActive } from './runView';
import { requireTrust } from '../common/trust';

export interface ViewCommandDeps {
  readonly plans: Plans;
  readonly diagnostics: PlanDiagnostics;
  readonly runs: RunsModel;
  readonly cliPath: string;
}

export class ViewCommands {
  constructor(private readonly d: ViewCommandDeps) {}

  async showLog(
    arg?: string | StepRef,
    stepArg?: string,
    among?: readonly string[],
  ): Promise<vscode.TextEditor | undefined> {
    const ref = refOf(arg);
    const run = await pickRun(this.d.runs, ref.runId, () => true, 'Show Log', 'Braid: no runs yet in this workspace.');
    if (!run) return undefined;
    const given = ref.stepId ?? stepArg;
    const stepId =
      given === undefined && among !== undefined
        ? await pickInstance(run, among, 'Show Log of which instance?')
        : await pickStep(run, given, undefined, 'Show Log');
    if (!stepId) return undefined;
    const file = new RunStore(run.workspace).paths(run.id).log(stepId);
    if (!existsSync(file)) {
      void vscode.window.showInformationMessage(`Braid: ${stepId} has no log yet (it has not started).`);
      return undefined;
    }
    // An open, unmodified log editor reloads as the file grows: the log follows the run.
    return vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true, preserveFocus: false });
  }

  async validatePlan(uri?: vscode.Uri): Promise<number | undefined> {
    const plan = await pickPlan(this.d.plans, uri);
    if (!plan) return undefined;
    const problems = await this.d.diagnostics.refresh(plan);
    const errors = problems.filter((p) => p.severity === 'error').length;
    const warnings = problems.length - errors;
    const name = vscode.workspace.asRelativePath(plan);
    if (problems.length === 0) {
      const { graph } = await this.d.plans.compile(plan);
      void vscode.window.showInformationMessage(`Braid: ${name} is valid (${graph?.order.length ?? 0} steps).`);
    } else {
      // Not awaited: the command answers with the count; the notification waits for the user.
      void vscode.window[errors ? 'showErrorMessage' : 'showWarningMessage'](
        `Braid: ${name}: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}.`,
        'Show Problems',
      ).then((pick) => pick && vscode.commands.executeCommand('workbench.actions.view.problems'));
    }
    return errors;
  }

  async cleanRun(arg?: string | RunRef): Promise<boolean> {
    if (!requireTrust('clean up a run')) return false;
    const run = await pickRun(
      this.d.runs,
      refOf(arg).runId,
      (r) => !isActive(r),
      'Clean Up Run',
      'Braid: no ended run to clean up.',
    );
    if (!run) return false;
    const kept = [...run.steps.values()].filter((s) => s.worktree).length;
    if (kept > 0) {
      const ok = await vscode.window.showWarningMessage(
        `Braid: remove ${kept} kept worktree${kept === 1 ? '' : 's'} of ${run.planName}, with their changes?`,
        { modal: true },
        'Remove',
      );
      if (ok !== 'Remove') return false;
    }
    // The CLI owns clean-up (git worktree remove, branch delete): one implementation for both faces.
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [this.d.cliPath, 'clean', run.id, '--workspace', run.workspace],
        { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } },
        (err, _out, stderr) => {
          if (err)
            void vscode.window.showErrorMessage(`Braid: clean-up of ${run.id} failed: ${stderr.trim() || err.message}`);
          // The CLI's own sentence says what went (or that nothing was kept).
          else
            void vscode.window.showInformationMessage(
              `Braid: ${run.planName} (${run.id}): ${stderr.trim() || 'cleaned up'}.`.replace(/\.\.$/, '.'),
            );
          resolve(!err);
        },
      );
    });
  }

  async openWorktree(arg?: string | StepRef, stepArg?: string): Promise<void> {
    const ref = refOf(arg);
    const run = await pickRun(
      this.d.runs,
      ref.runId,
      (r) => [...r.steps.values()].some((s) => s.worktree),
      'Open Worktree',
      'Braid: no run kept a worktree.',
    );
    if (!run) return;
    const stepId = await pickStep(run, ref.stepId ?? stepArg, undefined, 'Open Worktree');
    const wt = stepId ? run.steps.get(stepId)?.worktree : undefined;
    if (!wt) {
      if (stepId) void vscode.window.showInformationMessage(`Braid: ${stepId} kept no worktree.`);
      return;
    }
    await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(resolve(run.workspace, wt)), {
      forceNewWindow: true,
    });
  }

  async revealStep(arg?: string | StepRef, stepArg?: string): Promise<void> {
    const ref = refOf(arg);
    const run = await pickRun(
      this.d.runs,
      ref.runId,
      () => true,
      'Reveal in Plan',
      'Braid: no runs yet in this workspace.',
    );
    if (!run) return;
    const stepId = await pickStep(run, ref.stepId ?? stepArg, undefined, 'Reveal in Plan');
    if (!stepId) return;
    const uri = vscode.Uri.file(run.planFile);
    const { graph } = await this.d.plans.compile(uri);
    const step = graph?.steps.get(stepId);
    const range = step ? toRange(step.range) : new vscode.Range(0, 0, 0, 0);
    await vscode.window.showTextDocument(uri, { selection: range });
  }
}
