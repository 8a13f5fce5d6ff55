// The runs room: the Runs tree, the status bar and progress of active runs, the lenses that run a
// plan from its text and show its last run, and the commands that run, retry, cancel and look at
// runs (logs, validation, clean-up, worktrees). Commands that no
// run could take stay out of the palette (package.json `when` clauses, set from paletteContext).
import * as vscode from 'vscode';
import { RETRYABLE } from '../../core/status';
import { Command } from '../common/commandIds';
import { commandRegistrar, keeper } from '../common/registration';
import type { Engines } from '../engine/engines';
import type { PlanDiagnostics } from '../plans/diagnostics';
import { PLAN_SELECTOR, type Plans } from '../plans/plans';
import { paletteContext } from './paletteContext';
import { PlanLenses } from './planLenses';
import { RunCommands } from './runCommands';
import { RunFeedback } from './runFeedback';
import type { RunsModel } from './runsModel';
import { StepsTree } from './stepsTree';
import { ViewCommands } from './viewCommands';

export interface RunsRoomDeps {
  readonly plans: Plans;
  readonly diagnostics: PlanDiagnostics;
  readonly runs: RunsModel;
  readonly engines: Engines;
  readonly cliPath: string;
}

export interface RunsRoom {
  readonly feedback: RunFeedback;
  readonly tree: StepsTree;
  /** The gestures other rooms start runs and look at them with (graph buttons, tasks, review). */
  readonly runCommands: RunCommands;
  readonly viewCommands: ViewCommands;
  readonly lenses: PlanLenses;
}

export function registerRuns(context: vscode.ExtensionContext, d: RunsRoomDeps): RunsRoom {
  const sub = keeper(context);
  const { plans, diagnostics, runs, engines, cliPath } = d;
  const feedback = sub(
    new RunFeedback(
      runs,
      (runId) => engines.cancelRun(runId),
      (runId, decision) => engines.budgetDecision(runId, decision),
    ),
  );
  const runCommands = new RunCommands({ plans, diagnostics, engines, runs, feedback });
  const viewCommands = new ViewCommands({ plans, diagnostics, runs, cliPath });
  const tree = sub(new StepsTree(runs));
  sub(vscode.window.createTreeView('braid.steps', { treeDataProvider: tree, showCollapseAll: true }));
  const lenses = sub(new PlanLenses(plans, runs));
  sub(vscode.languages.registerCodeLensProvider(PLAN_SELECTOR, lenses));

  const register = commandRegistrar(context);
  register(Command.runPlan, (uri) => runCommands.runPlan(uri));
  register(Command.runStep, (uri, step) => runCommands.runStep(uri, step));
  register(Command.runStepFresh, (uri, step) => runCommands.runStep(uri, step, { fresh: true }));
  register(Command.runFrom, (uri, step) => runCommands.runFrom(uri, step));
  register(Command.retryStep, (run, step, options) => runCommands.retryStep(run, step, options));
  register(Command.retryFailed, (run, options) => runCommands.retryFailed(run, options));
  register(Command.resumeRun, (run) => runCommands.retryFailed(run));
  register(Command.continueRun, (run) => runCommands.decideBudget(run, 'continue'));
  register(Command.stopRun, (run) => runCommands.decideBudget(run, 'stop'));
  register(Command.cancelRun, (run) => runCommands.cancelRun(run));
  register(Command.cancelStep, (run, step) => runCommands.cancelStep(run, step));
  register(Command.showLog, (run, step, among) => viewCommands.showLog(run, step, among));
  register(Command.validatePlan, (uri) => viewCommands.validatePlan(uri));
  register(Command.cleanRun, (run) => viewCommands.cleanRun(run));
  register(Command.openWorktree, (run, step) => viewCommands.openWorktree(run, step));
  register(Command.revealStep, (run, step) => viewCommands.revealStep(run, step));
  register(Command.showFailedOnly, () => tree.setFailedOnly(true));
  register(Command.showAllSteps, () => tree.setFailedOnly(false));

  const contextSet = new Map<string, boolean>();
  const updateContext = (): void => {
    for (const [key, on] of Object.entries(paletteContext(runs.runs(), RETRYABLE))) {
      if (contextSet.get(key) === on) continue;
      contextSet.set(key, on);
      void vscode.commands.executeCommand('setContext', key, on);
    }
  };
  sub(runs.onDidChange(updateContext));
  updateContext();
  return { feedback, tree, runCommands, viewCommands, lenses };
}
