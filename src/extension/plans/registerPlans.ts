// The plans room, where plans are written: the plan language service (completion, hover,
// navigation, rename, symbols, quick fixes), New Plan and the export to GitHub Actions. (Plans and
// their Problems are made by the wiring: every room reads them; the lenses that run a plan from
// its text are the runs room's.)
import * as vscode from 'vscode';
import { Command } from '../common/commandIds';
import { commandRegistrar, keeper } from '../common/registration';
import { exportPlanToGithubActions } from './exportCommand';
import { registerLanguageService, type LanguageDeps } from './languageService';
import { newPlan } from './newPlan';
import { PLAN_SELECTOR, type Plans } from './plans';

export interface PlansRoomDeps {
  readonly plans: Plans;
  /** Read only: a step id's hover shows its last run. */
  readonly runs: LanguageDeps['runs'];
  readonly log: vscode.LogOutputChannel;
  /** A new plan opens with its graph (the graph room's). */
  readonly showGraph: (uri: vscode.Uri) => Promise<unknown>;
}

export function registerPlans(context: vscode.ExtensionContext, d: PlansRoomDeps): void {
  const sub = keeper(context);
  const { plans, runs, log, showGraph } = d;
  sub(
    registerLanguageService({
      selector: PLAN_SELECTOR,
      schemaPath: context.asAbsolutePath('out/plan.schema.json'),
      plans,
      runs,
    }),
  );
  const register = commandRegistrar(context);
  register(Command.newPlan, (options) => newPlan({ log, showGraph }, options));
  register(Command.exportGithubActions, (uri) => exportPlanToGithubActions(plans, uri));
}
