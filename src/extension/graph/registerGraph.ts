// The graph room: one panel a plan (its DAG drawn by mermaid in the page, live statuses, the
// selected step's log and buttons), reopened after a reload.
import type * as vscode from 'vscode';
import { Command } from '../common/commandIds';
import { commandRegistrar, keeper } from '../common/registration';
import type { Plans } from '../plans/plans';
import type { RunCommands } from '../runs/runCommands';
import type { RunsModel } from '../runs/runsModel';
import type { ViewCommands } from '../runs/viewCommands';
import { GraphPanels } from './graphPanels';

export interface GraphRoomDeps {
  readonly plans: Plans;
  readonly runs: RunsModel;
  /** What the panel's buttons do. */
  readonly runCommands: RunCommands;
  readonly viewCommands: ViewCommands;
}

export function registerGraph(context: vscode.ExtensionContext, d: GraphRoomDeps): GraphPanels {
  const { plans, runs } = d;
  const graphs = keeper(context)(
    new GraphPanels({ context, plans, runs, commands: d.runCommands, views: d.viewCommands }),
  );
  commandRegistrar(context)(Command.showGraph, (target) => graphs.show(target));
  return graphs;
}
