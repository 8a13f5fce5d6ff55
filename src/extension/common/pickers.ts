// What a bare command acts on: the one candidate when there is exactly one (the plan in the active
// editor, the only plan, the only active run), else a quick pick. Undefined when the user cancels.
import * as vscode from 'vscode';
import type { StepStatus } from '../../core/status';
import { isPlanUri, type Plans } from '../plans/plans';
import type { RunsModel } from '../runs/runsModel';
import { isActive, type RunView, type StepView } from '../runs/runView';
import { runProgress } from '../runs/treeText';
import { STATUS_LABEL } from './statusText';
import { formatDuration, runningMs } from '../../core/format';

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
