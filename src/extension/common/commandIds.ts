// Every command id in one place, with the arguments it takes from code (tests, other extensions,
// code lenses, tree items). Run bare from the palette, each one asks with a picker instead.
import type * as vscode from 'vscode';
import type { RunStatus, StepStatus } from '../../core/status';

/** Options of the retry commands (a command's arguments live beside its id). */
export interface RetryOptions {
  readonly resume?: boolean;
}

/** Options of *New Plan*. */
export interface NewPlanOptions {
  readonly name?: string;
  /** Draft with an agent for this goal; absent: the template. */
  readonly goal?: string;
  /** A preset name or an argv (custom agent); default: asked, or claude. */
  readonly agent?: string | readonly string[];
  /** How many drafts: 1 (default from code), or 2–10 drafted at once and compared side by side. */
  readonly drafts?: number;
  /** With drafts > 1: the drafting agents, used in turn (default: `agent` for every draft). */
  readonly agents?: readonly (string | readonly string[])[];
  /** With drafts > 1: the draft to keep, instead of asking. */
  readonly keep?: number;
}

export const Command = {
  runPlan: 'braid.runPlan',
  /** A step and what it needs; a need that succeeded the last time with the same content is reused. */
  runStep: 'braid.runStep',
  /** The same, reusing nothing: its needs run again too. */
  runStepFresh: 'braid.runStepFresh',
  runFrom: 'braid.runFrom',
  retryStep: 'braid.retryStep',
  retryFailed: 'braid.retryFailed',
  cancelRun: 'braid.cancelRun',
  cancelStep: 'braid.cancelStep',
  showGraph: 'braid.showGraph',
  showLog: 'braid.showLog',
  validatePlan: 'braid.validatePlan',
  newPlan: 'braid.newPlan',
  cleanRun: 'braid.cleanRun',
  openWorktree: 'braid.openWorktree',
  revealStep: 'braid.revealStep',
  /** An interrupted run (its engine died): the same as Retry Failed Steps, named for what it does there. */
  resumeRun: 'braid.resumeRun',
  /** A run held at its max-cost-usd: let it spend another budget's worth, or stop it there. */
  continueRun: 'braid.continueRun',
  stopRun: 'braid.stopRun',
  /** Writes .github/workflows/braid-<plan>.yml and opens it; resolves with its uri. */
  exportGithubActions: 'braid.exportGithubActions',
  /** A step's recorded change in the multi-file diff editor; a run's, every step's grouped by step. */
  reviewChanges: 'braid.reviewChanges',
  reviewRun: 'braid.reviewRun',
  approveStep: 'braid.approveStep',
  rejectStep: 'braid.rejectStep',
  /** A `conflict` step's change merged again onto the workspace as it is now, without running it. */
  mergeAgain: 'braid.mergeAgain',
  revertStep: 'braid.revertStep',
  /** The user's choice only: conflict markers written, resolved in the merge editor. */
  resolveInMergeEditor: 'braid.resolveInMergeEditor',
  /** A `conflict` step's agent (or one picked) resolves its conflict in its kept worktree, then it lands (`braid resolve`). */
  resolveWithAgent: 'braid.resolveWithAgent',
  /** An agent step handed to a person: `braid attach` in a terminal in its worktree; a message to a running one. */
  continueInTerminal: 'braid.continueInTerminal',
  sendToStep: 'braid.sendToStep',
  /** The Runs tree: only the steps that failed (context key `braid.failedOnly`), or all again. */
  showFailedOnly: 'braid.showFailedOnly',
  showAllSteps: 'braid.showAllSteps',
  /** A best-of step with `pick: review` waits: land one of its passed alternatives; resolves with its index. */
  pickAlternative: 'braid.pickAlternative',
  /** The Runs tree's alternative row: land this one (its step waits for the pick). */
  pickThisAlternative: 'braid.pickThisAlternative',
  /** One alternative's change in the multi-file diff editor; resolves with the files shown. */
  openAlternativeChanges: 'braid.openAlternativeChanges',
} as const;

export type CommandId = (typeof Command)[keyof typeof Command];

/** What run commands resolve with when their run ends, so callers can drive Braid. */
export interface RunSummary {
  readonly runId: string;
  readonly status: Extract<RunStatus, 'succeeded' | 'failed' | 'canceled'>;
  readonly steps: Readonly<Record<string, StepStatus>>;
}

/** Tree items pass themselves; everything else passes ids. */
export interface StepRef {
  readonly runId: string;
  readonly stepId: string;
}
export interface RunRef {
  readonly runId: string;
}
/** One alternative of a best-of step (the Runs tree's alternative rows pass themselves). */
export interface AlternativeRef extends StepRef {
  readonly index: number;
}

export interface CommandArgs {
  [Command.runPlan]: [uri?: vscode.Uri];
  [Command.runStep]: [uri?: vscode.Uri, stepId?: string];
  [Command.runStepFresh]: [uri?: vscode.Uri, stepId?: string];
  [Command.runFrom]: [uri?: vscode.Uri, stepId?: string];
  [Command.retryStep]: [runId?: string | StepRef, stepId?: string, options?: RetryOptions];
  [Command.retryFailed]: [runId?: string | RunRef, options?: RetryOptions];
  [Command.cancelRun]: [runId?: string | RunRef];
  [Command.cancelStep]: [runId?: string | StepRef, stepId?: string];
  [Command.showGraph]: [uri?: vscode.Uri | RunRef];
  /** `among`: the instances of a matrix step, to ask which one (the matrix lens's *Log*). */
  [Command.showLog]: [runId?: string | StepRef, stepId?: string, among?: readonly string[]];
  [Command.validatePlan]: [uri?: vscode.Uri];
  [Command.newPlan]: [options?: NewPlanOptions];
  [Command.cleanRun]: [runId?: string | RunRef];
  [Command.openWorktree]: [runId?: string | StepRef, stepId?: string];
  [Command.revealStep]: [runId?: string | StepRef, stepId?: string];
  [Command.resumeRun]: [runId?: string | RunRef];
  [Command.continueRun]: [runId?: string | RunRef];
  [Command.stopRun]: [runId?: string | RunRef];
  [Command.exportGithubActions]: [uri?: vscode.Uri];
  [Command.reviewChanges]: [runId?: string | StepRef, stepId?: string];
  [Command.reviewRun]: [runId?: string | RunRef];
  [Command.approveStep]: [runId?: string | StepRef, stepId?: string];
  [Command.rejectStep]: [runId?: string | StepRef, stepId?: string, reason?: string];
  [Command.mergeAgain]: [runId?: string | StepRef, stepId?: string];
  [Command.revertStep]: [runId?: string | StepRef, stepId?: string];
  [Command.resolveInMergeEditor]: [runId?: string | StepRef, stepId?: string];
  [Command.resolveWithAgent]: [runId?: string | StepRef, stepId?: string, agent?: string];
  [Command.continueInTerminal]: [runId?: string | StepRef, stepId?: string];
  [Command.sendToStep]: [runId?: string | StepRef, stepId?: string, message?: string];
  [Command.showFailedOnly]: [];
  [Command.showAllSteps]: [];
  [Command.pickAlternative]: [runId?: string | StepRef, stepId?: string, index?: number];
  [Command.pickThisAlternative]: [alternative?: AlternativeRef];
  [Command.openAlternativeChanges]: [runId?: string | StepRef | AlternativeRef, stepId?: string, index?: number];
}

/** A code lens / tree item command object with typed arguments. */
export function asCommand<C extends CommandId>(command: C, title: string, ...args: CommandArgs[C]): vscode.Command {
  return { command, title, arguments: args };
}
