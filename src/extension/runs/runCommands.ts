// Run, retry and cancel: user gestures turned into engine requests. Each run command resolves
// when its run ends with { runId, status, steps }, so tests and other extensions can drive Braid.
import * as vscode from 'vscode';
import { RETRYABLE } from '../../core/status';
import { selectSteps } from '../../core/engine/scheduling/selection';
import { missingFor, noticeMissing } from '../plans/missingAgentNotice';
import type { Graph } from '../../core/plan/types';
import { canResume } from '../../core/agents/resume';
import { RunStore } from '../../core/engine/records/runStore';
import type { RetryOptions, RunSummary, RunRef, StepRef } from '../common/commandIds';
import { readSettings } from '../common/config';
import type { PlanDiagnostics } from '../plans/diagnostics';
import type { Engines } from '../engine/engines';
import { pickPlanStep, pickRun, pickStep, refOf } from './runPickers';
import { engineCompileOptions, retryParams, runParams, stepKeys, stepsOfKey, type Selection } from './runRequest';
import { pickPlan, type Plans } from '../plans/plans';
import type { RunFeedback } from './runFeedback';
import type { RunsModel } from './runsModel';
import { isActive, type RunView } from './runView';
import { requireTrust } from '../common/trust';

export interface RunCommandDeps {
  readonly plans: Plans;
  readonly diagnostics: PlanDiagnostics;
  readonly engines: Engines;
  readonly runs: RunsModel;
  readonly feedback: RunFeedback;
}

export class RunCommands {
  constructor(private readonly d: RunCommandDeps) {}

  async runPlan(uri?: vscode.Uri): Promise<RunSummary | undefined> {
    const plan = await pickPlan(this.d.plans, uri);
    return plan ? this.start(plan, {}) : undefined;
  }

  /** The step and what it needs; needs that already succeeded with the same content are reused unless `fresh`. */
  async runStep(
    uri?: vscode.Uri,
    key?: string,
    options: { readonly fresh?: boolean } = {},
  ): Promise<RunSummary | undefined> {
    const fresh = options.fresh === true;
    return this.withStep(uri, key, fresh ? 'Run Step Fresh' : 'Run Step', (graph, k) => ({
      only: stepsOfKey(graph, k),
      ...(fresh ? { fresh } : {}),
    }));
  }

  async runFrom(uri?: vscode.Uri, key?: string): Promise<RunSummary | undefined> {
    // `from` names one step; for a matrix step, its first member's dependents are the others'.
    return this.withStep(uri, key, 'Run From Here', (graph, k) => ({ from: stepsOfKey(graph, k)[0]! }));
  }

  async retryStep(
    arg?: string | StepRef,
    stepArg?: string,
    options: RetryOptions = {},
  ): Promise<RunSummary | undefined> {
    const ref = refOf(arg);
    const run = await pickRun(
      this.d.runs,
      ref.runId,
      (r) => !isActive(r),
      'Retry Step',
      'Braid: no ended run to retry a step of.',
    );
    if (!run) return undefined;
    const stepId = await pickStep(
      run,
      ref.stepId ?? stepArg,
      (ref.stepId ?? stepArg) ? undefined : [...RETRYABLE],
      'Retry Step',
    );
    if (!stepId) return undefined;
    let resume = options.resume;
    const session = run.steps.get(stepId)?.sessionId;
    if (resume === undefined && session && (await this.resumable(run, [stepId])).length > 0) {
      const pick = await askResume(`Braid: retry ${stepId}`, "Continue the agent's session", session);
      if (pick === undefined) return undefined;
      resume = pick;
    }
    return this.retry(run.id, [stepId], resume ?? false);
  }

  /** `braid resolve`: the conflict step's agent (for a `run` step, one picked) resolves its conflict in its kept worktree; resolves with the run's end. */
  async resolveWithAgent(arg?: string | StepRef, stepArg?: string, agent?: string): Promise<RunSummary | undefined> {
    const ref = refOf(arg);
    const run = await pickRun(
      this.d.runs,
      ref.runId,
      (r) => !isActive(r) && [...r.steps.values()].some((s) => s.status === 'conflict'),
      'Resolve with Agent',
      'Braid: no ended run has a step in conflict.',
    );
    if (!run) return undefined;
    const stepId = await pickStep(run, ref.stepId ?? stepArg, ['conflict'], 'Resolve with Agent');
    if (!stepId) return undefined;
    let name = agent;
    const rec = await new RunStore(run.workspace).load(run.id);
    if (name === undefined && rec && rec.graph.steps.find((s) => s.id === stepId)?.agent === undefined) {
      // A `run` step has no agent of its own: one of the plan's (or a preset) resolves it.
      name = await vscode.window.showQuickPick(Object.keys(rec.graph.agents).sort(), {
        title: `Braid: resolve ${stepId} with which agent?`,
      });
      if (name === undefined) return undefined;
    }
    if (!requireTrust('resolve a conflict with an agent')) return undefined;
    const compile = engineCompileOptions(await this.d.plans.options(vscode.Uri.file(run.planFile)));
    return this.follow(
      () =>
        this.d.engines.retry(run.workspace, {
          runId: run.id,
          compile,
          steps: [stepId],
          resolve: { step: stepId, ...(name !== undefined ? { agent: name } : {}) },
        }),
      run.planName,
    );
  }

  async retryFailed(arg?: string | RunRef, options: RetryOptions = {}): Promise<RunSummary | undefined> {
    const run = await pickRun(
      this.d.runs,
      refOf(arg).runId,
      (r) => !isActive(r) && [...r.steps.values()].some((s) => RETRYABLE.has(s.status)),
      'Retry Failed Steps',
      'Braid: no ended run has failed, canceled or skipped steps to retry.',
    );
    if (!run) return undefined;
    let resume = options.resume;
    if (resume === undefined) {
      const failed = run.order.filter((id) => RETRYABLE.has(run.steps.get(id)!.status) && run.steps.get(id)!.sessionId);
      const can = await this.resumable(run, failed);
      if (can.length > 0) {
        const pick = await askResume(
          `Braid: retry the failed steps of ${run.planName}`,
          `Continue the agents' sessions (${can.join(', ')})`,
          undefined,
        );
        if (pick === undefined) return undefined;
        resume = pick;
      }
    }
    return this.retry(run.id, undefined, resume ?? false);
  }

  /**
   * Of these steps, those whose agent can continue a session by id (claude, codex exec, gemini):
   * the plan as it is now, since a retry runs that.
   */
  private async resumable(run: RunView, stepIds: readonly string[]): Promise<string[]> {
    if (stepIds.length === 0) return [];
    const { graph } = await this.d.plans.compile(vscode.Uri.file(run.planFile));
    if (!graph) return [];
    return stepIds.filter((id) => {
      const agent = graph.steps.get(id)?.agent;
      const def = agent === undefined ? undefined : graph.agents[agent];
      return def !== undefined && canResume(def);
    });
  }

  /** Answers a run held at its budget; true when the engine took this answer. */
  async decideBudget(arg: string | RunRef | undefined, decision: 'continue' | 'stop'): Promise<boolean> {
    const run = await pickRun(
      this.d.runs,
      refOf(arg).runId,
      (r) => r.budget !== undefined,
      decision === 'continue' ? 'Continue Past Budget' : 'Stop at Budget',
      'Braid: no run is waiting at its budget.',
    );
    if (!run?.budget) return false;
    return this.d.engines.budgetDecision(run.id, decision);
  }

  async cancelRun(arg?: string | RunRef): Promise<void> {
    const run = await pickRun(
      this.d.runs,
      refOf(arg).runId,
      isActive,
      'Cancel Run',
      'Braid: no run is going: nothing to cancel.',
    );
    if (run) await this.d.engines.cancelRun(run.id);
  }

  async cancelStep(arg?: string | StepRef, stepArg?: string): Promise<void> {
    const ref = refOf(arg);
    const run = await pickRun(
      this.d.runs,
      ref.runId,
      isActive,
      'Cancel Step',
      'Braid: no run is going: nothing to cancel.',
    );
    if (!run) return;
    const stepId = await pickStep(run, ref.stepId ?? stepArg, ['running', 'waiting', 'pending'], 'Cancel Step');
    if (stepId) await this.d.engines.cancelStep(run.id, stepId);
  }

  /** A plan, or one step key of it with what it needs, for callers that want the run id early (tasks). */
  async launch(
    plan: vscode.Uri,
    key: string | undefined,
    onStarted: (runId: string) => void,
  ): Promise<RunSummary | undefined> {
    if (key === undefined) return this.start(plan, {}, onStarted);
    const { graph } = await this.d.plans.compile(plan);
    return this.start(plan, graph ? { only: stepsOfKey(graph, key) } : {}, onStarted);
  }

  private async withStep(
    uri: vscode.Uri | undefined,
    key: string | undefined,
    title: string,
    select: (g: Graph, key: string) => Selection,
  ): Promise<RunSummary | undefined> {
    const plan = await pickPlan(this.d.plans, uri);
    if (!plan) return undefined;
    const { graph } = await this.d.plans.compile(plan);
    if (!graph) return this.start(plan, {}); // start() reports the problems
    const k = await pickPlanStep(stepKeys(graph), key, title);
    if (!k) return undefined;
    if (stepsOfKey(graph, k).length === 0) {
      void vscode.window.showErrorMessage(`Braid: ${vscode.workspace.asRelativePath(plan)} has no step ${k}.`);
      return undefined;
    }
    return this.start(plan, select(graph, k));
  }

  private async start(
    plan: vscode.Uri,
    sel: Selection,
    onStarted?: (runId: string) => void,
  ): Promise<RunSummary | undefined> {
    if (!requireTrust('run a plan')) return undefined;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === plan.toString());
    if (doc?.isDirty) await doc.save(); // the engine reads the file as it is on disk
    const { graph, diagnostics } = await this.d.plans.compile(plan);
    const errors = diagnostics.filter((x) => x.severity === 'error');
    if (!graph || errors.length > 0) {
      await this.d.diagnostics.refresh(plan);
      void vscode.window
        .showErrorMessage(
          `Braid: ${vscode.workspace.asRelativePath(plan)} has ${errors.length} problem${errors.length === 1 ? '' : 's'}; nothing ran.`,
          'Show Problems',
        )
        .then((pick) => pick && vscode.commands.executeCommand('workbench.actions.view.problems'));
      return undefined;
    }
    const workspace = await this.d.plans.workspaceOf(plan);
    // A CLI the selected steps need is missing: say so (install command whole, Copy) and run nothing.
    const missing = missingFor(graph, workspace, selectSteps(graph, sel));
    if (missing.length > 0) {
      await this.d.diagnostics.refresh(plan);
      void noticeMissing(graph.plan.name, missing);
      return undefined;
    }
    const params = runParams(plan.fsPath, graph, sel, await this.d.plans.options(plan), readSettings(plan));
    return this.follow(() => this.d.engines.run(workspace, params), graph.plan.name, onStarted);
  }

  private async retry(
    runId: string,
    steps: readonly string[] | undefined,
    resume = false,
  ): Promise<RunSummary | undefined> {
    if (!requireTrust('retry a step')) return undefined;
    const run = this.d.runs.get(runId);
    if (!run) return undefined;
    // The settings as they are now (a retry reads the plan again, so it takes its new agents too).
    const planUri = vscode.Uri.file(run.planFile);
    const params = retryParams(runId, steps, resume, await this.d.plans.options(planUri), readSettings(planUri));
    return this.follow(() => this.d.engines.retry(run.workspace, params), run.planName);
  }

  /** Starts through the engine, shows progress, and resolves with the run's end. */
  private async follow(
    begin: () => Promise<string>,
    planName: string,
    onStarted?: (runId: string) => void,
  ): Promise<RunSummary | undefined> {
    let runId: string;
    try {
      runId = await begin();
    } catch (err) {
      void vscode.window.showErrorMessage(`Braid: ${planName} did not start: ${(err as Error).message}`);
      return undefined;
    }
    onStarted?.(runId);
    const ended = this.d.engines.whenEnded(runId);
    this.d.feedback.track(runId, ended, planName);
    let end;
    try {
      end = await ended;
    } catch (err) {
      void vscode.window.showErrorMessage(`Braid: lost track of run ${runId}: ${(err as Error).message}`);
      return undefined;
    }
    await this.d.runs.settled(); // views (tree, lenses) show the end before the command answers
    return { runId: end.runId, status: end.status, steps: end.steps };
  }
}

/** Continue the agent's session, or start over; undefined when the user dismissed the question. */
async function askResume(title: string, label: string, session: string | undefined): Promise<boolean | undefined> {
  // An agent that can pick up where it stopped saves the work (and cost) of starting over.
  const pick = await vscode.window.showQuickPick(
    [
      { label: `$(debug-continue) ${label}`, ...(session ? { description: session } : {}), resume: true },
      { label: '$(refresh) Start over', resume: false },
    ],
    { title },
  );
  return pick?.resume;
}
