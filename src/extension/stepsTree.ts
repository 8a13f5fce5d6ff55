// The "Runs" tree (`braid.steps`): runs, active first then recent, and their steps with status
// icons, elapsed time, attempt and lock waits. Refreshed from the runs model's change events,
// coalesced so an output storm does not repaint the tree more than a few times a second.
import * as vscode from 'vscode';
import { asCommand, Command, type RunRef, type StepRef } from './commandIds';
import type { RunsModel } from './runsModel';
import { isActive, type RunView, type StepView } from './runView';
import { statusIcon } from './statusText';
import { alternativeDescription, runDescription, stepDescription } from './treeText';

export type BraidNode = RunNode | StepNode | AlternativeNode;
export interface RunNode extends RunRef { readonly kind: 'run' }
export interface StepNode extends StepRef { readonly kind: 'step' }
/** One alternative of a best-of step, under it. */
export interface AlternativeNode extends StepRef { readonly kind: 'alternative'; readonly index: number }

const REFRESH_MS = 150;

/** "alternative 2" · "won" / "canceled · alternative 1 won"; its log on click. */
function alternativeItem(run: RunView, step: StepView, index: number): vscode.TreeItem {
  const alt = step.alternatives?.find((a) => a.index === index);
  const won = step.winner === index;
  const item = new vscode.TreeItem(`alternative ${index}`, vscode.TreeItemCollapsibleState.None);
  item.id = `${run.id}/${step.id}/alt${index}`;
  item.description = alternativeDescription(step, index);
  item.iconPath = won ? new vscode.ThemeIcon('star-full') : statusIcon(alt?.status === 'succeeded' || alt?.status === 'failed' || alt?.status === 'canceled' ? alt.status : 'pending');
  item.contextValue = 'alternative';
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

  constructor(private readonly runs: RunsModel) {
    this.sub = runs.onDidChange(() => this.schedule());
  }

  getChildren(node?: BraidNode): BraidNode[] {
    if (!node) return this.runs.runs().map((r) => ({ kind: 'run', runId: r.id }));
    if (node.kind === 'alternative') return [];
    if (node.kind === 'step') {
      const alts = this.runs.get(node.runId)?.steps.get(node.stepId)?.alternatives ?? [];
      return alts.map((a) => ({ kind: 'alternative', runId: node.runId, stepId: node.stepId, index: a.index }));
    }
    const run = this.runs.get(node.runId);
    return run ? run.order.map((stepId) => ({ kind: 'step', runId: run.id, stepId })) : [];
  }

  getParent(node: BraidNode): BraidNode | undefined {
    if (node.kind === 'alternative') return { kind: 'step', runId: node.runId, stepId: node.stepId };
    return node.kind === 'step' ? { kind: 'run', runId: node.runId } : undefined;
  }

  getTreeItem(node: BraidNode): vscode.TreeItem {
    const run = this.runs.get(node.runId);
    if (!run) return new vscode.TreeItem(node.runId);
    if (node.kind === 'run') {
      const active = isActive(run);
      const item = new vscode.TreeItem(run.planName, active ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
      item.id = run.id;
      item.description = runDescription(run);
      item.tooltip = new vscode.MarkdownString(`**${run.planName}** — ${run.status}\n\nrun \`${run.id}\`\n\n${vscode.workspace.asRelativePath(run.planFile)}`);
      item.iconPath = statusIcon(run.status);
      item.contextValue = active ? (run.budget ? 'run.active.budget' : 'run.active') : `run.${run.status}`;
      return item;
    }
    const step = run.steps.get(node.stepId);
    if (!step) return new vscode.TreeItem(node.stepId);
    if (node.kind === 'alternative') return alternativeItem(run, step, node.index);
    const item = new vscode.TreeItem(step.name, step.alternatives ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `${run.id}/${step.id}`;
    item.description = stepDescription(step);
    item.iconPath = statusIcon(step.status);
    item.contextValue = `step.${step.status}${step.worktree ? '.worktree' : ''}`;
    const tip = [`**${step.name}** — ${step.status}`, `step \`${step.id}\``];
    if (step.message) tip.push(step.message);
    if (step.worktree) tip.push(`worktree: ${step.worktree}`);
    if (step.sessionId) tip.push(`agent session \`${step.sessionId}\``);
    item.tooltip = new vscode.MarkdownString(tip.join('\n\n'));
    item.command = asCommand(Command.showLog, 'Show Log', run.id, step.id);
    return item;
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => { this.timer = undefined; this.changed.fire(undefined); }, REFRESH_MS);
    // Elapsed times of running steps move on without events: tick once a second while any run is active.
    const active = this.runs.runs().some(isActive);
    if (active && !this.ticker) this.ticker = setInterval(() => this.changed.fire(undefined), 1000);
    if (!active && this.ticker) { clearInterval(this.ticker); this.ticker = undefined; }
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearInterval(this.ticker);
    this.sub.dispose();
    this.changed.dispose();
  }
}
