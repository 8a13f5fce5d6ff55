// The plans room, where plans are written: lenses above plans and steps, the plan language service
// (completion, hover, navigation, rename, symbols, quick fixes), New Plan and the export to
// GitHub Actions. (Plans and their Problems are made by the wiring: every room reads them.)
import * as vscode from 'vscode';
import { Command } from '../common/commandIds';
import { commandRegistrar, keeper } from '../common/registration';
import type { GraphPanels } from '../graph/graphPanels';
import type { RunsModel } from '../runs/runsModel';
import { PlanLenses } from './codeLens';
import { exportPlanToGithubActions } from './exportCommand';
import { registerLanguageService } from './languageService';
import { newPlan } from './newPlan';
import type { Plans } from './plans';

const PLAN_SELECTOR: vscode.DocumentSelector = [{ scheme: 'file', pattern: '**/*.braid.{yaml,yml,json}' }];

export interface PlansRoomDeps {
  readonly plans: Plans;
  readonly runs: RunsModel;
  readonly log: vscode.LogOutputChannel;
  /** A new plan opens with its graph. */
  readonly graphs: GraphPanels;
}

export function registerPlans(context: vscode.ExtensionContext, d: PlansRoomDeps): PlanLenses {
  const sub = keeper(context);
  const { plans, runs, log, graphs } = d;
  const lenses = sub(new PlanLenses(plans, runs));
  sub(vscode.languages.registerCodeLensProvider(PLAN_SELECTOR, lenses));
  sub(
    registerLanguageService({
      selector: PLAN_SELECTOR,
      schemaPath: context.asAbsolutePath('out/plan.schema.json'),
      plans,
      runs,
    }),
  );
  const register = commandRegistrar(context);
  register(Command.newPlan, (options) => newPlan({ log, showGraph: (uri) => graphs.show(uri) }, options));
  register(Command.exportGithubActions, (uri) => exportPlanToGithubActions(plans, uri));
  return lenses;
}
