// *Pick Alternative*: the VS Code face of `braid pick`. A best-of step with `pick: review` waits
// with its passed alternatives; this lists them (score, cost, attempts and what each changed,
// from the run's record as it is now), each with a button that opens its diff while the list
// stays open, so every one can be looked at before choosing; the choice is written where the
// run's process is watching for it (pickRequest.ts), as `braid pick` writes it.
import * as vscode from 'vscode';
import { pickProblem, writePick } from '../core/engine/records/pickRequest';
import { RunStore, type RunRecord } from '../core/engine/records/runStore';
import { alternativeChange } from '../core/engine/review/alternativeChange';
import { alternativeRefOf, openAlternativeChanges } from './alternativeChanges';
import type { AlternativeRef, StepRef } from './commandIds';
import { pickRun } from './pickers';
import type { RunsModel } from './runsModel';
import { isActive } from './runView';
import { pickItemText, waitingForPick } from './pickText';

interface AlternativeItem extends vscode.QuickPickItem { readonly index: number }

const OPEN_DIFF: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('diff-multiple'), tooltip: 'Open diff' };

/** Resolves with the alternative picked, or undefined when none was (asked, refused or dismissed). */
export async function pickAlternative(runs: RunsModel, arg?: string | StepRef | AlternativeRef, stepArg?: string, index?: number): Promise<number | undefined> {
  const ref = alternativeRefOf(arg, stepArg, index);
  const run = await pickRun(runs, ref.runId, isActive, 'Pick Alternative', 'Braid: no run is waiting for a pick.');
  if (!run) return undefined;
  const store = new RunStore(run.workspace);
  const rec = await store.load(run.id);
  if (!rec) return undefined;
  const waiting = waitingForPick(rec);
  const stepId = ref.stepId ?? (waiting.length === 1 ? waiting[0]!
    : (await vscode.window.showQuickPick(waiting, { title: 'Pick Alternative: which step?' })));
  if (!stepId) {
    if (waiting.length === 0) void vscode.window.showInformationMessage(`Braid: no step of ${run.planName} is waiting for a pick.`);
    return undefined;
  }
  const n = ref.index ?? await choose(runs, run.workspace, rec, stepId);
  if (n === undefined) return undefined;
  const problem = pickProblem(rec, stepId, n);
  if (problem) { void vscode.window.showErrorMessage(`Braid: ${problem}.`); return undefined; }
  await writePick(store.paths(run.id).dir, stepId, n);
  void vscode.window.setStatusBarMessage(`Braid: alternative ${n} of ${stepId} picked; it lands now`, 5000);
  return n;
}

/** The passed alternatives in a list that stays open while their diffs are looked at. */
async function choose(runs: RunsModel, root: string, rec: RunRecord, stepId: string): Promise<number | undefined> {
  const passed = (rec.steps[stepId]?.alternatives ?? []).filter((a) => a.status === 'succeeded');
  const items: AlternativeItem[] = await Promise.all(passed.map(async (a) => {
    const found = await alternativeChange(root, rec, stepId, a.index);
    return { ...pickItemText(a, found.ok ? found.change : undefined), index: a.index, buttons: found.ok && found.change.files.length > 0 ? [OPEN_DIFF] : [] };
  }));
  const qp = vscode.window.createQuickPick<AlternativeItem>();
  qp.title = `Pick Alternative: which one of ${stepId} lands?`;
  qp.placeholder = 'Enter picks the alternative; its diff button opens its change beside this list';
  qp.items = items;
  qp.ignoreFocusOut = true; // the list stays while a diff editor takes the focus
  return new Promise<number | undefined>((resolve) => {
    qp.onDidTriggerItemButton((e) => void openAlternativeChanges(runs, rec.id, stepId, e.item.index));
    qp.onDidAccept(() => { resolve(qp.selectedItems[0]?.index); qp.hide(); });
    qp.onDidHide(() => { resolve(undefined); qp.dispose(); });
    qp.show();
  });
}
