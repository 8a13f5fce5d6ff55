// *Open Alternative's Changes*: one alternative of a best-of step in VS Code's multi-file diff
// editor, as *Review Changes* shows a step's (the same read-only `git show` documents): during
// the race once it passed, while the step waits for `pick: review`, and after the run for a look.
import { join } from 'node:path';
import * as vscode from 'vscode';
import { alternativeChange } from '../../core/engine/review/alternativeChange';
import { RunStore } from '../../core/engine/records/runStore';
import type { AlternativeRef, StepRef } from '../common/commandIds';
import { pickRun, refOf } from '../runs/runPickers';
import { changeResources } from '../review/reviewCommands';
import type { RunsModel } from '../runs/runsModel';

/** What a command's arguments name: a tree row, or run, step and index. */
export function alternativeRefOf(
  arg: string | StepRef | AlternativeRef | undefined,
  stepArg?: string,
  index?: number,
): { runId?: string; stepId?: string; index?: number } {
  const ref = refOf(arg);
  const i = arg !== undefined && typeof arg !== 'string' && 'index' in arg ? arg.index : index;
  return {
    ...ref,
    ...(ref.stepId === undefined && stepArg !== undefined ? { stepId: stepArg } : {}),
    ...(i !== undefined ? { index: i } : {}),
  };
}

/** Opens the alternative's change in the multi-file diff editor; resolves with the files shown (0: none, and said why). */
export async function openAlternativeChanges(
  runs: RunsModel,
  arg?: string | StepRef | AlternativeRef,
  stepArg?: string,
  index?: number,
): Promise<number> {
  const ref = alternativeRefOf(arg, stepArg, index);
  const hasAlternatives = (r: { steps: ReadonlyMap<string, { alternatives?: readonly unknown[] }> }) =>
    [...r.steps.values()].some((s) => s.alternatives !== undefined);
  const run = await pickRun(
    runs,
    ref.runId,
    hasAlternatives,
    "Open Alternative's Changes",
    'Braid: no run has a best-of step.',
  );
  if (!run) return 0;
  const stepId =
    ref.stepId ??
    (await vscode.window.showQuickPick(
      [...run.steps.values()].filter((s) => s.alternatives).map((s) => s.id),
      { title: "Open Alternative's Changes: which step?" },
    ));
  if (!stepId) return 0;
  const alts = run.steps.get(stepId)?.alternatives ?? [];
  const n =
    ref.index ??
    (
      await vscode.window.showQuickPick(
        alts.map((a) => ({ label: `alternative ${a.index}`, description: a.status, index: a.index })),
        { title: `Open Alternative's Changes: which alternative of ${stepId}?` },
      )
    )?.index;
  if (n === undefined) return 0;
  const rec = await new RunStore(run.workspace).load(run.id);
  if (!rec) return 0;
  const found = await alternativeChange(run.workspace, rec, stepId, n);
  if (!found.ok) {
    void vscode.window.showInformationMessage(`Braid: ${found.message}.`);
    return 0;
  }
  if (found.change.files.length === 0) {
    void vscode.window.showInformationMessage(`Braid: alternative ${n} of ${stepId} changed nothing.`);
    return 0;
  }
  const alt = rec.steps[stepId]?.alternatives?.find((a) => a.index === n);
  // How it stands, in the engine's words: "passed; waiting for the pick", "passed (score 10); alternative 2 won", "won".
  const stands = rec.steps[stepId]?.winner === n ? 'won' : (alt?.message ?? alt?.status ?? '');
  const resources = changeResources(run.workspace, stepId, found.change, (p) =>
    vscode.Uri.file(join(run.workspace, p)),
  );
  await vscode.commands.executeCommand(
    'vscode.changes',
    `Braid: ${stepId} · alternative ${n} of ${rec.steps[stepId]?.alternatives?.length ?? '?'} (${stands}) · ${run.planName}`,
    resources,
  );
  return resources.length;
}
