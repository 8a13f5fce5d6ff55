// Braid's VS Code face: thin adapters over src/core. Plans are compiled here (pure, cheap); runs
// execute in the engine process beside the window (src/cli/commands/serve.ts), whose events feed the
// runs model that every view reads. This file is the wiring alone: the models every room reads,
// each room's registerX, and what crosses between rooms (engine events to terminals and progress).
import * as vscode from 'vscode';
import { Emitter } from '../core/emitter';
import type { EngineEvent } from '../core/engine/types';
import { registerAlternatives } from './alternatives/registerAlternatives';
import { registerEngine } from './engine/registerEngine';
import { workspaceRoots } from './engine/workspaceRoots';
import type { GraphPanels } from './graph/graphPanels';
import { registerGraph } from './graph/registerGraph';
import { PlanDiagnostics } from './plans/diagnostics';
import { Plans } from './plans/plans';
import { registerPlans } from './plans/registerPlans';
import { registerReview } from './review/registerReview';
import { reattach as reattachRuns } from './runs/reattach';
import { registerRuns } from './runs/registerRuns';
import type { PlanLenses } from './runs/planLenses';
import type { RunFeedback } from './runs/runFeedback';
import { RunsModel } from './runs/runsModel';
import type { StepsTree } from './runs/stepsTree';
import { registerTerminals } from './terminals/registerTerminals';
import type { StepTerminals } from './terminals/stepTerminals';

/** What tests (and other extensions) can reach through `extension.exports`. */
export interface BraidApi {
  readonly runs: RunsModel;
  readonly tree: StepsTree;
  readonly lenses: PlanLenses;
  readonly terminals: StepTerminals;
  readonly feedback: RunFeedback;
  readonly graphs: GraphPanels;
  /** Drops the engine connections and reattaches as a reloaded window would. */
  reattach(): Promise<void>;
}

export async function activate(context: vscode.ExtensionContext): Promise<BraidApi> {
  try {
    return await start(context);
  } catch (err) {
    // Shown on purpose: a silent activation failure leaves commands that do nothing.
    void vscode.window.showErrorMessage(`Braid failed to start: ${(err as Error).message}`);
    throw err;
  }
}

async function start(context: vscode.ExtensionContext): Promise<BraidApi> {
  const sub = <T extends vscode.Disposable>(d: T): T => {
    context.subscriptions.push(d);
    return d;
  };
  const log = sub(vscode.window.createOutputChannel('Braid', { log: true }));
  const cliPath = context.asAbsolutePath('out/cli.js');
  // The models every room reads.
  const plans = sub(new Plans());
  const runs = sub(new RunsModel());
  const diagnostics = sub(new PlanDiagnostics(plans));
  // Engine events, once the runs model has applied them (tasks follow their runs' events).
  const applied = new Emitter<EngineEvent>();
  let terminals: StepTerminals | undefined;
  let feedback: RunFeedback | undefined;
  const engines = registerEngine(context, {
    cliPath,
    runs,
    log,
    roots: workspaceRoots,
    // Runs already going when this window connected: their terminals and progress come back.
    onSnapshot: (_workspace, records) => {
      for (const r of records) {
        if (r.status !== 'running') continue;
        terminals?.adopt(r);
        feedback?.track(r.id, engines.whenEnded(r.id), r.planName);
      }
    },
    onEvent: (_workspace, e) => {
      terminals?.handle(e);
      applied.fire(e);
    },
  });
  const rooms = registerRuns(context, { plans, diagnostics, runs, engines, cliPath });
  feedback = rooms.feedback;
  const { runCommands, viewCommands } = rooms;
  registerReview(context, { runs, engines, runCommands });
  const graphs = registerGraph(context, { plans, runs, runCommands, viewCommands });
  registerPlans(context, { plans, runs, log, showGraph: (uri) => graphs.show(uri) });
  registerAlternatives(context, { runs });
  terminals = registerTerminals(context, { plans, runs, engines, runCommands, log, cliPath, onEvent: applied.on });

  const reattach = () => reattachRuns({ runs, engines, roots: workspaceRoots, log });
  void reattach()
    .then(() => diagnostics.refreshAll())
    .catch((err: Error) => log.error(`start: ${err.message}`));

  return {
    runs,
    tree: rooms.tree,
    lenses: rooms.lenses,
    terminals,
    feedback,
    graphs,
    reattach: async () => {
      engines.dispose();
      await reattach();
    },
  };
}

export function deactivate(): void {
  // Nothing beyond context.subscriptions; the engine process keeps any run going.
}
