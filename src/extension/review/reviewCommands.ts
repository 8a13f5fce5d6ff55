// Review Changes, Review Run, Approve, Reject, Merge Again, Revert and Resolve in Merge Editor:
// each step's recorded change (run.json's `changes`) shown in VS Code's multi-file diff editor,
// and decisions sent to the engine (which has the run's own process carry them out).
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ChangeRecord } from '../../core/engine/records/changeRecord';
import type { StepStatus } from '../../core/status';
import { RunStore } from '../../core/engine/records/runStore';
import type { RunRecord } from '../../core/engine/records/runRecord';
import type { ReviewAction, StepOutcome } from '../../core/engine/review/reviewInbox';
import { writeConflictMarkers } from '../../core/engine/review/resolveByHand';
import { stepsWithChanges } from '../../core/engine/review/stepDiff';
import { changeUri, labelUri } from './changeDocuments';
import { Command, type RunRef, type StepRef } from '../common/commandIds';
import type { Engines } from '../engine/engines';
import { pickRun, pickStep, refOf } from '../runs/runPickers';
import type { RunsModel } from '../runs/runsModel';
import type { RunView } from '../runs/runView';
import { requireTrust } from '../common/trust';

export interface ReviewCommandDeps {
  readonly runs: RunsModel;
  readonly engines: Engines;
}

type Resource = [label: vscode.Uri, original: vscode.Uri | undefined, modified: vscode.Uri | undefined];

/** The multi-diff editor's entries for one change: left the base's content, right the change's. */
export function changeResources(
  root: string,
  stepId: string,
  change: ChangeRecord,
  label: (path: string) => vscode.Uri,
): Resource[] {
  return change.files.map((f) => [
    label(f.path),
    f.status === 'added' ? undefined : changeUri(root, change.base, f.from ?? f.path),
    f.status === 'deleted' ? undefined : changeUri(root, change.commit, f.path),
  ]);
}

export class ReviewCommands {
  constructor(private readonly d: ReviewCommandDeps) {}

  /** Opens the step's change in the multi-file diff editor; resolves with the files shown. */
  async reviewChanges(arg?: string | StepRef, stepArg?: string): Promise<number> {
    const ref = refOf(arg);
    const run = await pickRun(
      this.d.runs,
      ref.runId,
      () => true,
      'Review Changes',
      'Braid: no runs yet in this workspace.',
    );
    if (!run) return 0;
    const stepId = await pickStep(
      run,
      ref.stepId ?? stepArg,
      (ref.stepId ?? stepArg) ? undefined : ['review', 'succeeded', 'conflict'],
      'Review Changes',
    );
    if (!stepId) return 0;
    const rec = await this.record(run);
    const change = rec?.steps[stepId]?.changes;
    if (!change || change.files.length === 0) {
      void vscode.window.showInformationMessage(
        `Braid: ${stepId} recorded no change${change ? ' (it changed nothing)' : ''}.`,
      );
      return 0;
    }
    const resources = changeResources(run.workspace, stepId, change, (p) => vscode.Uri.file(join(run.workspace, p)));
    await vscode.commands.executeCommand(
      'vscode.changes',
      `Braid: ${stepId} (${rec.steps[stepId]!.status}) · ${run.planName}`,
      resources,
    );
    return resources.length;
  }

  /** Every step's change of a run in one multi-file diff editor, grouped by step; resolves with the files shown. */
  async reviewRun(arg?: string | RunRef): Promise<number> {
    const run = await pickRun(
      this.d.runs,
      refOf(arg).runId,
      () => true,
      'Review Run',
      'Braid: no runs yet in this workspace.',
    );
    if (!run) return 0;
    const rec = await this.record(run);
    const steps = rec ? stepsWithChanges(rec) : [];
    if (!rec || steps.length === 0) {
      void vscode.window.showInformationMessage(`Braid: no step of ${run.planName} recorded a change.`);
      return 0;
    }
    const resources = steps.flatMap((id) =>
      changeResources(run.workspace, id, rec.steps[id]!.changes!, (p) => labelUri(id, p)),
    );
    await vscode.commands.executeCommand('vscode.changes', `Braid: ${run.planName} · every step's change`, resources);
    return resources.length;
  }

  approve(arg?: string | StepRef, stepArg?: string): Promise<StepOutcome[]> {
    return this.decide('approve', arg, stepArg, ['review'], 'Approve');
  }

  async reject(arg?: string | StepRef, stepArg?: string, reason?: string): Promise<StepOutcome[]> {
    return this.decide('reject', arg, stepArg, ['review'], 'Reject', reason);
  }

  mergeAgain(arg?: string | StepRef, stepArg?: string): Promise<StepOutcome[]> {
    return this.decide('merge', arg, stepArg, ['conflict'], 'Merge Again');
  }

  revert(arg?: string | StepRef, stepArg?: string): Promise<StepOutcome[]> {
    return this.decide('revert', arg, stepArg, ['succeeded'], 'Revert Change');
  }

  /**
   * Only on the user's word: writes a conflict step's change into the workspace with conflict
   * markers where it does not merge, and opens the merge editor on each such file.
   */
  async resolveInMergeEditor(arg?: string | StepRef, stepArg?: string): Promise<number> {
    if (!requireTrust("write a step's change into the workspace")) return 0;
    const ref = refOf(arg);
    const run = await pickRun(
      this.d.runs,
      ref.runId,
      (r) => [...r.steps.values()].some((s) => s.status === 'conflict'),
      'Resolve in Merge Editor',
      'Braid: no run has a step in conflict.',
    );
    if (!run) return 0;
    const stepId = await pickStep(run, ref.stepId ?? stepArg, ['conflict'], 'Resolve in Merge Editor');
    if (!stepId) return 0;
    const change = (await this.record(run))?.steps[stepId]?.changes;
    if (!change) {
      void vscode.window.showInformationMessage(`Braid: ${stepId} recorded no change.`);
      return 0;
    }
    const ok = await vscode.window.showWarningMessage(
      `Braid: write ${stepId}'s change into your files, with conflict markers where it does not merge, and resolve them in the merge editor?`,
      {
        modal: true,
        detail: `${change.files.length} file${change.files.length === 1 ? '' : 's'}. Merge Again leaves the workspace untouched when it cannot merge; this does not.`,
      },
      'Write and Resolve',
    );
    if (ok !== 'Write and Resolve') return 0;
    const m = await writeConflictMarkers(run.workspace, stepId, change);
    for (const c of m.conflicted) {
      await vscode.commands.executeCommand('_open.mergeEditor', {
        base: changeUri(run.workspace, change.base, c.path),
        input1: { uri: vscode.Uri.file(c.before), title: 'Workspace' },
        input2: { uri: changeUri(run.workspace, change.commit, c.path), title: stepId },
        output: vscode.Uri.file(join(run.workspace, c.path)),
      });
    }
    const skipped = m.skipped.map((s) => `${s.path} (${s.why})`).join(', ');
    void vscode.window.showInformationMessage(
      `Braid: ${stepId}: ${m.merged.length} merged, ${m.conflicted.length} to resolve${skipped ? `; left as they are: ${skipped}` : ''}.`,
    );
    return m.conflicted.length;
  }

  private async decide(
    action: ReviewAction,
    arg: string | StepRef | undefined,
    stepArg: string | undefined,
    statuses: readonly StepStatus[],
    title: string,
    reason?: string,
  ): Promise<StepOutcome[]> {
    if (!requireTrust(`${title.toLowerCase()} a step`)) return [];
    const ref = refOf(arg);
    const run = await pickRun(
      this.d.runs,
      ref.runId,
      (r) => [...r.steps.values()].some((s) => statuses.includes(s.status)),
      title,
      `Braid: no run has a step to ${title.toLowerCase()} (${statuses.join(' or ')}).`,
    );
    if (!run) return [];
    const stepId = await pickStep(run, ref.stepId ?? stepArg, (ref.stepId ?? stepArg) ? undefined : statuses, title);
    if (!stepId) return [];
    let results: StepOutcome[];
    try {
      results = await this.d.engines.review(run.id, {
        action,
        steps: [stepId],
        ...(reason !== undefined ? { reason } : {}),
      });
    } catch (e) {
      void vscode.window.showErrorMessage(`Braid: ${title} ${stepId}: ${(e as Error).message}`);
      return [];
    }
    for (const o of results) {
      if (!o.ok) void vscode.window.showErrorMessage(`Braid: ${title} ${o.step}: ${o.message}`);
      else if (o.status === 'conflict') void this.offerConflict(run.id, o.step, o.message);
      else if (o.dependents && o.dependents.length > 0) void this.offerDependents(run.id, o.step, o.dependents);
    }
    // The record changed on disk after a run's end: the views read it again.
    await this.d.runs.loadRecords([run.workspace]);
    return results;
  }

  /** A change that landed on an ended run: what it blocked has not run; ask before running it (a retry of the run). */
  private async offerDependents(runId: string, stepId: string, dependents: readonly string[]): Promise<void> {
    const pick = await vscode.window.showInformationMessage(
      `Braid: ${stepId} landed; ${dependents.join(', ')} ${dependents.length === 1 ? 'has' : 'have'} not run.`,
      'Run Them',
    );
    if (pick === 'Run Them') await vscode.commands.executeCommand(Command.retryFailed, runId);
  }

  /** A landing that conflicted: Merge Again later, or (the user's choice) resolve it by hand. */
  private async offerConflict(runId: string, stepId: string, message: string | undefined): Promise<void> {
    const pick = await vscode.window.showWarningMessage(
      `Braid: ${stepId} does not merge into the workspace: ${message ?? 'conflict'}`,
      'Review Changes',
      'Resolve with Agent',
      'Resolve in Merge Editor',
    );
    if (pick === 'Review Changes') await this.reviewChanges(runId, stepId);
    if (pick === 'Resolve with Agent') await vscode.commands.executeCommand('braid.resolveWithAgent', runId, stepId);
    if (pick === 'Resolve in Merge Editor') await this.resolveInMergeEditor(runId, stepId);
  }

  private record(run: RunView): Promise<RunRecord | undefined> {
    return new RunStore(run.workspace).load(run.id);
  }
}
