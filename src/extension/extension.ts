// Braid's VS Code face: thin adapters over src/core. Plans are compiled here (pure, cheap); runs
// execute in the engine process beside the window (src/cli/serve.ts), whose events feed the
// runs model that every view reads.
import * as vscode from 'vscode';
import { Emitter } from '../core/emitter';
import type { EngineEvent } from '../core/engine/types';
import { isGitRepo } from '../core/engine/isolation/worktree';
import { PlanLenses } from './plans/codeLens';
import { Command, type CommandArgs, type CommandId } from './common/commandIds';
import { readSettings } from './common/config';
import { PlanDiagnostics } from './plans/diagnostics';
import { Engines } from './engine/engines';
import { exportPlanToGithubActions } from './plans/exportCommand';
import { GraphPanels } from './graph/graphPanels';
import { registerLanguageService } from './plans/languageService';
import { newPlan } from './plans/newPlan';
import { registerMcpServers } from './engine/mcpServers';
import { watchNewRuns } from './engine/newRuns';
import { Plans } from './plans/plans';
import { paletteContext } from './runs/paletteContext';
import { RunCommands } from './runs/runCommands';
import { RETRYABLE } from '../core/status';
import { ChangeDocuments, CHANGE_SCHEME } from './review/changeDocuments';
import { ReviewCommands } from './review/reviewCommands';
import { TakeoverCommands } from './terminals/takeoverCommands';
import { RunFeedback } from './runs/runFeedback';
import { RunsModel } from './runs/runsModel';
import { StepTerminals } from './terminals/stepTerminals';
import { StepsTree } from './runs/stepsTree';
import { pickAlternative } from './alternatives/pickAlternative';
import { openAlternativeChanges } from './alternatives/alternativeChanges';
import { PlanTaskProvider } from './terminals/taskProvider';
import { ViewCommands } from './runs/viewCommands';

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

const PLAN_SELECTOR: vscode.DocumentSelector = [{ scheme: 'file', pattern: '**/*.braid.{yaml,yml,json}' }];

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
  const plans = sub(new Plans());
  const runs = sub(new RunsModel());
  const diagnostics = sub(new PlanDiagnostics(plans));
  // Engine events, once the runs model has applied them (tasks follow their runs' events).
  const applied = new Emitter<EngineEvent>();
  let terminals: StepTerminals | undefined;
  const engines = sub(
    new Engines({
      cliPath,
      runs,
      log,
      // Runs already going when this window connected: their terminals and progress come back.
      onSnapshot: (_workspace, records) => {
        for (const r of records) {
          if (r.status !== 'running') continue;
          terminals?.adopt(r);
          feedback.track(r.id, engines.whenEnded(r.id), r.planName);
        }
      },
      onEvent: (_workspace, e) => {
        terminals?.handle(e);
        applied.fire(e);
      },
    }),
  );
  terminals = sub(
    new StepTerminals({
      runs,
      log: (line) => log.info(line),
      keep: () => readSettings().keepTerminals,
      cancelStep: (r, s) =>
        void engines.cancelStep(r, s).catch((err: Error) => log.warn(`cancel ${r}/${s}: ${err.message}`)),
    }),
  );
  const feedback = sub(
    new RunFeedback(
      runs,
      (runId) => engines.cancelRun(runId),
      (runId, d) => engines.budgetDecision(runId, d),
    ),
  );
  const runCommands = new RunCommands({ plans, diagnostics, engines, runs, feedback });
  const reviewCommands = new ReviewCommands({ runs, engines });
  sub(vscode.workspace.registerTextDocumentContentProvider(CHANGE_SCHEME, new ChangeDocuments()));
  const viewCommands = new ViewCommands({ plans, diagnostics, runs, cliPath });
  const graphs = sub(new GraphPanels({ context, plans, runs, commands: runCommands, views: viewCommands }));

  const tree = sub(new StepsTree(runs));
  sub(vscode.window.createTreeView('braid.steps', { treeDataProvider: tree, showCollapseAll: true }));
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
  sub(
    watchNewRuns({
      roots: workspaceRoots,
      follow: (root) => engines.client(root),
      reload: (root) => runs.loadRecords([root]),
      log,
    }),
  );
  sub(
    registerMcpServers({
      cliPath,
      roots: workspaceRoots,
      version: String((context.extension.packageJSON as { version?: unknown }).version),
      log,
    }),
  );
  sub(
    vscode.tasks.registerTaskProvider(
      'braid',
      new PlanTaskProvider({ plans, launch: (u, k, s) => runCommands.launch(u, k, s), onEvent: applied.on }),
    ),
  );

  const register = <C extends CommandId>(id: C, fn: (...args: CommandArgs[C]) => unknown): void => {
    sub(vscode.commands.registerCommand(id, (...args: unknown[]) => fn(...(args as CommandArgs[C]))));
  };
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
  register(Command.showGraph, (target) => graphs.show(target));
  register(Command.showLog, (run, step, among) => viewCommands.showLog(run, step, among));
  register(Command.validatePlan, (uri) => viewCommands.validatePlan(uri));
  register(Command.newPlan, (options) => newPlan({ log, showGraph: (uri) => graphs.show(uri) }, options));
  register(Command.cleanRun, (run) => viewCommands.cleanRun(run));
  register(Command.openWorktree, (run, step) => viewCommands.openWorktree(run, step));
  register(Command.pickAlternative, (run, step, index) => pickAlternative(runs, run, step, index));
  register(Command.pickThisAlternative, (alt) => pickAlternative(runs, alt));
  register(Command.openAlternativeChanges, (run, step, index) => openAlternativeChanges(runs, run, step, index));
  register(Command.revealStep, (run, step) => viewCommands.revealStep(run, step));
  register(Command.exportGithubActions, (uri) => exportPlanToGithubActions(plans, uri));
  register(Command.showFailedOnly, () => tree.setFailedOnly(true));
  register(Command.showAllSteps, () => tree.setFailedOnly(false));

  // Commands that no run could take stay out of the palette (package.json `when` clauses).
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
  register(Command.reviewChanges, (run, step) => reviewCommands.reviewChanges(run, step));
  register(Command.reviewRun, (run) => reviewCommands.reviewRun(run));
  register(Command.approveStep, (run, step) => reviewCommands.approve(run, step));
  register(Command.rejectStep, (run, step, reason) => reviewCommands.reject(run, step, reason));
  register(Command.mergeAgain, (run, step) => reviewCommands.mergeAgain(run, step));
  register(Command.revertStep, (run, step) => reviewCommands.revert(run, step));
  register(Command.resolveInMergeEditor, (run, step) => reviewCommands.resolveInMergeEditor(run, step));
  register(Command.resolveWithAgent, (run, step, agent) => runCommands.resolveWithAgent(run, step, agent));
  const takeoverCommands = new TakeoverCommands({ runs, cliPath });
  register(Command.continueInTerminal, (run, step) => takeoverCommands.continueInTerminal(run, step));
  register(Command.sendToStep, (run, step, message) => takeoverCommands.sendToStep(run, step, message));

  // The runs of this workspace from their records; one that says `running` means an engine to
  // reattach to. The engine, not this window, writes run.json: it marks runs whose engine died
  // `interrupted` (listRuns), and those are read again.
  const reattach = async (): Promise<void> => {
    const roots = await workspaceRoots();
    await runs.loadRecords(roots);
    for (const root of roots) {
      const going = runs.runs().filter((r) => r.workspace === root && r.status === 'running');
      if (going.length === 0) continue;
      try {
        const { active } = await (await engines.client(root)).listRuns();
        for (const r of going) if (!active.includes(r.id)) await runs.ensureEnded(root, r.id);
      } catch (err) {
        log.warn(`engine: ${(err as Error).message}`);
      }
    }
  };
  void reattach()
    .then(() => diagnostics.refreshAll())
    .catch((err: Error) => log.error(`start: ${err.message}`));

  return {
    runs,
    tree,
    lenses,
    terminals,
    feedback,
    graphs,
    reattach: async () => {
      engines.dispose();
      await reattach();
    },
  };
}

/** Where runs of the open folders are recorded: each folder's git root, else the folder. */
async function workspaceRoots(): Promise<string[]> {
  const roots = new Set<string>();
  for (const f of vscode.workspace.workspaceFolders ?? []) {
    if (f.uri.scheme !== 'file') continue;
    roots.add((await isGitRepo(f.uri.fsPath)) ?? f.uri.fsPath);
  }
  return [...roots];
}

export function deactivate(): void {
  // Nothing beyond context.subscriptions; the engine process keeps any run going.
}
