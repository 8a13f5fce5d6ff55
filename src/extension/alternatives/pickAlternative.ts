// *Pick Alternative*: the VS Code face of `braid pick`. A best-of step with `pick: review` waits
// with its passed alternatives; this lists them (score, cost, attempts and what each changed,
// from the run's record as it is now), each with a button that opens its diff while the list
// stays open, so every one can be looked at before choosing; the choice is written where the
// run's process is watching for it (pickRequest.ts), as `braid pick` writes it.
import * as vscode from 'vscode';
import { pickProblem, writePick } from '../../core/engine/records/pickRequest';
import { RunStore } from '../../core/engine/records/runStore';
import type { RunRecord } from '../../core/engine/records/runRecord';
import { alternativeChange } from '../../core/engine/review/alternativeChange';
import { alternativeRefOf, openAlternativeChanges } from './alternativeChanges';
import type { AlternativeRef, StepRef } from '../common/commandIds';
import { pickRun } from '../runs/runPickers';
import type { RunsModel } from '../runs/runsModel';
import { isActive } from '../runs/runView';
import { pickItemText, waitingForPick } from '../runs/pickText';

interface AlternativeItem extends vscode.QuickPickItem {
  readonly index: number;
}

const OPEN_DIFF: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('diff-multiple'), tooltip: 'Open diff' };

/** Resolves with the alternative picked, or undefined when none was (asked, refused or dismissed). */
export async function pickAlternative(
  runs: RunsModel,
  arg?: string | StepRef | AlternativeRef,
  stepArg?: string,
  index?: number,
): Promise<number | undefined> {
  const ref = alternativeRefOf(arg, stepArg, index);
  const run = await pickRun(runs, ref.runId, isActive, 'Pick Alternative', 'Braid: no run is waiting for a pick.');
  if (!run) return undefined;
  const store = new RunStore(run.workspace);
  const rec = await store.load(run.id);
  if (!rec) return undefined;
  const waiting = waitingForPick(rec);
  const stepId =
    ref.stepId ??
    (waiting.length === 1
      ? waiting[0]!
      : await vscode.window.showQuickPick(waiting, { title: 'Pick Alternative: which step?' }));
  if (!stepId) {
    if (waiting.length === 0)
      void vscode.window.showInformationMessage(`Braid: no step of ${run.planName} is waiting for a pick.`);
    return undefined;
  }
  const n = ref.index ?? (await choose(runs, run.workspace, rec, stepId));
  if (n === undefined) return undefined;
  // Read again: looking at the diffs takes a while, and the run goes on meanwhile.
  const problem = pickProblem((await store.load(run.id)) ?? rec, stepId, n);
  if (problem) {
    void vscode.window.showErrorMessage(`Braid: ${problem}.`);
    return undefined;
  }
  await writePick(store.paths(run.id).dir, stepId, n);
  void vscode.window.setStatusBarMessage(`Braid: alternative ${n} of ${stepId} picked; it lands now`, 5000);
  return n;
}

/**
 * The passed alternatives in a list; an item's diff button opens that alternative's change in
 * full, with a notification in the corner to pick it, look at the next one, or go back to the list.
 */
async function choose(runs: RunsModel, root: string, rec: RunRecord, stepId: string): Promise<number | undefined> {
  const passed = (rec.steps[stepId]?.alternatives ?? []).filter((a) => a.status === 'succeeded');
  const items: AlternativeItem[] = await Promise.all(
    passed.map(async (a) => {
      const found = await alternativeChange(root, rec, stepId, a.index);
      return {
        ...pickItemText(a, found.ok ? found.change : undefined),
        index: a.index,
        buttons: found.ok && found.change.files.length > 0 ? [OPEN_DIFF] : [],
      };
    }),
  );
  let active: number | undefined;
  for (;;) {
    const answer = await list(items, stepId, active);
    if (answer === undefined || 'picked' in answer) return answer?.picked;
    active = answer.look;
    const browsed = await browse(runs, rec.id, stepId, items, answer.look);
    if (browsed !== 'list') return browsed;
  }
}

/** The list: resolves with the alternative picked, the one whose diff was asked for, or undefined (dismissed). */
function list(
  items: readonly AlternativeItem[],
  stepId: string,
  active: number | undefined,
): Promise<{ picked: number } | { look: number } | undefined> {
  const qp = vscode.window.createQuickPick<AlternativeItem>();
  qp.title = `Pick Alternative: which one of ${stepId} lands?`;
  qp.placeholder = 'Enter picks the alternative; its diff button shows its change first';
  qp.items = items;
  const current = items.find((i) => i.index === active);
  if (current) qp.activeItems = [current];
  return new Promise((resolve) => {
    let answer: { picked: number } | { look: number } | undefined;
    qp.onDidTriggerItemButton((e) => {
      answer = { look: e.item.index };
      qp.hide();
    });
    qp.onDidAccept(() => {
      const i = qp.selectedItems[0]?.index;
      answer = i !== undefined ? { picked: i } : undefined;
      qp.hide();
    });
    qp.onDidHide(() => {
      resolve(answer);
      qp.dispose();
    });
    qp.show();
  });
}

/** One alternative's diff after another, each with Pick / Next / Back to List; resolves with the pick, `list`, or undefined. */
async function browse(
  runs: RunsModel,
  runId: string,
  stepId: string,
  items: readonly AlternativeItem[],
  start: number,
): Promise<number | 'list' | undefined> {
  let at = Math.max(
    0,
    items.findIndex((i) => i.index === start),
  );
  for (;;) {
    const item = items[at]!;
    await openAlternativeChanges(runs, runId, stepId, item.index);
    const next = items[(at + 1) % items.length]!;
    const pick = `Pick Alternative ${item.index}`;
    const more = items.length > 1 ? `Next: Alternative ${next.index}` : undefined;
    const answer = await vscode.window.showInformationMessage(
      `Braid: ${stepId} · alternative ${item.index} (${[item.description, item.detail].filter(Boolean).join(' · ')}). Pick it to land it, or look at another.`,
      ...[pick, ...(more ? [more] : []), 'Back to List'],
    );
    if (answer === pick) return item.index;
    if (answer === 'Back to List') return 'list';
    if (answer !== more) return undefined;
    at = (at + 1) % items.length;
  }
}
