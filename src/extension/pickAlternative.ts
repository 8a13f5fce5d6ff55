// *Pick Alternative*: the VS Code face of `braid pick`. A best-of step with `pick: review` waits
// with its passed alternatives; this lists them (status, score, cost, from the run's record as it
// is now) and writes the pick the run's process is watching for (pickRequest.ts).
import * as vscode from 'vscode';
import { pickProblem, waitsForPick, writePick } from '../core/engine/records/pickRequest';
import { RunStore } from '../core/engine/records/runStore';
import type { StepRef } from './commandIds';
import { pickRun } from './pickers';
import { refOf } from './runCommands';
import type { RunsModel } from './runsModel';
import { isActive } from './runView';
import { formatUsd } from '../core/format';

/** Resolves with the alternative picked, or undefined when none was (asked, refused or dismissed). */
export async function pickAlternative(runs: RunsModel, arg?: string | StepRef, stepArg?: string, index?: number): Promise<number | undefined> {
  const ref = refOf(arg);
  const run = await pickRun(runs, ref.runId, isActive, 'Pick Alternative', 'Braid: no run is waiting for a pick.');
  if (!run) return undefined;
  const store = new RunStore(run.workspace);
  const rec = await store.load(run.id);
  if (!rec) return undefined;
  const waiting = Object.values(rec.steps).filter((s) => waitsForPick(s) || (s.status === 'running' && s.alternatives && s.winner === undefined
    && s.alternatives.some((a) => a.message === 'passed; waiting for the pick')));
  const stepId = ref.stepId ?? stepArg ?? (waiting.length === 1 ? waiting[0]!.id
    : (await vscode.window.showQuickPick(waiting.map((s) => s.id), { title: 'Pick Alternative: which step?' })));
  if (!stepId) {
    if (waiting.length === 0) void vscode.window.showInformationMessage(`Braid: no step of ${run.planName} is waiting for a pick.`);
    return undefined;
  }
  let n = index;
  if (n === undefined) {
    const passed = (rec.steps[stepId]?.alternatives ?? []).filter((a) => a.status === 'succeeded');
    const item = await vscode.window.showQuickPick(passed.map((a) => ({
      label: `alternative ${a.index}`, index: a.index,
      description: [a.score !== undefined ? `score ${a.score}` : '', a.costUsd !== undefined ? formatUsd(a.costUsd) : '', a.attempts > 1 ? `attempt ${a.attempts}` : '']
        .filter(Boolean).join(' · '),
      detail: `log: braid logs ${run.id} ${stepId}`,
    })), { title: `Pick Alternative: which one of ${stepId} lands?` });
    n = item?.index;
  }
  if (n === undefined) return undefined;
  const problem = pickProblem(rec, stepId, n);
  if (problem) { void vscode.window.showErrorMessage(`Braid: ${problem}.`); return undefined; }
  await writePick(store.paths(run.id).dir, stepId, n);
  return n;
}
