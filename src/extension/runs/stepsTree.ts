// The "Runs" tree (`braid.steps`): runs, active first then recent, and their steps with status
// icons, elapsed time, attempt and lock waits. Refreshed from the runs model's change events,
// coalesced so an output storm does not repaint the tree more than a few times a second.
// A matrix step's instances sit under one row for the group, with their counts, as in the graph;
// "failed only" (a toggle, context key `braid.failedOnly`) keeps just the steps that failed.
import * as vscode from 'vscode';
import { asCommand, Command, type RunRef, type StepRef } from '../common/commandIds';
import type { RunsModel } from './runsModel';
import { isActive, type RunView, type StepView } from './runView';
import { statusIcon } from '../common/statusText';
import { alternativeDescription, runDescription, stepDescription } from './treeText';
import { shownStatus, STEP_STATUSES, type StepStatus } from '../../core/status';
import { pickable } from './pickText';
import { groupCounts, groupCountsText } from '../../core/plan/groupCounts';
import { RunGroups } from './runGroups';

export type BraidNode = RunNode | GroupNode | StepNode | AlternativeNode;
export interface RunNode extends RunRef {
  readonly kind: 'run';
}
/** A matrix step's instances in a run. */
export interface GroupNode extends RunRef {
  readonly kind: 'group';
  readonly group: string;
}
export interface StepNode extends StepRef {
  readonly kind: 'step';
}
/** One alternative of a best-of step, under it. */
export interface AlternativeNode extends StepRef {
  readonly kind: 'alternative';
  readonly index: number;
}

/** What "failed only" keeps: steps that need the user. */
const FAILED: ReadonlySet<StepStatus> = new Set<StepStatus>(['failed', 'conflict', 'interrupted']);
/** A group row shows the status that most needs attention among its instances. */
const PRIORITY: readonly StepStatus[] = [
  'failed',
  'conflict',
  'interrupted',
  'running',
  'waiting',
  'pending',
  'canceled',
  'skipped',
  'succeeded',
];

const REFRESH_MS = 150;

/** "alternative 2" · "won" / "canceled · alternative 1 won"; its log on click. */
function alternativeItem(run: RunView, step: StepView, index: number): vscode.TreeItem {
  const alt = step.alternatives?.find((a) => a.index === index);
  const won = step.winner === index;
  const status =
    alt && (STEP_STATUSES as readonly string[]).includes(alt.status) ? (alt.status as StepStatus) : 'pending';
  const item = new vscode.TreeItem(`alternative ${index}`, vscode.TreeItemCollapsibleState.None);
  item.id = `${run.id}/${step.id}/alt${index}`;
  item.description = alternativeDescription(step, index);
  item.iconPath = won ? new vscode.ThemeIcon('star-full', new vscode.ThemeColor('charts.yellow')) : statusIcon(status);
  // `alternative.<status>[.pick]`: its changes once it passed; Pick This Alternative while its step waits for the pick.
  item.contextValue = `alternative.${status}${alt && pickable(step, alt) ? '.pick' : ''}`;
  item.tooltip = `alternative ${index} of ${step.id}: ${won ? 'won' : status}${alt?.message ? ` — ${alt.message}` : ''}`;
  // Each alternative logs as its own step, `<step>.alt<i>` (alternatives.ts).
  item.command = asCommand(Command.showLog, 'Show Log', run.id, `${step.id}.alt${index}`);
  return item;
}

export class StepsTree implements vscode.TreeDataProvider<BraidNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<BraidNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private readonly sub: vscode.Disposable;
  private readonly groups = new RunGroups();
  private failedOnlyOn = false;

  constructor(private readonly runs: RunsModel) {
    this.sub = runs.onDidChange(() => this.schedule());
  }

  get failedOnly(): boolean {
    return this.failedOnlyOn;
  }

  /** Shows only the steps that failed (and the groups holding them), or every step again. */
  setFailedOnly(on: boolean): void {
    this.failedOnlyOn = on;
    void vscode.commands.executeCommand('setContext', 'braid.failedOnly', on);
    this.changed.fire(undefined);
  }

  private groupsOf(run: RunView): ReadonlyMap<string, string> | undefined {
    return this.groups.groupsOf(run, () => this.changed.fire(undefined));
  }

  getChildren(node?: BraidNode): BraidNode[] {
    if (!node) return this.runs.runs().map((r) => ({ kind: 'run', runId: r.id }));
    if (node.kind === 'alternative') return [];
    if (node.kind === 'step') {
      const alts = this.runs.get(node.runId)?.steps.get(node.stepId)?.alternatives ?? [];
      return alts.map((a) => ({ kind: 'alternative', runId: node.runId, stepId: node.stepId, index: a.index }));
    }
    const run = this.runs.get(node.runId);
    if (!run) return [];
    const keep = (id: string): boolean => !this.failedOnlyOn || FAILED.has(run.steps.get(id)?.status ?? 'pending');
    const groups = this.groupsOf(run);
    if (node.kind === 'group') {
      return run.order
        .filter((id) => groups?.get(id) === node.group && keep(id))
        .map((stepId) => ({ kind: 'step', runId: run.id, stepId }));
    }
    const out: BraidNode[] = [];
    const seen = new Set<string>();
    for (const stepId of run.order) {
      const group = groups?.get(stepId);
      if (group === undefined) {
        if (keep(stepId)) out.push({ kind: 'step', runId: run.id, stepId });
      } else if (!seen.has(group)) {
        seen.add(group);
        if (run.order.some((id) => groups?.get(id) === group && keep(id)))
          out.push({ kind: 'group', runId: run.id, group });
      }
    }
    return out;
  }

  getParent(node: BraidNode): BraidNode | undefined {
    if (node.kind === 'run') return undefined;
    if (node.kind === 'alternative') return { kind: 'step', runId: node.runId, stepId: node.stepId };
    const run = this.runs.get(node.runId);
    const group = node.kind === 'step' && run ? this.groupsOf(run)?.get(node.stepId) : undefined;
    return group !== undefined ? { kind: 'group', runId: node.runId, group } : { kind: 'run', runId: node.runId };
  }

  private groupItem(run: RunView, group: string): vscode.TreeItem {
    const groups = this.groupsOf(run);
    const statuses = run.order
      .filter((id) => groups?.get(id) === group)
      .map((id) => run.steps.get(id)?.status ?? 'pending');
    const worst = PRIORITY.find((p) => statuses.includes(p)) ?? 'pending';
    const item = new vscode.TreeItem(
      group,
      worst === 'failed' || this.failedOnlyOn
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = `${run.id}/group:${group}`;
    item.description = groupCountsText(groupCounts(statuses));
    item.iconPath = statusIcon(worst);
    item.tooltip = `matrix step ${group}: ${statuses.length} instances`;
    item.contextValue = 'group';
    return item;
  }

  getTreeItem(node: BraidNode): vscode.TreeItem {
    const run = this.runs.get(node.runId);
    if (!run) return new vscode.TreeItem(node.runId);
    if (node.kind === 'run') {
      const active = isActive(run);
      const item = new vscode.TreeItem(
        run.planName,
        active ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
      );
      item.id = run.id;
      item.description = runDescription(
        run,
        Date.now(),
        groupCountsText(groupCounts([...run.steps.values()].map((st) => st.status))),
      );
      item.tooltip = new vscode.MarkdownString(
        `**${run.planName}** — ${run.status}\n\nrun \`${run.id}\`\n\n${vscode.workspace.asRelativePath(run.planFile)}`,
      );
      item.iconPath = statusIcon(run.status);
      item.contextValue = active ? (run.budget ? 'run.active.budget' : 'run.active') : `run.${run.status}`;
      return item;
    }
    if (node.kind === 'group') return this.groupItem(run, node.group);
    const step = run.steps.get(node.stepId);
    if (!step) return new vscode.TreeItem(node.stepId);
    if (node.kind === 'alternative') return alternativeItem(run, step, node.index);
    // A best-of step opens on its race while it runs.
    const state = !step.alternatives
      ? vscode.TreeItemCollapsibleState.None
      : step.status === 'running'
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed;
    const item = new vscode.TreeItem(step.name, state);
    item.id = `${run.id}/${step.id}`;
    item.description = stepDescription(step);
    item.iconPath = statusIcon(step.status);
    const pick = step.alternatives?.some((a) => pickable(step, a)) ? '.pick' : '';
    item.contextValue = `step.${step.status}${step.worktree ? '.worktree' : ''}${pick}`;
    const tip = [`**${step.name}** — ${shownStatus(step)}`, `step \`${step.id}\``];
    if (step.message) tip.push(step.message);
    if (step.worktree) tip.push(`worktree: ${step.worktree}`);
    if (step.sessionId) tip.push(`agent session \`${step.sessionId}\``);
    item.tooltip = new vscode.MarkdownString(tip.join('\n\n'));
    item.command = asCommand(Command.showLog, 'Show Log', run.id, step.id);
    return item;
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.changed.fire(undefined);
    }, REFRESH_MS);
    // Elapsed times of running steps move on without events: tick once a second while any run is active.
    const active = this.runs.runs().some(isActive);
    if (active && !this.ticker) this.ticker = setInterval(() => this.changed.fire(undefined), 1000);
    if (!active && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearInterval(this.ticker);
    this.sub.dispose();
    this.changed.dispose();
  }
}
