// The terminals room: each running step's terminal (a `braid` task), a task per plan and step in
// Run Task, and the commands that step into an agent step (Continue in Terminal, Send to Step).
import * as vscode from 'vscode';
import { Command } from '../common/commandIds';
import { readSettings } from '../common/config';
import { commandRegistrar, keeper } from '../common/registration';
import type { Engines } from '../engine/engines';
import type { Plans } from '../plans/plans';
import type { RunCommands } from '../runs/runCommands';
import type { RunsModel } from '../runs/runsModel';
import { StepTerminals } from './stepTerminals';
import { TakeoverCommands } from './takeoverCommands';
import { PlanTaskProvider, type TaskProviderDeps } from './taskProvider';

export interface TerminalsRoomDeps {
  readonly plans: Plans;
  readonly runs: RunsModel;
  readonly engines: Engines;
  readonly runCommands: RunCommands;
  readonly log: vscode.LogOutputChannel;
  readonly cliPath: string;
  /** Engine events, once the runs model has applied them (tasks follow their runs' events). */
  readonly onEvent: TaskProviderDeps['onEvent'];
}

export function registerTerminals(context: vscode.ExtensionContext, d: TerminalsRoomDeps): StepTerminals {
  const sub = keeper(context);
  const { plans, runs, engines, runCommands, log, cliPath } = d;
  const terminals = sub(
    new StepTerminals({
      runs,
      log: (line) => log.info(line),
      keep: () => readSettings().keepTerminals,
      cancelStep: (r, s) =>
        void engines.cancelStep(r, s).catch((err: Error) => log.warn(`cancel ${r}/${s}: ${err.message}`)),
    }),
  );
  sub(
    vscode.tasks.registerTaskProvider(
      'braid',
      new PlanTaskProvider({ plans, launch: (u, k, s) => runCommands.launch(u, k, s), onEvent: d.onEvent }),
    ),
  );
  const takeoverCommands = new TakeoverCommands({ runs, cliPath });
  const register = commandRegistrar(context);
  register(Command.continueInTerminal, (run, step) => takeoverCommands.continueInTerminal(run, step));
  register(Command.sendToStep, (run, step, message) => takeoverCommands.sendToStep(run, step, message));
  return terminals;
}
