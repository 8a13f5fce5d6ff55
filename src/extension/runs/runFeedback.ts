// While runs are active: a status bar item ("Braid 3/10 ▶2"), a progress notification per run
// with Cancel only when `braid.progressNotification` asks for it (it would cover the graph's log
// pane for the whole run), a question when a step's change waits for review (Review Changes,
// Approve, Reject), and a notification when a run ends (failed steps get "Show Log" and "Retry";
// every run "Review Changes").
import { costText } from '../../core/cost/costText';
import { joinSource } from '../../core/engine/scheduling/costLedger';
import type { CostSource } from '../../core/cost/agentUsage';
import * as vscode from 'vscode';
import { bestOfText } from './bestOfText';
import { awaitsPick } from './pickText';
import type { RunEnded } from '../../protocol/engine';
import { Command } from '../common/commandIds';
import { endMessage } from './runEndText';
import { readSettings, type BraidSettings } from '../common/config';
import type { RunsModel } from './runsModel';
import { isActive } from './runView';
import { runProgress } from './treeText';
import { formatDuration, formatUsd } from '../../core/format';

export class RunFeedback implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('braid.status', vscode.StatusBarAlignment.Left, 50);
  private readonly sub: vscode.Disposable;

  /** Runs whose budget question is on screen, so each hold asks once. */
  private readonly asking = new Set<string>();
  /** Runs with a progress notification: a run adopted again (another snapshot) gets no second one. */
  private readonly tracked = new Set<string>();

  constructor(
    private readonly runs: RunsModel,
    private readonly cancel: (runId: string) => Promise<void>,
    private readonly decide: (runId: string, decision: 'continue' | 'stop') => Promise<boolean>,
  ) {
    this.item.name = 'Braid';
    this.item.command = 'braid.steps.focus';
    this.sub = runs.onDidChange((run) => {
      this.update();
      if (run?.budget && !this.asking.has(run.id)) void this.askBudget(run.id, run.budget);
      if (run) for (const s of run.steps.values()) if (s.status === 'review') void this.askReview(run.id, s.id);
      if (run) for (const s of run.steps.values()) if (s.alternatives && awaitsPick(s)) void this.askPick(run.id, s.id);
    });
  }

  /** `pick: review` steps whose question was shown (once each time a race ends waiting for the pick). */
  private readonly picking = new Set<string>();

  /** A best-of step's race is over: the user picks, from a list whose every item opens its alternative's diff. */
  private async askPick(runId: string, stepId: string): Promise<void> {
    const key = `${runId}/${stepId}`;
    if (this.picking.has(key)) return;
    this.picking.add(key);
    const waits = () => {
      const s = this.runs.get(runId)?.steps.get(stepId);
      return s !== undefined && awaitsPick(s);
    };
    try {
      const step = this.runs.get(runId)?.steps.get(stepId);
      const text = step ? bestOfText(step) : undefined;
      const pick = await vscode.window.showInformationMessage(
        `Braid: ${stepId} of ${this.runs.get(runId)?.planName ?? runId}: ${text ?? 'waiting for your pick'}. Look at each one's diff, then pick the one that lands.`,
        'Pick Alternative',
      );
      if (pick === 'Pick Alternative' && waits())
        await vscode.commands.executeCommand(Command.pickAlternative, runId, stepId);
    } finally {
      if (!waits()) this.picking.delete(key);
    }
  }

  /** Steps whose review question was shown (once each time a step enters `review`). */
  private readonly reviewing = new Set<string>();

  /** A step's change waits for a decision: Review Changes, Approve or Reject from the notification. */
  private async askReview(runId: string, stepId: string): Promise<void> {
    const key = `${runId}/${stepId}`;
    if (this.reviewing.has(key)) return;
    this.reviewing.add(key);
    try {
      const name = this.runs.get(runId)?.planName ?? runId;
      for (;;) {
        const pick = await vscode.window.showInformationMessage(
          `Braid: ${stepId} of ${name} is done; its change waits for your review before it lands.`,
          'Review Changes',
          'Approve',
          'Reject',
        );
        if (this.runs.get(runId)?.steps.get(stepId)?.status !== 'review') return;
        if (pick === 'Approve') {
          await vscode.commands.executeCommand(Command.approveStep, runId, stepId);
          return;
        }
        if (pick === 'Reject') {
          await vscode.commands.executeCommand(Command.rejectStep, runId, stepId);
          return;
        }
        if (pick !== 'Review Changes') return; // dismissed: the tree and the graph still offer it
        await vscode.commands.executeCommand(Command.reviewChanges, runId, stepId);
      }
    } finally {
      if (this.runs.get(runId)?.steps.get(stepId)?.status !== 'review') this.reviewing.delete(key);
    }
  }

  /** A run reached its max-cost-usd: no new step starts until the user says Continue or Stop. */
  private async askBudget(
    runId: string,
    budget: { spentUsd: number; budgetUsd: number; pool?: string },
  ): Promise<void> {
    this.asking.add(runId);
    try {
      const name = this.runs.get(runId)?.planName ?? runId;
      const who = budget.pool !== undefined ? `${name}'s pool ${budget.pool}` : name;
      // Continue raises the budget by another budget's worth (budget.ts); a step streaming past it is stopped meanwhile.
      const raise = `Raise to ${formatUsd(budget.spentUsd + budget.budgetUsd)}`;
      const pick = await vscode.window.showWarningMessage(
        `Braid: ${who} has spent ${formatUsd(budget.spentUsd)} of its ${formatUsd(budget.budgetUsd)} budget. No new step ${budget.pool !== undefined ? 'of the pool ' : ''}starts until you decide.`,
        raise,
        'Stop',
      );
      // Dismissed: the question stays open in the engine (another window, or its timeout, answers).
      if (pick && this.runs.get(runId)?.budget) await this.decide(runId, pick === raise ? 'continue' : 'stop');
    } finally {
      this.asking.delete(runId);
    }
  }

  /** The status bar text for the active runs, or undefined when none is active. */
  text(): string | undefined {
    const active = this.runs.runs().filter(isActive);
    if (active.length === 0) return undefined;
    const progress = active.length === 1 ? runProgress(active[0]!) : `${active.length} runs`;
    // The total spent while runs go on, reported or estimated (`est.`): what a budget counts.
    const costs = active.filter((r) => r.costUsd !== undefined);
    const source = costs.reduce<CostSource | undefined>((s, r) => joinSource(s, r.costSource), undefined);
    const cost =
      costs.length > 0
        ? ` ${costText(
            costs.reduce((a, r) => a + r.costUsd!, 0),
            source,
          )}`
        : '';
    return `$(sync~spin) Braid ${progress}${cost}`;
  }

  private update(): void {
    const text = this.text();
    if (!text) {
      this.item.hide();
      return;
    }
    this.item.text = text;
    this.item.tooltip = this.runs
      .runs()
      .filter(isActive)
      .map((r) => `${r.planName}: ${runProgress(r)}`)
      .join('\n');
    this.item.show();
  }

  /**
   * Progress for one run until `ended` settles, then the end notification. `planName` from the
   * caller: the views may not have the run's record yet (seen in CI: the title was the run id).
   */
  track(runId: string, ended: Promise<RunEnded>, planName: string): void {
    if (this.tracked.has(runId)) return;
    this.tracked.add(runId);
    void ended.finally(() => this.tracked.delete(runId)).catch(() => undefined);
    ended.then(
      (end) => this.notify(end, planName),
      () => undefined,
    );
    if (!readSettings().progressNotification) return;
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Braid: ${planName}`, cancellable: true },
      async (progress, token) => {
        token.onCancellationRequested(() => void this.cancel(runId));
        const sub = this.runs.onDidChange((r) => {
          if (r?.id === runId) progress.report({ message: runProgress(r) });
        });
        try {
          await ended;
        } catch {
          /* the command that started it reports the failure */
        } finally {
          sub.dispose();
        }
      },
    );
  }

  private async notify(end: RunEnded, name: string): Promise<void> {
    if (!notifies(readSettings().notifications, end.status)) return;
    const run = this.runs.get(end.runId);
    const took =
      (run?.endedAt !== undefined ? ` in ${formatDuration(run.endedAt - run.createdAt)}` : '') +
      (run?.costUsd !== undefined ? `, ${costText(run.costUsd, run.costSource)}` : '');
    const steps = Object.entries(end.steps);
    if (end.status === 'succeeded') {
      const pick = await vscode.window.showInformationMessage(
        `Braid: ${name} succeeded (${steps.length} steps${took}).`,
        'Show Graph',
        'Review Changes',
      );
      if (pick === 'Show Graph') await vscode.commands.executeCommand(Command.showGraph, { runId: end.runId });
      if (pick === 'Review Changes') await vscode.commands.executeCommand(Command.reviewRun, end.runId);
      return;
    }
    const failed = steps.filter(([, s]) => s === 'failed' || s === 'conflict').map(([id]) => id);
    const message = endMessage(
      name,
      end.status,
      steps.map(([, s]) => s),
      failed,
      took,
    );
    const conflict = steps.find(([, s]) => s === 'conflict')?.[0];
    const showLog = failed.length > 1 ? 'Show Failed Steps…' : 'Show Log';
    const pick = await vscode.window.showWarningMessage(
      message,
      ...(failed.length > 0 ? [showLog] : []),
      ...(conflict ? ['Resolve with Agent', 'Merge Again'] : []),
      'Retry',
      // Five buttons cut every label short: a conflict step's change is a click away in the tree and the graph.
      ...(conflict ? [] : ['Review Changes']),
    );
    if (pick === showLog) {
      const step =
        failed.length === 1
          ? failed[0]
          : (
              await vscode.window.showQuickPick(
                failed.map((id) => ({ label: id, description: end.steps[id] ?? '' })),
                { title: `Braid: ${name}: the log of which failed step?` },
              )
            )?.label;
      if (step !== undefined) await vscode.commands.executeCommand(Command.showLog, end.runId, step);
    }
    if (pick === 'Resolve with Agent')
      await vscode.commands.executeCommand(Command.resolveWithAgent, end.runId, conflict);
    if (pick === 'Merge Again') await vscode.commands.executeCommand(Command.mergeAgain, end.runId, conflict);
    if (pick === 'Review Changes') await vscode.commands.executeCommand(Command.reviewRun, end.runId);
    if (pick === 'Retry') await vscode.commands.executeCommand(Command.retryFailed, end.runId);
  }

  dispose(): void {
    this.sub.dispose();
    this.item.dispose();
  }
}

/** Whether a run's end is announced under `braid.notifications`: `all`, `failures` (not successes) or `none`. */
export function notifies(mode: BraidSettings['notifications'], status: RunEnded['status']): boolean {
  return mode === 'all' || (mode === 'failures' && status !== 'succeeded');
}
