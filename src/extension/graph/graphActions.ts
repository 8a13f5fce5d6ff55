// The graph page's buttons, acted on by the host: each names a gesture the tree, the lenses and the
// palette already have (run, retry, cancel, open a worktree, the review commands, a best-of step's
// alternatives), so a button does exactly what the same gesture does elsewhere. The message was
// parsed (src/protocol/webview.ts) and its step and run checked against the panel before it comes here.
import * as vscode from 'vscode';
import type { Graph } from '../../core/plan/types';
import type { WebviewMessage } from '../../protocol/webview';
import { Command } from '../common/commandIds';
import type { RunCommands } from '../runs/runCommands';
import type { ViewCommands } from '../runs/viewCommands';
import { bestOfAction } from './graphAlternatives';

export interface GraphActionContext {
  /** The panel's plan, its graph as shown, and the run it shows (none before a run). */
  readonly plan: vscode.Uri;
  readonly graph: Graph | undefined;
  readonly runId: string | undefined;
  readonly commands: RunCommands;
  readonly views: ViewCommands;
}

/** Carries out one button of the page. */
export async function graphAction(
  msg: Extract<WebviewMessage, { type: 'action' }>,
  p: GraphActionContext,
): Promise<void> {
  const c = p.commands;
  const runId = p.runId;
  const best = bestOfAction(p.graph, runId, msg.action, msg.stepId);
  if (best === 'drop') return dropped(msg, "not an action of a best-of step's alternatives");
  if (best) {
    await vscode.commands.executeCommand(best.command, ...best.args);
    return;
  }
  switch (msg.action) {
    case 'run-plan':
      await c.runPlan(p.plan);
      return;
    case 'run-from':
      await c.runFrom(p.plan, msg.stepId);
      return;
    case 'retry':
      if (runId) await c.retryStep(runId, msg.stepId);
      return;
    case 'retry-failed':
      if (runId) await c.retryFailed(runId);
      return;
    case 'cancel':
      if (runId) await c.cancelStep(runId, msg.stepId);
      return;
    case 'cancel-run':
      if (runId) await c.cancelRun(runId);
      return;
    case 'open-worktree':
      if (runId) await p.views.openWorktree(runId, msg.stepId);
      return;
    // The review commands, as the tree and the notification run them.
    case 'review-changes':
      if (runId) await vscode.commands.executeCommand(Command.reviewChanges, runId, msg.stepId!);
      return;
    case 'approve':
      if (runId) await vscode.commands.executeCommand(Command.approveStep, runId, msg.stepId!);
      return;
    case 'reject':
      if (runId) await vscode.commands.executeCommand(Command.rejectStep, runId, msg.stepId!);
      return;
    case 'merge-again':
      if (runId) await vscode.commands.executeCommand(Command.mergeAgain, runId, msg.stepId!);
      return;
  }
}

/** Every message the page sends is checked; what does not fit is dropped, and said. */
export function dropped(msg: WebviewMessage, why: string): void {
  console.warn(
    `braid: dropped a ${msg.type} message from the graph panel (${why}): ${JSON.stringify(msg).slice(0, 200)}`,
  );
}
