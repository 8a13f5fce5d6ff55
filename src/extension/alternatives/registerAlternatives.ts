// The alternatives room: a best-of step's alternatives, picked (the VS Code face of `braid pick`)
// and their changes opened side by side.
import type * as vscode from 'vscode';
import { Command } from '../common/commandIds';
import { commandRegistrar } from '../common/registration';
import type { RunsModel } from '../runs/runsModel';
import { openAlternativeChanges } from './alternativeChanges';
import { pickAlternative } from './pickAlternative';

export interface AlternativesRoomDeps {
  readonly runs: RunsModel;
}

export function registerAlternatives(context: vscode.ExtensionContext, { runs }: AlternativesRoomDeps): void {
  const register = commandRegistrar(context);
  register(Command.pickAlternative, (run, step, index) => pickAlternative(runs, run, step, index));
  register(Command.pickThisAlternative, (alt) => pickAlternative(runs, alt));
  register(Command.openAlternativeChanges, (run, step, index) => openAlternativeChanges(runs, run, step, index));
}
