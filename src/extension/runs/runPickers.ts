// What a bare command acts on among runs and steps: the one candidate when there is exactly one
// (the only active run), else a quick pick. Undefined when the user cancels. (The plan the user
// means: plans.ts's pickPlan.)
import * as vscode from 'vscode';
import type { StepStatus } from '../../core/status';
import type { RunsModel } from './runsModel';
import { isActive, type RunView, type StepView } from './runView';
import { runProgress } from './treeText';
import type { RunRef, StepRef } from '../common/commandIds';
import { STATUS_LABEL } from '../common/statusText';
import { formatDuration, runningMs } from '../../core/format';

/** The run and step a command's argument names (an id, or the tree's item). */
export function refOf(arg: string | RunRef | StepRef | undefined): { runId?: string; stepId?: string } {
  if (arg === undefined || typeof arg === 'string') return arg === undefined ? {} : { runId: arg };
  return 'stepId' in arg ? { runId: arg.runId, stepId: arg.stepId } : { runId: arg.runId };
}

/** A run among those that pass `filter`; the only active one is taken without asking; `none` is said when no run passes. */
export async function pickRun(
  runs: RunsModel,
  given: string | undefined,
  filter: (r: RunView) => boolean,
  title: string,
  none: string,
): Promise<RunView | undefined> {
  if (given) {
    const run = runs.get(given);
    if (!run) void vscode.window.showErrorMessage(`Braid: no run ${given} in this workspace.`);
    return run;
  }
  const candidates = runs.runs().filter(filter);
  const live = candidates.filter(isActive);
  if (live.length === 1) return live[0];
  if (candidates.length === 1) return candidates[0];
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(none);
    return undefined;
  }
  const item = await vscode.window.showQuickPick(
    candidates.map((r) => ({
      label: r.planName,
      description: `${r.status} · ${runProgress(r)}`,
      detail: `${r.id} · ${new Date(r.createdAt).toLocaleString()}`,
      run: r,
    })),
    { title: `Braid: ${title}` },
  );
  return item?.run;
}

export async function pickStep(
  run: RunView,
  given: string | undefined,
  statuses: readonly StepStatus[] | undefined,
  title: string,
): Promise<string | undefined> {
  if (given) {
    if (!run.steps.has(given)) {
      void vscode.window.showErrorMessage(`Braid: run ${run.id} has no step ${given}.`);
      return undefined;
    }
    return given;
  }
  const steps = [...run.steps.values()].filter((s) => !statuses || statuses.includes(s.status));
  if (steps.length === 1) return steps[0]!.id;
  if (steps.length === 0) {
    void vscode.window.showInformationMessage(`Braid: no step of ${run.planName} to ${title.toLowerCase()}.`);
    return undefined;
  }
  const item = await vscode.window.showQuickPick(
    steps.map((s) => ({
      label: s.name,
      description: STATUS_LABEL[s.status],
      ...(s.id === s.name ? {} : { detail: s.id }),
      id: s.id,
    })),
    { title: `Braid: ${title}` },
  );
  return item?.id;
}

/** A step key of a plan (a matrix step is offered once, by its key). */
export async function pickPlanStep(
  keys: readonly string[],
  given: string | undefined,
  title: string,
): Promise<string | undefined> {
  if (given) return given;
  if (keys.length === 1) return keys[0];
  return vscode.window.showQuickPick([...keys], { title: `Braid: ${title}` });
}

/** One instance of a matrix step: the ones that need the user first, then the slowest. */
export async function pickInstance(run: RunView, ids: readonly string[], title: string): Promise<string | undefined> {
  const steps = ids.map((id) => run.steps.get(id)).filter((s) => s !== undefined);
  if (steps.length === 0) {
    void vscode.window.showInformationMessage(`Braid: run ${run.id} has none of these steps.`);
    return undefined;
  }
  if (steps.length === 1) return steps[0]!.id;
  const rank = (s: StepView): number =>
    s.status === 'failed' || s.status === 'conflict' || s.status === 'interrupted'
      ? 0
      : s.status === 'succeeded'
        ? 2
        : 1;
  const now = Date.now();
  const ran = (s: StepView) => runningMs(s, now);
  steps.sort((a, b) => rank(a) - rank(b) || (ran(b) ?? 0) - (ran(a) ?? 0));
  const item = await vscode.window.showQuickPick(
    steps.map((s) => ({
      label: s.name,
      description: [STATUS_LABEL[s.status], ran(s) !== undefined ? formatDuration(ran(s)!) : '']
        .filter(Boolean)
        .join(' · '),
      id: s.id,
    })),
    { title: `Braid: ${title}` },
  );
  return item?.id;
}
