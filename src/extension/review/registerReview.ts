// The review room: a step's recorded change in the diff and merge editors (read-only documents of
// its sides), and the commands that approve, reject, merge again, revert or resolve it.
import * as vscode from 'vscode';
import { Command } from '../common/commandIds';
import { commandRegistrar, keeper } from '../common/registration';
import type { Engines } from '../engine/engines';
import type { RunCommands } from '../runs/runCommands';
import type { RunsModel } from '../runs/runsModel';
import { ChangeDocuments, CHANGE_SCHEME } from './changeDocuments';
import { ReviewCommands } from './reviewCommands';

export interface ReviewRoomDeps {
  readonly runs: RunsModel;
  readonly engines: Engines;
  /** A conflict resolved by an agent is a run of that step. */
  readonly runCommands: RunCommands;
}

export function registerReview(context: vscode.ExtensionContext, d: ReviewRoomDeps): void {
  const { runs, engines, runCommands } = d;
  const reviewCommands = new ReviewCommands({ runs, engines });
  keeper(context)(vscode.workspace.registerTextDocumentContentProvider(CHANGE_SCHEME, new ChangeDocuments()));
  const register = commandRegistrar(context);
  register(Command.reviewChanges, (run, step) => reviewCommands.reviewChanges(run, step));
  register(Command.reviewRun, (run) => reviewCommands.reviewRun(run));
  register(Command.approveStep, (run, step) => reviewCommands.approve(run, step));
  register(Command.rejectStep, (run, step, reason) => reviewCommands.reject(run, step, reason));
  register(Command.mergeAgain, (run, step) => reviewCommands.mergeAgain(run, step));
  register(Command.revertStep, (run, step) => reviewCommands.revert(run, step));
  register(Command.resolveInMergeEditor, (run, step) => reviewCommands.resolveInMergeEditor(run, step));
  register(Command.resolveWithAgent, (run, step, agent) => runCommands.resolveWithAgent(run, step, agent));
}
